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

package http

import (
	"context"
	"fmt"

	"github.com/listkeeper/listkeeper/internal/backends/backend"
	"github.com/listkeeper/listkeeper/internal/stores"
)

// Kind is the kind of a plain JSON document behind a URL.
type Kind struct{}

var _ backend.Kind = Kind{}

// Name implements backend.Kind.
func (Kind) Name() string { return "http" }

// BehindURL implements backend.Kind.
func (Kind) BehindURL() bool { return true }

// Matches implements backend.Kind: every list is a document behind a URL
// unless a kind before this one in the registry claims it.
func (Kind) Matches(backend.List) bool { return true }

// Locate implements backend.Kind.
func (Kind) Locate(l backend.List) backend.Location { return backend.LocateURL(l) }

// Build implements backend.Kind: a plain document needs nothing beyond
// what every list behind a URL gets. A spec.auth that names no store
// (the object stores claim every store it can name) cannot work.
func (Kind) Build(_ context.Context, l backend.List, _ backend.Deps) (backend.Built, error) {
	if l.Spec.Auth != nil {
		return backend.Built{}, fmt.Errorf("%w: spec.auth names no store", stores.ErrSpec)
	}
	return backend.Built{}, nil
}
