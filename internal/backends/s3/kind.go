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

package s3

import (
	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/backends/backend"
)

// Kind is the kind of a list kept in an object in Amazon S3 (or a store
// that speaks its API, with spec.auth.aws).
type Kind struct{ backend.ObjectStore }

var _ backend.Kind = Kind{}

// Name implements backend.Kind.
func (Kind) Name() string { return "s3" }

// Matches implements backend.Kind: spec.auth.aws, or no spec.auth and a
// URL that only this store's dialect understands.
func (k Kind) Matches(l backend.List) bool {
	return backend.MatchesStore(l, k.Name(), func(a *v1alpha1.StoreAuth) bool { return a.AWS != nil })
}
