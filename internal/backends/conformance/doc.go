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

// Package conformance is the one suite of behaviours that every backend
// kind, run against its fake, must show: Run drives a kind through the
// engine's seam (etagclient.Backend) and through an etagclient.Client
// built on it, and checks
//
//   - absent: a document that does not exist reads as absent, and is
//     created by a write that asks to create it (where the kind creates);
//   - conditional write: a write on the version read commits; a write on a
//     version another writer has replaced is lost, and nothing of it is
//     stored;
//   - ambiguous write: a write whose answer is lost after the store applied
//     it is unknown, and a later read shows it landed; one dropped before
//     it reached the store is unknown too, and nothing is stored;
//   - foreign items and fields: what the operator did not add survives its
//     writes, byte for byte or by the kind's own rules;
//   - limits: a document over the item or size limit is refused with
//     ErrInvalidDocument, and nothing is written;
//   - error classes: refused credentials, a missing list, throttling and
//     5xx answers each wrap the class the engine and the controller act on;
//   - unsafe answers: an HTML page, a body that is not the kind's answer,
//     and a version that cannot make a conditional write (no ETag, a weak
//     one, no generation, no lock token) are errors, and never lead to a
//     write.
//
// A kind takes part with a Harness: it starts a fresh fake, says what the
// kind can do, seeds and reads the fake's stored document directly (as
// another writer would), and injects the faults its fake has. Every
// request of the kind goes through a Probe, a transport below the kind's
// own signing, which the suite uses to play a second writer at the right
// moment, to count writes, and to turn an answer into one a broken proxy
// would give; a kind whose fake cannot drop a connection may inject that
// fault through the Probe too.
//
// Every check can fail: mutants_test.go runs the suite against
// deliberately broken backends (one that ignores the version it was
// given, one that drops foreign items, one that calls a lost write
// committed, ...) and requires each to be caught by the behaviour that
// names its defect.
//
// # Scope and limitations
//
//   - The seam-level checks need the kind's BackendFactory. The plain HTTP
//     backend and the object stores built on it are private to
//     internal/etagclient today, so for them (Target.Factory nil) the
//     seam-level subtests skip, saying so, and the behaviours are checked
//     through the Client only.
//   - Faults a fake cannot inject skip, naming the fake and the fault.
//   - A kind's known defect (Harness.Known) skips its subtest, saying the
//     defect; the harness proves the entry with a test that runs the
//     subtest without it and requires it to fail.
//   - The suite checks outcomes and stored state, not the wire: what a kind
//     sends is its own package's test to pin.
package conformance
