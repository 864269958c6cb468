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

package controller

import (
	"context"
	"os"
	"sort"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/listconfig"
)

// auditLookupTimeout bounds the cache read that names a commit's lists.
const auditLookupTimeout = 2 * time.Second

// AuditMessage is the message of every audit record: one per write that
// committed to a list.
const AuditMessage = "list write committed"

// Audit logs every committed write to a list, at Info level: the lists
// that name the claim (the holder, which wrote, first), its redacted URL, the IDs added and
// removed, the ETags before and after, and the replica that wrote. It never
// logs the raw URL or a header value. It is safe for concurrent use.
type Audit struct {
	// Log receives the records. Default: discard.
	Log logr.Logger
	// Lists reads the lists that name a claim (by the cache's claim
	// index).
	Lists client.Reader
	// Replica is this replica's identity (its member name, the pod name).
	Replica string
}

var _ listconfig.Auditor = (*Audit)(nil)

// Observer returns the audit observer of the client of claim; a nil Audit
// observes nothing. It implements listconfig.Auditor.
func (a *Audit) Observer(claim string) etagclient.Observer {
	if a == nil {
		return etagclient.NopObserver{}
	}
	return &auditObserver{audit: a, claim: claim}
}

// auditObserver is the per-client observer: only Wrote does anything.
type auditObserver struct {
	etagclient.NopObserver
	audit *Audit
	claim string
}

// Wrote implements etagclient.Observer.
func (o *auditObserver) Wrote(c etagclient.Commit) {
	o.audit.Log.Info(AuditMessage,
		"lists", o.lists(), "url", c.URL,
		"added", nonNil(c.Added), "removed", nonNil(c.Removed),
		"etagBefore", c.ETagBefore, "etagAfter", c.ETagAfter,
		"created", c.Created, "changes", c.Changes, "replica", o.audit.Replica)
}

// lists names the lists of the claim (kind namespace/name) that have read
// its document, the holder, which wrote, first; empty when the cache
// cannot say.
func (o *auditObserver) lists() []string {
	names := []string{}
	if o.audit.Lists == nil {
		return names
	}
	ctx, cancel := context.WithTimeout(context.Background(), auditLookupTimeout)
	defer cancel()
	lists, err := allLists(ctx, o.audit.Lists, client.MatchingFields{claimField: o.claim}, client.UnsafeDisableDeepCopy)
	if err != nil || len(lists) == 0 {
		return names
	}
	holder := listconfig.ClaimHolder(lists)
	names = append(names, auditName(holder))
	var rest []string
	for _, l := range lists {
		// A list that has not read the document takes no part in its
		// claim, and is not named beside the writes.
		if l.GetUID() != holder.GetUID() && listconfig.HasStanding(l) {
			rest = append(rest, auditName(l))
		}
	}
	sort.Strings(rest)
	return append(names, rest...)
}

// auditName names a list in the audit log: namespace/name for an
// ExternalList, as before ClusterExternalLists existed; the kind and name
// for a ClusterExternalList.
func auditName(l v1alpha1.List) string {
	if l.ListKind() == v1alpha1.ListKindClusterExternalList {
		return string(l.ListKind()) + "/" + l.GetName()
	}
	return l.GetNamespace() + "/" + l.GetName()
}

// nonNil makes an empty ID list log as [] rather than null.
func nonNil(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids
}

// defaultIdentity names the replica when Options.Identity is empty: the
// Owner's identity (a membership.Member's), else POD_NAME, else the host
// name.
func defaultIdentity(owner Owner) string {
	if id, ok := owner.(interface{ Identity() string }); ok && id.Identity() != "" {
		return id.Identity()
	}
	if name := os.Getenv("POD_NAME"); name != "" {
		return name
	}
	name, _ := os.Hostname()
	return name
}
