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
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/listconfig"
)

// entryListRef returns the reference of the list e keeps its ID on.
func entryListRef(e *v1alpha1.ListEntry) listconfig.Ref {
	return listconfig.Ref{Kind: e.ListKind(), NamespacedName: e.ListKey()}
}

// newList returns an empty object of kind.
func newList(kind v1alpha1.ListKind) v1alpha1.List {
	if kind == v1alpha1.ListKindClusterExternalList {
		return &v1alpha1.ClusterExternalList{}
	}
	return &v1alpha1.ExternalList{}
}

// getList reads the list ref names through c.
func getList(ctx context.Context, c client.Reader, ref listconfig.Ref) (v1alpha1.List, error) {
	l := newList(ref.Kind)
	if err := c.Get(ctx, ref.NamespacedName, l); err != nil {
		return nil, err
	}
	return l, nil
}

// allLists returns every list of both kinds that c shows matching opts.
func allLists(ctx context.Context, c client.Reader, opts ...client.ListOption) ([]v1alpha1.List, error) {
	var xls v1alpha1.ExternalListList
	if err := c.List(ctx, &xls, opts...); err != nil {
		return nil, fmt.Errorf("list ExternalLists: %w", err)
	}
	var cxls v1alpha1.ClusterExternalListList
	if err := c.List(ctx, &cxls, opts...); err != nil && !notCached(err) {
		return nil, fmt.Errorf("list ClusterExternalLists: %w", err)
	}
	out := make([]v1alpha1.List, 0, len(xls.Items)+len(cxls.Items))
	for i := range cxls.Items {
		out = append(out, &cxls.Items[i])
	}
	for i := range xls.Items {
		out = append(out, &xls.Items[i])
	}
	return out, nil
}

// notCached reports a read of a kind the cache does not serve: an
// installation that watches one namespace serves no ClusterExternalLists
// (the manager's cache fails such reads instead of starting an informer
// the operator has no permission for).
func notCached(err error) bool {
	var nc *cache.ErrResourceNotCached
	return errors.As(err, &nc)
}

// listBucketKey is what the bucket of a list's work, and of its entries',
// is hashed from: its document (listconfig.DocumentBucketKey), so that one replica
// writes each document; while the document is not known, the list itself
// (fallbackKey).
func listBucketKey(l v1alpha1.List) string {
	if doc := listconfig.DocumentOf(l); doc != "" {
		return listconfig.DocumentBucketKey(doc)
	}
	return fallbackKey(listconfig.RefOf(l))
}

// fallbackKey is the bucket key of a list whose document is not known, and
// of the entries of a list that is not in the cache: the replica that owns
// it finds out, with a read from the API server, whether the list exists.
func fallbackKey(ref listconfig.Ref) string { return "list\x00" + ref.Key() }

// entryBucketKey is the bucket key of an entry whose list l is as the
// cache shows it (nil: not there). An entry whose ID is on a document its
// list no longer names (placementMoved) belongs to that document's bucket
// until its ID is off it: only that document's owner writes it.
func entryBucketKey(e *v1alpha1.ListEntry, l v1alpha1.List) string {
	if l == nil {
		return fallbackKey(entryListRef(e))
	}
	if placementMoved(e, l) {
		return listconfig.DocumentBucketKey(e.Status.AddedTo.DocumentID)
	}
	return listBucketKey(l)
}

// listAdmitter returns whether l admits an entry (see admits), reading
// through c the labels of each namespace once. An entry whose namespace
// cannot be read is not admitted.
func listAdmitter(ctx context.Context, c client.Reader, l v1alpha1.List) func(*v1alpha1.ListEntry) bool {
	if l.ListKind() != v1alpha1.ListKindClusterExternalList {
		return func(*v1alpha1.ListEntry) bool { return true }
	}
	seen := map[string]bool{}
	return func(e *v1alpha1.ListEntry) bool {
		ok, known := seen[e.Namespace]
		if !known {
			ns := &corev1.Namespace{}
			if err := c.Get(ctx, types.NamespacedName{Name: e.Namespace}, ns); err == nil {
				_, ok = admits(l, e.Namespace, ns.Labels)
			}
			seen[e.Namespace] = ok
		}
		return ok
	}
}
