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

// Command e2e is the end-to-end benchmark of listkeeper on a real control
// plane ('make bench-e2e'). For each replica count R of --replicas (default
// 1, 3 and 5) it starts, from scratch:
//
//   - a kube-apiserver and etcd with envtest, from --assets
//     ($KUBEBUILDER_ASSETS, else bin/k8s), with the CRDs installed;
//   - the fake list server (--bin/fakeapi) with --latency (default 2ms) per
//     request, history on, and --lists documents (default 1), each
//     starting with --bystanders IDs;
//   - R manager processes (--bin/manager), all active, each with its own
//     metrics endpoint and its membership Lease in the benchmark's
//     namespace;
//
// creates one ExternalList per document, waits until the lists are Ready
// and the replicas' Leases share the buckets (so that the phases measure
// the replicas at rest, not joining), logs which replica owns each list's
// document, then creates --entries (default 1,000) ListEntries dealt
// round-robin over the lists, waits until every list holds its own (and
// every entry is Synced), deletes them all, and waits until every list
// holds exactly its bystanders again and no entry is left. Everything is
// stopped before the next R.
//
// Per phase and R it reports the time until the last list was complete
// (create) or clean (delete), taken from the fake server's commit history,
// and until the entries were all Synced or all gone; the per-ID latency
// (p50, p99 and max): for each ID, from the return of the API call that
// created (deleted) its entry to the first commit of its list's document
// that holds (no longer holds) the ID, from the same history; the
// operator's HTTP list requests per change over every list, counted by the
// fake server without the benchmark's own reads; the 412s, the commits and
// the 412s per commit; the writes and the mean batch size
// (listkeeper_batch_size); the managers'
// controller_runtime_reconcile_total by controller and result, per
// replica and summed; and the operator's own Kubernetes API requests per
// entry: the managers' rest_client_requests_total (every verb, by method,
// 409s apart), with the requests to Leases that the kube-apiserver counted
// (apiserver_request_total, resource leases: the members' renewals, and
// the API server's own identity Lease) left out. To tell where the time
// goes it also reports the kube-apiserver's requests for ListEntries
// (apiserver_request_total, the benchmark's own included) and the CPU time
// of the API server and the managers (process_cpu_seconds_total). The
// operator's ListEntry writes per entry are the API server's ListEntry
// writes (POST, PUT, PATCH, DELETE) less the benchmark's own create or
// delete of each entry: the finalizer patches, the status updates and the
// finalizer's removal. Each round says whether the API server ran the
// finalizer policy (config/finalizer-policy), which puts the finalizer on
// at creation so that the operator does not patch it on.
//
// It checks the targets of issue 16 (one writer per document): at every R,
// for create and for delete, at most 0.05 list requests per change, at
// most 0.1 412s per committed write and a per-ID latency p99 of at most
// 2 s; at every R at most 3.3 Kubernetes API requests per entry (create
// and delete together, Leases left out); with 5 replicas, creating and
// deleting take at most 1.1 times as long as with 1; and, in a run with
// --lists 8, at most 0.05 list requests per change at R=5. With the
// finalizer policy it checks those of issue 23: at every R at most 1.3 of
// the operator's ListEntry writes per entry while creating, and a per-ID
// create latency p99 under 3.5 s at R=1.
//
// The report is printed as markdown and written, with the raw figures as
// JSON, to --out/e2e-<time>/ and --out/latest-e2e/ (default out
// bench/results, which git ignores). A phase that times out, a list that
// ends wrong or a process that dies makes the exit status 1 and keeps the
// evidence (logs, resources, list history, metrics) in
// --out/e2e-<time>/evidence-r<R>/; targets are reported as met or not met
// but do not change the exit status.
//
// Run it from the repository root:
//
//	go run ./bench/e2e [--replicas 1,3,5] [--entries 1000] [--lists 1] [--latency 2ms] [--batch-interval 250ms]
package main
