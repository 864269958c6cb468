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
// 1 and 3) it starts, from scratch:
//
//   - a kube-apiserver and etcd with envtest, from --assets
//     ($KUBEBUILDER_ASSETS, else bin/k8s), with the CRDs installed;
//   - the fake list server (--bin/fakeapi) with --latency (default 2ms) per
//     request, history on, and a document of --bystanders IDs;
//   - R manager processes (--bin/manager), all active, each with its own
//     metrics endpoint;
//
// then creates --entries (default 1,000) ListEntries on one ExternalList,
// waits until the list holds them all (and every entry is Synced), deletes
// them all, and waits until the list holds exactly its bystanders again
// and no entry is left. Everything is stopped before the next R.
//
// Per phase and R it reports the time until the list was complete
// (create) or clean (delete), taken from the fake server's commit history,
// and until the entries were all Synced or all gone; the operator's HTTP
// list requests per change, counted by the fake server without the
// benchmark's own reads; the 412s; the writes and the mean batch size
// (listkeeper_batch_size); and the managers'
// controller_runtime_reconcile_total by controller and result, per
// replica and summed. To tell where the time goes it also reports the
// kube-apiserver's requests for ListEntries (apiserver_request_total) and
// the CPU time of the API server and the managers
// (process_cpu_seconds_total). It checks two targets: with 3 replicas at most 0.5
// list requests per change, and deleting with 3 replicas no slower than
// with 1.
//
// The report is printed as markdown and written, with the raw figures as
// JSON, to --out/e2e-<time>/ and --out/latest-e2e/ (default out
// bench/results, which git ignores). A phase that times out, a list that
// ends wrong or a process that dies makes the exit status 1 and keeps the
// evidence (logs, resources, list history, metrics) in
// --out/e2e-<time>/evidence-r<R>/; missed targets are reported but do not
// change the exit status.
//
// Run it from the repository root:
//
//	go run ./bench/e2e [--replicas 1,3] [--entries 1000] [--latency 2ms] [--batch-interval 250ms]
package main
