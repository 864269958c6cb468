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

// Package backends is the registry of the kinds of backend (Kinds), one
// package each under internal/backends, and what every list gets whatever
// its kind, written once: the pick of a list's kind (For), where it lives
// (Locate), the checks of its endpoint (Check: an absolute http or https
// URL, the operator's --allowed-hosts, no secret over plain http), and
// the identity of its claim (ClaimKey).
//
// A kind implements backend.Kind in a package of its own, which imports
// package backend, the engine (internal/etagclient) and the shared
// credential helpers (internal/stores), and never this package nor
// another kind. Adding a kind is its package, one line in Kinds, and its
// field in the CRD (api/v1alpha1).
package backends
