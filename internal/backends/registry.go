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

package backends

import (
	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/backends/azureblob"
	"github.com/listkeeper/listkeeper/internal/backends/backend"
	"github.com/listkeeper/listkeeper/internal/backends/gcpiam"
	"github.com/listkeeper/listkeeper/internal/backends/gcs"
	"github.com/listkeeper/listkeeper/internal/backends/http"
	"github.com/listkeeper/listkeeper/internal/backends/s3"
	"github.com/listkeeper/listkeeper/internal/backends/wafv2"
)

// Kinds are the kinds of backend, in the order they are asked whether a
// list is theirs (Registry.For): the kinds named by a spec field of their
// own first, then the object stores (Azure's first: a SAS in the query
// of any URL is Azure's), and last the plain HTTP document, which takes
// every list behind a URL that no other kind took.
var Kinds = Registry{
	wafv2.Kind{},
	gcpiam.Kind{},
	azureblob.Kind{},
	s3.Kind{},
	gcs.Kind{},
	http.Kind{},
}

// Registry is an ordered list of kinds of backend. It is read only, and
// safe for concurrent use.
type Registry []backend.Kind

// For returns the kind that keeps l: the first of r that Matches it, or
// nil when none does (a registry without a kind that takes every list).
func (r Registry) For(l backend.List) backend.Kind {
	for _, k := range r {
		if k.Matches(l) {
			return k
		}
	}
	return nil
}

// For returns the kind of Kinds that keeps l.
func For(l backend.List) backend.Kind { return Kinds.For(l) }

// Identity returns the identity of the document spec names when the spec
// alone tells it (spec.url, or a kind not behind a URL): "" for a spec.url
// that is not an absolute http or https URL. known is false for a list
// whose document only its Secret tells (spec.urlFrom).
func (r Registry) Identity(spec *v1alpha1.ExternalListSpec) (identity string, known bool) {
	l := backend.List{Spec: spec}
	k := r.For(l)
	if k == nil {
		return "", false
	}
	if k.BehindURL() {
		if spec.URL == "" {
			return "", false
		}
		if l.RawURL, l.URL = spec.URL, backend.ParseURL(spec.URL); l.URL == nil {
			return "", true
		}
		k = r.For(l)
	}
	doc := k.Locate(l).Document
	return doc, doc != ""
}

// Identity is Kinds.Identity.
func Identity(spec *v1alpha1.ExternalListSpec) (string, bool) { return Kinds.Identity(spec) }

// ClaimKey is what one list at a time holds the claim on: the document
// whose published identity is documentID, and what the list's kind says
// the claim is on beside it (backend.Location.Scope: the items pointer, or
// a role).
func (r Registry) ClaimKey(documentID string, spec *v1alpha1.ExternalListSpec) string {
	l := backend.List{Spec: spec}
	scope := backend.CanonicalPointer(spec.ItemsPointer)
	if k := r.For(l); k != nil {
		scope = k.Locate(l).Scope
	}
	return documentID + "\x00" + scope
}

// ClaimKey is Kinds.ClaimKey.
func ClaimKey(documentID string, spec *v1alpha1.ExternalListSpec) string {
	return Kinds.ClaimKey(documentID, spec)
}
