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

// Package controller holds listkeeper's controllers.
//
// The ListEntry controller keeps one ID on its ExternalList's document while
// the entry lives, and takes it off when the last entry holding it is
// deleted (finalizer listkeeper.dev/cleanup). The ExternalList controller
// checks that the list is reachable and well-formed, reports its state, and
// corrects drift every resync interval.
//
// Both talk to a list only through the combining ETag client
// (internal/etagclient), one per claim per process, kept by
// internal/listconfig, which also resolves each list's configuration (URL,
// auth, TLS, headers) and its document's identity and claim. A reconcile
// submits its change and returns without holding a worker; when the change
// is committed the entry is queued again and the outcome is recorded. That
// lets every change a replica has in flight combine into a few writes.
//
// Replicas share the work through internal/membership: every ListEntry
// and list falls in the bucket of its document, and only the replica that
// holds a bucket acts on its objects (Owner), so one replica writes each
// document, in order. The durable records of which ID is where live in the
// API server: the entry's finalizer (put on at creation by the
// MutatingAdmissionPolicy where it is installed), the claim its ID was
// added under (status.addedTo, see placement.go) and the entries removed
// with their finalizer on (a list's status.vanishedEntries). Whether
// another entry still holds an ID is read from the API server before a
// removal is decided and before each write that carries it. Changes are
// fenced, so a replica that lost a bucket never writes for it again after
// a lost write. Setup wires everything, for cmd/manager and the tests
// alike.
package controller
