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

// Package torture drives etagclient against a faulty fakeapi server from
// many goroutines of several independent clients and checks what happened.
//
// One round (Run) starts a fakeapi.Server with history on and latency,
// 503, reset-before-commit and commit-then-drop faults, seeds a few list
// documents (an items array at /items among other keys, with bystander IDs
// that nobody touches) and lets Replicas independent etagclient.Clients,
// each with its own HTTP transport, change them from WorkersPerReplica
// goroutines each. Every ID is added once and later removed by a random
// goroutine of a random replica, so most removals come from another replica
// than the addition: that is where a lost update would show. Some changes
// get a short deadline, which makes their outcome unknown to the caller.
//
// A share of the operations (Config.HotRate) works on hot IDs instead (see
// hot.go): per list and phase a few shared ones that every replica adds
// and removes, and a few per replica that only that replica touches. A hot
// operation makes one change, or submits an addition and a removal of the
// same ID back to back in either order (Submit, then Submit or Update)
// before waiting for both, so additions and removals of one ID meet in one
// client's cycle, and replicas race each other on the shared ones. The
// changes of a replica's own hot IDs are recorded with the order in which
// its client received them.
//
// Every change and read is recorded with its call and return time and its
// outcome: ok, failed (provably not applied) or ambiguous (it may or may
// not have been applied, now or later). The round then checks:
//
//   - With porcupine, linearizability against a set-of-strings model,
//     partitioned by list, with the reads made at quiescent points (between
//     phases and at the end, after the faults stop). An ambiguous change's
//     effect may land at any later point or never (see model.go). Each
//     list's hot IDs are a partition of their own: that checks the same,
//     because the quiescent reads of a list are made one after another and
//     overlap no change, and keeps porcupine from trying every interleaving
//     of the other IDs' changes when it must reorder a hot ID's (see
//     checkSetModel).
//   - With porcupine again, per ID (partitioned by list and ID), every read,
//     including those made concurrently with the changes, projected on that
//     ID. Set membership is compositional per element, so this checks each
//     concurrent read against every change of every ID cheaply.
//   - Independently, the server's committed versions: each one parses, keeps
//     every byte outside the items array and the bystanders in order, and
//     differs from the previous one only by IDs whose addition or removal
//     was in flight (ok) or could still land (ambiguous) at that moment. An
//     acknowledged change is visible in the version current when it
//     returned.
//   - Lost IDs (acknowledged, not removed since, but missing at the end)
//     and resurrected IDs (acknowledged removal, not added since, but
//     present at the end).
//   - Submission order (see order.go), stricter than linearizability,
//     under which concurrent changes may take effect in any order: for the
//     IDs only one replica touches, its changes must take effect in the
//     order its client received them. The final presence must be the effect
//     of the last change acknowledged ok or of an ambiguous one after it; a
//     change acknowledged ok must show in the version current when it
//     returned, unless a change submitted after it explains what shows; and
//     every change of the ID's presence in the server's versions must come
//     from the changes taking effect in that order, each between its call
//     and return.
//
// A porcupine result of Unknown (the check timed out) is a failure to
// verify and counts against the round, never as a pass. When a check finds
// a violation, porcupine's HTML visualisation of the failing partitions and
// the round's history are written to a directory made with os.MkdirTemp
// (kept after the process ends) and named in the report.
//
// The set check is fast on a linearizable history, but to refute one
// porcupine must try every order of the changes that overlap, so on a
// broken history it may end in Unknown rather than Illegal; the per-ID
// check, which runs first and always reaches a verdict quickly, names the
// culprits.
//
// A change counts as failed only when the client refused it before queueing
// it: the client does not tell a change withdrawn before its cycle from one
// still in flight when the caller's context ended, so both are ambiguous.
// A submitted change whose waiter gave up is ambiguous too.
//
// TestTorture runs short rounds with fixed seeds; TestTortureCatchesBrokenServers
// shows that the checks go red against servers broken on purpose, and
// TestOrderProblems that the submission-order check goes red on histories
// that break the order; the TestRegression tests replay, step by step,
// bugs that rounds found; cmd/soak runs rounds back to back for a set time
// and prints totals.
package torture
