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

package backend

import (
	"context"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/stores"
)

// ObjectStore is what the kinds of a list kept in an object of a store
// (S3, Cloud Storage, Azure Blob Storage) share: the list is a document
// behind its URL, and its client is made with the store's signer from
// spec.auth, or, without spec.auth, with the dialect its URL asks for. A
// kind embeds it and adds its Name and Matches (see MatchesStore).
type ObjectStore struct{}

// BehindURL implements Kind.
func (ObjectStore) BehindURL() bool { return true }

// Locate implements Kind.
func (ObjectStore) Locate(l List) Location { return LocateURL(l) }

// Build implements Kind: the store's signer (spec.auth) and its dialect.
func (ObjectStore) Build(ctx context.Context, l List, deps Deps) (Built, error) {
	if l.Spec.Auth == nil {
		return Built{Options: stores.ListOptions(l.URL)}, nil
	}
	opts, fp, err := stores.Options(ctx, l.Spec.Auth, l.RawURL, deps.Secret, deps.Policy)
	if err != nil {
		return Built{}, err
	}
	return Built{Options: opts, Fingerprint: fp}, nil
}

// MatchesStore reports whether l is kept in the store named name: its
// spec.auth names the store (names), or it has no spec.auth and a URL that
// only the store's dialect understands (stores.URLKind).
func MatchesStore(l List, name string, names func(*v1alpha1.StoreAuth) bool) bool {
	if a := l.Spec.Auth; a != nil {
		return names(a)
	}
	return l.URL != nil && stores.URLKind(l.URL) == name
}
