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
)

// auditLookupTimeout bounds the cache read that names a commit's lists.
const auditLookupTimeout = 2 * time.Second

// AuditMessage is the message of every audit record: one per write that
// committed to a list.
const AuditMessage = "list write committed"

// Audit logs every committed write to a list, at Info level: the
// ExternalLists that name the document, its redacted URL, the IDs added and
// removed, the ETags before and after, and the replica that wrote. It never
// logs the raw URL or a header value. It is safe for concurrent use.
type Audit struct {
	// Log receives the records. Default: discard.
	Log logr.Logger
	// Lists reads the ExternalLists that name a document (by the cache's
	// document index).
	Lists client.Reader
	// Replica is this replica's identity (its member name, the pod name).
	Replica string
}

// observer returns the audit observer of a client built for xl: its
// commits name every ExternalList of xl's document.
func (a *Audit) observer(xl *v1alpha1.ExternalList) etagclient.Observer {
	return &auditObserver{audit: a, document: documentKey(xl), fallback: xl.Namespace + "/" + xl.Name}
}

// option returns the client option that adds the audit observer for xl;
// nil Audit adds nothing.
func (a *Audit) option(xl *v1alpha1.ExternalList) etagclient.Option {
	if a == nil {
		return etagclient.WithExtraObserver(etagclient.NopObserver{})
	}
	return etagclient.WithExtraObserver(a.observer(xl))
}

// auditObserver is the per-client observer: only Wrote does anything.
type auditObserver struct {
	etagclient.NopObserver
	audit    *Audit
	document string
	fallback string
}

// Wrote implements etagclient.Observer.
func (o *auditObserver) Wrote(c etagclient.Commit) {
	o.audit.Log.Info(AuditMessage,
		"lists", o.lists(), "url", c.URL,
		"added", nonNil(c.Added), "removed", nonNil(c.Removed),
		"etagBefore", c.ETagBefore, "etagAfter", c.ETagAfter,
		"created", c.Created, "changes", c.Changes, "replica", o.audit.Replica)
}

// lists names the ExternalLists (namespace/name) of the document, sorted;
// the list the client was built for when the cache cannot say.
func (o *auditObserver) lists() []string {
	if o.audit.Lists == nil {
		return []string{o.fallback}
	}
	ctx, cancel := context.WithTimeout(context.Background(), auditLookupTimeout)
	defer cancel()
	var xls v1alpha1.ExternalListList
	if err := o.audit.Lists.List(ctx, &xls, client.MatchingFields{documentField: o.document},
		client.UnsafeDisableDeepCopy); err != nil || len(xls.Items) == 0 {
		return []string{o.fallback}
	}
	names := make([]string, 0, len(xls.Items))
	for i := range xls.Items {
		names = append(names, xls.Items[i].Namespace+"/"+xls.Items[i].Name)
	}
	sort.Strings(names)
	return names
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
