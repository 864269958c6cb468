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

// Package e2e holds the end-to-end tests of listkeeper: real manager
// processes (cmd/manager) and the fake list server (cmd/fakeapi) against a
// real kube-apiserver and etcd started with envtest, all driven by the
// shared harness in test/e2e/harness.
//
// The control plane is started once in TestMain from $KUBEBUILDER_ASSETS,
// else from bin/k8s ('make envtest-assets' builds it); without it the tests
// fail and say so. The binaries are bin/manager and bin/fakeapi ('make
// build'); when either is missing, both are built with go build into the
// run's temp dir. With -short the suite is skipped.
//
// The tests:
//
//   - TestCrashAndRestart: three replicas and 300 ListEntries; the list
//     server is killed with SIGKILL during the creation and restarted on the
//     same port from its state file, and one replica is killed with SIGKILL
//     during the deletion and restarted. Everything must converge: the list
//     ends with exactly its bystanders in their order, no entry is left, no
//     ID was lost, and no manager panicked.
//   - TestReplicaFailover: three replicas and a burst of creations and
//     deletions (320 operations in about 8 s); in its middle one replica
//     is stopped for good, with SIGKILL (subtest SIGKILL) or SIGTERM
//     (SIGTERM). The survivors must take over: the list ends with exactly
//     the bystanders and the IDs of the live entries, and no entry stays
//     Terminating or unsynced. It logs when the survivors' Leases claimed
//     every bucket and, for the entries in the victim's buckets (read from
//     its Lease) that were pending at the signal or changed after it, when
//     the last was done: after SIGKILL within 15 s (the Lease lasts 10 s),
//     after SIGTERM none waiting more than 3 s.
//   - TestChurnWhileScaling: 24 IDs with up to three holders each, and six
//     goroutines that toggle holders, swap one holder of an ID for another
//     at once and delete an entry to re-create it under its name, while the
//     replicas go 3 -> 5 -> 2 (one SIGKILL, two SIGTERM); from the
//     scale-down on, the odd IDs lose all their holders. At rest the list
//     must hold exactly the bystanders and every ID with a live holder,
//     and the two replicas left must claim every bucket once.
//
// Each test's replicas keep their membership Leases in the test's own
// namespace (--lease-namespace), and a test starts once the replicas'
// Leases share the buckets.
//
// A failing test keeps its directory (every process's log, the resources,
// events, the list document, its history and stats, the managers' metrics)
// and prints its path.
package e2e
