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

// Package v1alpha1 contains the API types of the listkeeper.dev group,
// version v1alpha1.
//
// An ExternalList says where a list of IDs lives outside Kubernetes (a JSON
// document behind an HTTP API) and how to talk to it. A ListEntry puts one ID
// on one ExternalList for as long as the ListEntry exists; the finalizer
// FinalizerName holds a deleted ListEntry until its ID is off the list.
//
// Both kinds are namespaced, and a ListEntry only refers to an ExternalList in
// its own namespace. Besides the types, the package holds the finalizer name,
// the condition types and reasons the controllers report (see conditions.go),
// and small pure helpers that resolve defaults (ExternalList.ResyncPeriod,
// ExternalList.EffectiveMode). The generated DeepCopy functions live in
// zz_generated.deepcopy.go and come from `make generate`.
//
// +kubebuilder:object:generate=true
// +groupName=listkeeper.dev
package v1alpha1
