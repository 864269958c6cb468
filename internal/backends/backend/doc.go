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

// Package backend is what a kind of backend implements (Kind) and what it
// is given and gives back: the list it is asked about (List), where that
// list lives (Location), what it may use to reach it (Deps) and what it
// built (Built). Each kind is a package of its own under
// internal/backends; the registry that picks one for a list is package
// internal/backends, which imports every kind. A kind imports this
// package, internal/etagclient and the shared credential helpers
// (internal/stores), never another kind nor the registry.
//
// The rules every kind behind a URL shares (how its location is shown, and
// what identifies the document at a URL) are here too (url.go), so that
// they are written once.
package backend
