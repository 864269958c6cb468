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

package harness

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/internal/membership"
)

// MemberLease is a listkeeper member's Lease (internal/membership) as read
// from the API server.
type MemberLease struct {
	// Name is the Lease's name.
	Name string
	// Holder is the member's identity; a Manager's starts with its name
	// (see Of).
	Holder string
	// Group is the value of its listkeeper.dev/member label: the members'
	// group.
	Group string
	// Buckets are the buckets its annotation claims, in order.
	Buckets []int
	// Renewed is spec.renewTime, by the member's clock.
	Renewed time.Time
	// Err says why the claims could not be read; Buckets is then nil.
	Err error
}

// ReadMemberLeases lists the member Leases in namespace: those that carry
// the label listkeeper.dev/member, whatever its value (the members' group),
// whose claims are bitmaps of n buckets (the managers' --buckets,
// membership.DefaultBuckets unless set). A Lease whose claims cannot be
// read is returned with Err set.
func ReadMemberLeases(ctx context.Context, c client.Client, namespace string, n int) ([]MemberLease, error) {
	var list coordinationv1.LeaseList
	if err := c.List(ctx, &list, client.InNamespace(namespace), client.HasLabels{membership.LabelMember}); err != nil {
		return nil, fmt.Errorf("list member Leases: %w", err)
	}
	out := make([]MemberLease, 0, len(list.Items))
	for i := range list.Items {
		l := &list.Items[i]
		ml := MemberLease{Name: l.Name, Group: l.Labels[membership.LabelMember]}
		if l.Spec.HolderIdentity != nil {
			ml.Holder = *l.Spec.HolderIdentity
		}
		if l.Spec.RenewTime != nil {
			ml.Renewed = l.Spec.RenewTime.Time
		}
		ml.Buckets, ml.Err = DecodeBuckets(l.Annotations[membership.AnnotationBuckets], n)
		out = append(out, ml)
	}
	return out, nil
}

// DecodeBuckets reads the listkeeper.dev/buckets annotation of a member's
// Lease for n buckets, with internal/membership's own decoder. It returns
// the claimed buckets in order.
func DecodeBuckets(s string, n int) ([]int, error) {
	return membership.DecodeBuckets(s, n)
}

// Of reports whether the Lease is the member of the replica called name
// (a Manager's Name): membership identities are POD_NAME, which the
// harness sets to the replica's name, a dash and a random hex suffix, so
// every process of that replica, restarts included, has its own Lease.
func (l MemberLease) Of(name string) bool {
	rest, ok := strings.CutPrefix(l.Holder, name+"-")
	return ok && rest != "" && !strings.Contains(rest, "-")
}

// Replica is the name of the replica the Lease belongs to: its holder
// without the random suffix after the last dash (see Of), or the whole
// holder when it has no dash.
func (l MemberLease) Replica() string {
	if i := strings.LastIndexByte(l.Holder, '-'); i > 0 {
		return l.Holder[:i]
	}
	return l.Holder
}

// OwnerOf returns the Lease that claims bucket b, and false when no Lease
// or more than one claims it (buckets are moving).
func OwnerOf(leases []MemberLease, b int) (MemberLease, bool) {
	var owner MemberLease
	found := 0
	for _, l := range leases {
		if slices.Contains(l.Buckets, b) {
			owner = l
			found++
		}
	}
	return owner, found == 1
}

// Coverage describes how the given Leases claim n buckets.
type Coverage struct {
	// Claimed counts the buckets claimed at least once.
	Claimed int
	// Unclaimed and Shared list the buckets nobody claims and those that
	// more than one Lease claims.
	Unclaimed, Shared []int
}

// Complete reports whether every bucket is claimed exactly once.
func (c Coverage) Complete() bool { return len(c.Unclaimed) == 0 && len(c.Shared) == 0 }

// String renders the coverage for messages.
func (c Coverage) String() string {
	return fmt.Sprintf("%d buckets claimed, %d unclaimed%s, %d claimed twice%s",
		c.Claimed, len(c.Unclaimed), intList(c.Unclaimed), len(c.Shared), intList(c.Shared))
}

// CoverageOf counts the claims of leases on n buckets. A Lease whose claims
// could not be read counts as claiming none.
func CoverageOf(leases []MemberLease, n int) Coverage {
	count := make([]int, n)
	for _, l := range leases {
		for _, b := range l.Buckets {
			if b >= 0 && b < n {
				count[b]++
			}
		}
	}
	var c Coverage
	for b, k := range count {
		switch {
		case k == 0:
			c.Unclaimed = append(c.Unclaimed, b)
		case k > 1:
			c.Shared = append(c.Shared, b)
		}
		if k > 0 {
			c.Claimed++
		}
	}
	return c
}

// LeasesOf picks, for each replica name, its newest Lease (by renew time):
// a replica that was killed and restarted leaves its old Lease behind.
// A replica without a Lease is left out.
func LeasesOf(leases []MemberLease, names ...string) []MemberLease {
	var out []MemberLease
	for _, name := range names {
		var newest *MemberLease
		for i := range leases {
			if leases[i].Of(name) && (newest == nil || leases[i].Renewed.After(newest.Renewed)) {
				newest = &leases[i]
			}
		}
		if newest != nil {
			out = append(out, *newest)
		}
	}
	return out
}

// Unsettled counts the buckets, of n, that the leases do not claim the way
// the members' rendezvous hashing (membership.Assign) assigns them among
// the leases' holders: claimed by another holder, by more than one, or by
// none. While it is not 0, buckets are still moving (a member that joins
// starts with none), or a Lease cannot be read.
func Unsettled(leases []MemberLease, n int) int {
	holders := make([]string, len(leases))
	for i, l := range leases {
		holders[i] = l.Holder
	}
	owner := membership.Assign(holders, n)
	claimants := make([][]string, n)
	for _, l := range leases {
		if l.Err != nil {
			return n
		}
		for _, b := range l.Buckets {
			if b >= 0 && b < n {
				claimants[b] = append(claimants[b], l.Holder)
			}
		}
	}
	off := 0
	for b, cs := range claimants {
		if len(cs) != 1 || cs[0] != owner[b] {
			off++
		}
	}
	return off
}

// WaitMembers waits until every one of managers holds a member Lease in
// namespace and their Leases claim the n buckets as the members assign
// them among themselves (Unsettled is 0): the replicas have joined and
// the buckets have moved. A manager's /readyz says only that its caches
// are synced; it joins a moment later, with no bucket, and takes its share
// as the others hand it over. It gives up when a child of sup exits
// early, ctx ends or timeout passes.
func WaitMembers(ctx context.Context, c client.Client, sup *Supervisor, namespace string, managers []*Manager, n int, timeout time.Duration) error {
	names := make([]string, len(managers))
	for i, m := range managers {
		names[i] = m.Name()
	}
	var last string
	err := Poll(ctx, sup, timeout, 100*time.Millisecond, func(ctx context.Context) (bool, error) {
		all, err := ReadMemberLeases(ctx, c, namespace, n)
		if err != nil {
			last = err.Error()
			return false, err
		}
		theirs := LeasesOf(all, names...)
		off := Unsettled(theirs, n)
		last = fmt.Sprintf("%d of %d replicas hold a Lease; %v; %d buckets not where they belong", len(theirs), len(names), CoverageOf(theirs, n), off)
		return len(theirs) == len(names) && off == 0, nil
	})
	if err != nil {
		return fmt.Errorf("the replicas' buckets did not settle: %w (%s)", err, last)
	}
	return nil
}

// intList renders up to five numbers as " (1, 2, ...)", nothing for none.
func intList(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return IDList(s)
}
