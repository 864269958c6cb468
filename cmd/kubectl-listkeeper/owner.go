/*
Copyright 2026 The listkeeper Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/internal/listconfig"
	"github.com/listkeeper/listkeeper/internal/membership"
)

// Owners. Every replica of the operator holds a Lease in the operator's
// namespace, labelled membership.LabelMember=<group>, whose
// membership.AnnotationBuckets says which buckets it holds; a document's
// work falls in the bucket of listconfig.DocumentBucketKey(documentID).
// The replica whose Lease claims that bucket writes the document.

// ownerView says which replica writes a document.
type ownerView struct {
	// Bucket is the document's bucket, of Buckets; nil while the document
	// is not known.
	Bucket  *int `json:"bucket,omitempty"`
	Buckets int  `json:"buckets"`
	// Holder is the holder identity of the Lease that claims the bucket
	// (a replica's POD_NAME), Lease its name and Group its member group.
	Holder string `json:"holder,omitempty"`
	Lease  string `json:"lease,omitempty"`
	Group  string `json:"group,omitempty"`
	// RenewTime is the Lease's last renewal, by the replica's clock.
	RenewTime *time.Time `json:"renewTime,omitempty"`
	// Expired is true when the Lease was not renewed within its duration
	// (by this machine's clock): the replica is gone, and its buckets move
	// once the others notice.
	Expired bool `json:"expired,omitempty"`
	// AlsoClaimedBy are the holders of other Leases that claim the bucket
	// too: the bucket is being handed over.
	AlsoClaimedBy []string `json:"alsoClaimedBy,omitempty"`
	// Note says why no owner is shown, or what could not be read.
	Note string `json:"note,omitempty"`
}

// ownerQuery is where to look for the member Leases.
type ownerQuery struct {
	// Namespace is the operator's namespace (--operator-namespace).
	Namespace string
	// Group is the member group (--member-group); "" takes any.
	Group string
	// Buckets is the operators' --buckets (membership.DefaultBuckets).
	Buckets int
}

// decideOwner finds, among leases, the one that claims the bucket of
// documentID.
func decideOwner(leases []coordinationv1.Lease, documentID string, q ownerQuery, now time.Time) ownerView {
	v := ownerView{Buckets: q.Buckets}
	if documentID == "" {
		v.Note = "the document is not known yet"
		return v
	}
	b := membership.Bucket(listconfig.DocumentBucketKey(documentID), q.Buckets)
	v.Bucket = &b
	var claimants []coordinationv1.Lease
	unreadable := 0
	for _, l := range leases {
		held, err := membership.DecodeBuckets(l.Annotations[membership.AnnotationBuckets], q.Buckets)
		switch {
		case err != nil:
			unreadable++
		case slices.Contains(held, b):
			claimants = append(claimants, l)
		}
	}
	// The live Lease renewed last comes first: a dead one's claim is stale.
	slices.SortStableFunc(claimants, func(a, b coordinationv1.Lease) int {
		if ea, eb := leaseExpired(&a, now), leaseExpired(&b, now); ea != eb {
			if ea {
				return 1
			}
			return -1
		}
		return renewTime(&b).Compare(renewTime(&a))
	})
	switch {
	case len(leases) == 0:
		v.Note = fmt.Sprintf("no member Lease in namespace %s%s: is the operator in another namespace (--operator-namespace)?", q.Namespace, groupSuffix(q.Group))
	case len(claimants) == 0:
		v.Note = fmt.Sprintf("no member Lease claims bucket %d: it is moving between replicas", b)
	}
	if unreadable > 0 {
		v.Note = joinNote(v.Note, fmt.Sprintf("%d Lease(s) hold claims that are not bitmaps of %d buckets (is the operator's --buckets another number?)", unreadable, q.Buckets))
	}
	if len(claimants) == 0 {
		return v
	}
	o := &claimants[0]
	v.Lease, v.Group = o.Name, o.Labels[membership.LabelMember]
	if h := o.Spec.HolderIdentity; h != nil {
		v.Holder = *h
	}
	if o.Spec.RenewTime != nil {
		t := o.Spec.RenewTime.Time
		v.RenewTime = &t
	}
	v.Expired = leaseExpired(o, now)
	for _, l := range claimants[1:] {
		if h := l.Spec.HolderIdentity; h != nil {
			v.AlsoClaimedBy = append(v.AlsoClaimedBy, *h)
		} else {
			v.AlsoClaimedBy = append(v.AlsoClaimedBy, l.Name)
		}
	}
	return v
}

// renewTime is l's last renewal, or its creation when it has none.
func renewTime(l *coordinationv1.Lease) time.Time {
	if l.Spec.RenewTime != nil {
		return l.Spec.RenewTime.Time
	}
	return l.CreationTimestamp.Time
}

// leaseExpired reports whether l's duration has passed since its last
// renewal, by now.
func leaseExpired(l *coordinationv1.Lease, now time.Time) bool {
	d := membership.DefaultLeaseDuration
	if s := l.Spec.LeaseDurationSeconds; s != nil {
		d = time.Duration(*s) * time.Second
	}
	return now.After(renewTime(l).Add(d))
}

func groupSuffix(group string) string {
	if group == "" {
		return ""
	}
	return " with " + membership.LabelMember + "=" + group
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// readLeases lists the member Leases q names.
func readLeases(ctx context.Context, c client.Reader, q ownerQuery) ([]coordinationv1.Lease, error) {
	var sel client.ListOption = client.HasLabels{membership.LabelMember}
	if q.Group != "" {
		sel = client.MatchingLabels{membership.LabelMember: q.Group}
	}
	var leases coordinationv1.LeaseList
	if err := c.List(ctx, &leases, client.InNamespace(q.Namespace), sel); err != nil {
		return nil, fmt.Errorf("list member Leases in namespace %s: %w", q.Namespace, err)
	}
	return leases.Items, nil
}
