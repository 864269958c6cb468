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
// run's temp dir. With -short the suite is skipped. Where the
// kube-apiserver serves MutatingAdmissionPolicy (1.36 and later), TestMain
// installs the finalizer policy of config/finalizer-policy, so that every
// ListEntry has the cleanup finalizer from its creation, as in a real
// install.
//
// The tests:
//
//   - TestCrashAndRestart: three replicas and 300 ListEntries; the list
//     server is killed with SIGKILL during the creation and restarted on the
//     same port from its state file, and one replica is killed with SIGKILL
//     during the deletion and restarted. Everything must converge: the list
//     ends with exactly its bystanders in their order, no entry is left, no
//     ID was lost, no ID came back onto the list after it had left it
//     during the deletion, and no manager panicked.
//   - TestReplicaFailover: three replicas and a burst of creations and
//     deletions (320 operations in about 8 s); in its middle the replica
//     that writes the list's document (the owner of its bucket) is stopped
//     for good, with SIGKILL (subtest SIGKILL) or SIGTERM (SIGTERM). The
//     survivors must take over: the list ends with exactly the bystanders
//     and the IDs of the live entries, and no entry stays Terminating or
//     unsynced. Of the entries pending at the signal or changed after it,
//     after SIGKILL none changed after it may be done before the victim's
//     Lease could expire (7 s), and all must be done within 25 s (a change
//     the document already holds is settled only once the victim's last
//     write could have landed, up to 20 s after the signal); after SIGTERM
//     none may wait more than 4 s.
//   - TestChurnWhileScaling: six lists, 16 IDs on each with up to three
//     holders, and twelve goroutines that toggle holders, swap one holder
//     of an ID for another at once, delete an entry to re-create it under
//     its name, and create flash holders that are deleted within 50 ms,
//     mostly before the operator put its finalizer on, then created again
//     at once; meanwhile the replicas go 3 -> 5 -> 2 (one SIGKILL, two
//     SIGTERM), and from the scale-down on the odd IDs lose all their
//     holders. At rest every list must hold exactly the bystanders and
//     every ID with a live holder, and the two replicas left must claim
//     every bucket once.
//   - TestDocumentClaims: with replicas that watch every namespace, two
//     namespaces name one document (the later list is DocumentInUse, its
//     entries are never written nor keep an ID, and it takes the claim
//     when the first list goes), and a ClusterExternalList selects one of
//     two namespaces (the other's entries are NamespaceNotAllowed, never
//     written nor keep an ID).
//   - TestHeldWrites: a churn on six lists while the list server holds
//     every write for 8 s before it evaluates its If-Match; a fourth
//     replica joins, then the hot list's owner is killed right after one of
//     its writes committed, its next write held. The operator must come to
//     rest once the hold ends.
//   - TestPausedOwner: the hot list's owner is paused with SIGSTOP for 15 s
//     during a churn; nobody may write its document before its Lease could
//     expire, the others take it over, and once resumed it must exit with
//     an error without committing a write (its audit log says what it
//     wrote); it is then restarted.
//   - TestClaimTakenByClusterList: with three replicas that watch every
//     namespace, an ExternalList holds a document and its entries' IDs
//     are on it; a ClusterExternalList naming the same document takes the
//     claim. The old list and entries go DocumentInUse and their IDs come
//     off (status.addedTo cleared), except one that an entry of the
//     ClusterExternalList holds too; deleting the old entries writes
//     nothing.
//   - TestNamespaceLeavesSelector: a namespace loses the label that a
//     ClusterExternalList selects: its entries go NamespaceNotAllowed and
//     their IDs come off, except one held in a namespace still selected;
//     labelled again, its IDs come back.
//   - TestVanishedEntryHandover: without the finalizer policy (the test
//     removes it for its run), an entry's key is deleted from etcd while
//     the list answers 503, so the owner's removal is refused and the
//     entry is recorded in its list's status.vanishedEntries; the owner is
//     killed with SIGKILL and a replica is started after. Once the list
//     answers again the ID must come off and the record go, whether the
//     entry was its list's only one (subtest OnlyEntry) or another live
//     entry is on the list (BesideLiveEntry).
//
// Every test that changes entries watches them for the whole run with a
// ledger and checks each recorded version of each document against it
// (ledger_test.go): no version holds an ID while no entry that its list
// admits holds it, and none lacks the ID of an entry seen Synced before
// that entry was deleted.
//
// Each test's replicas keep their membership Leases in the test's own
// namespace (--lease-namespace), and a test starts once the replicas'
// Leases share the buckets. Each test's documents live under a path named
// for its namespace.
//
// A failing test keeps its directory (every process's log, the resources,
// events, the list documents, their history and stats, the managers'
// metrics, the ledger's events) and prints its path.
package e2e
