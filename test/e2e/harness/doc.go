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

// Package harness runs the listkeeper operator end to end on one machine,
// with real processes: a kube-apiserver and etcd started by
// controller-runtime's envtest, the bundled fake list server (cmd/fakeapi)
// and any number of manager replicas (cmd/manager). The demo (hack/demo),
// the end-to-end benchmark (bench/e2e) and the crash tests (test/e2e) are
// built from it, so that there is one copy of this logic.
//
// # Pieces
//
//   - StartCluster starts the control plane from a directory of binaries
//     (CheckAssets says clearly what is missing), installs the CRDs, writes
//     a kubeconfig for a system:masters user and builds a client. Given the
//     module root (ClusterOptions.PolicyRoot), it installs the finalizer
//     policy of config/finalizer-policy where the kube-apiserver serves
//     MutatingAdmissionPolicy (1.36 and later), with
//     testenv.InstallFinalizerPolicy, so that every ListEntry has the
//     cleanup finalizer from its creation; Cluster.FinalizerPolicy says
//     whether it did. Cluster.EtcdURL lets a test change what the API
//     server stores behind its back.
//   - A Supervisor starts child processes, each in its own process group
//     with its output appended to a log file, and reports the first one that
//     exits before it was asked to. Proc.Stop sends SIGTERM to the group and
//     SIGKILL after StopGrace; Proc.Kill sends SIGKILL at once; Proc.Pause
//     and Resume stop and continue it (SIGSTOP, SIGCONT); after
//     Proc.MayExit its own exit is not an early one.
//   - StartListServer runs cmd/fakeapi on a fixed address with seeded
//     documents, an optional state file and history. It can be stopped,
//     killed and restarted on the same address; its request counters are
//     summed over restarts, and the harness's own reads of list documents
//     are counted so that callers can subtract them. SetFaults changes its
//     faults at run time, such as the write hold of
//     internal/fakeapi (fakeapi.Faults.RateHoldWrites).
//   - An OutsideWriter edits a list document as a writer outside
//     listkeeper would (GET, change its own IDs, PUT with If-Match, again
//     after a 412), counts its requests, and says which of its IDs it
//     left, so that a run can check that the operator never touched them.
//     The fake server counts its requests apart (fakeapi.Stats.Agents).
//   - StartManagers runs manager replicas with their own metrics and probe
//     ports and waits until each is ready; a Manager can be stopped, killed
//     and restarted with the same flags, paused and resumed, and says when
//     it was signalled.
//     Scrape reads its Prometheus metrics (ParseMetrics parses the text
//     format) into ManagerMetrics, summed over restarts: list requests,
//     writes and batches, reconciles, CPU, and the replica's own Kubernetes
//     API requests by method (client-go's rest_client_requests_total).
//   - A replica runs with POD_NAME set to its name, so its membership
//     Lease can be told apart: ReadMemberLeases reads the members' Leases
//     and the buckets they claim, LeasesOf picks a replica's newest,
//     CoverageOf says whether they claim every bucket exactly once, and
//     WaitMembers waits until the replicas have joined and the buckets
//     have settled. Member Leases are those with the label
//     listkeeper.dev/member, whatever its value (the members' group).
//     OwnerOf names the Lease that claims a bucket; package
//     test/e2e/harness/ownership gives a list's document ID and the bucket
//     it falls in, so together they say which replica writes the list.
//   - EnsureNamespace and ListObject create the namespace, the ExternalList
//     for a list server's document and the Secret with its token, and wait
//     until the list is Ready.
//   - Entries creates, deletes and lists a labelled set of ListEntries
//     of an ExternalList or a ClusterExternalList concurrently, or one at
//     a time with any ID (CreateHolder); DeleteUnchanged deletes one with
//     preconditions on what it just read, so that a finalizer put on
//     meanwhile holds the deletion up. Poll waits for a condition with a
//     bound and stops early when a child dies; DiffItems, KeepsOrder and
//     Count compare a list with the wanted IDs; StuckEntries says why
//     entries hold a phase up.
//   - ReadCounters takes the list server's request counters and every
//     manager's metrics at one moment; the difference of two reads is what
//     a phase cost (Counters.Requests leaves out the harness's own reads).
//   - Evidence saves logs, resources, events, list documents, history,
//     stats and metrics after a failure; FindPanics scans logs for panics.
//   - RepoRoot finds the module; FindBinaries locates bin/manager and
//     bin/fakeapi, or builds them with go build.
//
// Everything listens on 127.0.0.1 only.
//
// # Scope and limitations
//
//   - Unix only: process groups and signals. On Linux a child also gets
//     SIGKILL when the process that started it dies (Pdeathsig), as a safety
//     net should that process itself be killed. The control plane's
//     processes are envtest's and lack that net: always call Cluster.Stop.
//   - Counters summed over restarts are read just before a stop or a kill;
//     what a process did between that read and its death is not counted.
//     A fake list server's history is per process and is not persisted.
//   - Document decodes only documents whose IDs are at "/items".
//   - DecodeBuckets reads the bucket claims with internal/membership's own
//     decoder, so the two cannot drift apart; Leases whose claims cannot be
//     read show as MemberLease.Err.
//   - Free ports are found by listening on port 0 and closing: another
//     process may take one before the child binds it; the child then exits
//     early and the Supervisor reports it. A list server start waits until
//     its address is free, so a restart right after a kill works.
//
// Supervisor, Proc, ListServer and Manager are safe for concurrent use;
// Cluster is safe once started.
package harness
