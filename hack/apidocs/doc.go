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

// Command apidocs writes docs/api.md, the reference of the listkeeper.dev
// API, from the Go types of api/v1alpha1 (make api-docs): their doc
// comments, and the kubebuilder markers that controller-gen turns into the
// CRDs (defaults, enums, lengths, CEL validation rules with their messages,
// printer columns, short names, selectable fields). It also lists the
// package's string constants: the finalizer, the annotation, and the
// condition types and reasons.
//
// It reads the source with go/parser, without type-checking, so it knows
// only what the package itself says: types from other packages (metav1's
// Condition, Duration, ...) are described from a fixed table in render.go.
// hack/verify.sh fails when the committed docs/api.md differs from what it
// writes; TestMarkersMatchCRDs checks its reading of the markers against
// the CRDs controller-gen wrote to config/crd/bases.
//
// Usage, from the repository root:
//
//	go run ./hack/apidocs [-api api/v1alpha1] [-out docs/api.md]
package main
