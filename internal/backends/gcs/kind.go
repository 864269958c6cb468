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

package gcs

import (
	"context"

	"github.com/listkeeper/listkeeper/internal/backends/backend"
	"github.com/listkeeper/listkeeper/internal/stores"
)

// Kind is the kind of a list kept in an object in Google Cloud Storage.
type Kind struct{}

var _ backend.Kind = Kind{}

// Name implements backend.Kind.
func (Kind) Name() string { return "gcs" }

// BehindURL implements backend.Kind.
func (Kind) BehindURL() bool { return true }

// Matches implements backend.Kind: spec.auth.gcp, or no spec.auth and a URL
// that only this store's dialect understands (stores.URLKind).
func (Kind) Matches(l backend.List) bool {
	if a := l.Spec.Auth; a != nil {
		return a.GCP != nil
	}
	return l.URL != nil && stores.URLKind(l.URL) == "gcs"
}

// Locate implements backend.Kind.
func (Kind) Locate(l backend.List) backend.Location { return backend.LocateURL(l) }

// Build implements backend.Kind: the store's signer (spec.auth) and its
// dialect.
func (Kind) Build(ctx context.Context, l backend.List, deps backend.Deps) (backend.Built, error) {
	if l.Spec.Auth == nil {
		return backend.Built{Options: stores.ListOptions(l.URL)}, nil
	}
	opts, fp, err := stores.Options(ctx, l.Spec.Auth, l.RawURL, deps.Secret, deps.Policy)
	if err != nil {
		return backend.Built{}, err
	}
	return backend.Built{Options: opts, Fingerprint: fp}, nil
}
