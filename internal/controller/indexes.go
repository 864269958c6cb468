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
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/listconfig"
)

// Field names. listRefField, listKindField and idField are both cache
// indexes and CRD selectable fields, so the same name works against the
// cache and, as a field selector, against the API server. The others
// exist only in the cache.
const (
	listRefField  = "spec.listRef.name"
	listKindField = "spec.listRef.kind"
	idField       = "spec.id"
	// listField indexes ListEntries by their list (listconfig.Ref.Key: kind,
	// namespace, name), and listIDField by their list and ID.
	listField   = "listkeeper.dev/list"
	listIDField = "listkeeper.dev/list-id"
	// secretRefField indexes lists of both kinds by the Secrets they read
	// (namespace/name: a ClusterExternalList's live in the cluster
	// resource namespace).
	secretRefField = "listkeeper.dev/secret"
	// claimField indexes lists of both kinds by their claim
	// (listconfig.ClaimKey), to find the lists that compete for one.
	claimField = "listkeeper.dev/claim"
	// claimIDField indexes lists of both kinds by listconfig.ClaimID, to
	// find the holder of the claim an entry's ID was added under.
	claimIDField = "listkeeper.dev/claim-id"
	// vanishedField indexes lists of both kinds by the names
	// (namespace/name) of the entries recorded in their
	// status.vanishedEntries.
	vanishedField = "listkeeper.dev/vanished"
)

// listIDKey is the listIDField value of an entry of ref with ID id. An
// address or CIDR block is keyed as an IP set spells it
// (listconfig.SpellCIDR), so that one lookup finds "10.0.0.1" and
// "10.0.0.1/32" together. The index
// only gathers candidates: whether two spellings are one item is the
// list's to say (listconfig.Config.Spell); on an HTTP list they are two.
func listIDKey(ref listconfig.Ref, id string) string {
	return ref.Key() + "\x00" + listconfig.SpellCIDR(id)
}

// index is one field index of the cache.
type index struct {
	obj     client.Object
	field   string
	extract client.IndexerFunc
}

// entryIndexes are the indexes of ListEntries.
func entryIndexes() []index {
	var out []index
	for field, value := range map[string]func(*v1alpha1.ListEntry) string{
		listRefField:  func(e *v1alpha1.ListEntry) string { return e.Spec.ListRef.Name },
		listKindField: func(e *v1alpha1.ListEntry) string { return string(e.ListKind()) },
		idField:       func(e *v1alpha1.ListEntry) string { return e.Spec.ID },
		listField:     func(e *v1alpha1.ListEntry) string { return entryListRef(e).Key() },
		listIDField:   func(e *v1alpha1.ListEntry) string { return listIDKey(entryListRef(e), e.Spec.ID) },
	} {
		out = append(out, index{obj: &v1alpha1.ListEntry{}, field: field, extract: func(o client.Object) []string {
			return []string{value(o.(*v1alpha1.ListEntry))}
		}})
	}
	return out
}

// listIndexes are the indexes of the lists of both kinds: by the Secrets
// they read (clusterNamespace is where a ClusterExternalList's are) and by
// claim.
func listIndexes(clusterNamespace string) []index {
	var out []index
	for _, obj := range []client.Object{&v1alpha1.ExternalList{}, &v1alpha1.ClusterExternalList{}} {
		out = append(out,
			index{obj: obj, field: secretRefField, extract: func(o client.Object) []string {
				l := o.(v1alpha1.List)
				ns := listconfig.SecretNamespace(l, clusterNamespace)
				var keys []string
				for _, name := range l.ListSpec().SecretNames() {
					keys = append(keys, ns+"/"+name)
				}
				return keys
			}},
			index{obj: obj, field: claimField, extract: func(o client.Object) []string {
				if key := listconfig.ClaimKey(o.(v1alpha1.List)); key != "" {
					return []string{key}
				}
				return nil
			}},
			index{obj: obj, field: claimIDField, extract: func(o client.Object) []string {
				if id := listconfig.ClaimID(o.(v1alpha1.List)); id != "" {
					return []string{id}
				}
				return nil
			}},
			index{obj: obj, field: vanishedField, extract: func(o client.Object) []string {
				var names []string
				for _, v := range o.(v1alpha1.List).ListStatus().VanishedEntries {
					names = append(names, types.NamespacedName{Namespace: v.Namespace, Name: v.Name}.String())
				}
				return names
			}})
	}
	return out
}

// addIndexes registers idx with the cache.
func addIndexes(ctx context.Context, fi client.FieldIndexer, idx []index) error {
	for _, i := range idx {
		if err := fi.IndexField(ctx, i.obj, i.field, i.extract); err != nil {
			return fmt.Errorf("index %s: %w", i.field, err)
		}
	}
	return nil
}
