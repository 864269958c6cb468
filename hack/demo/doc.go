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

// Command demo runs the listkeeper operator end to end on this machine, with
// nothing but the binaries that `make demo` builds:
//
//   - a real kube-apiserver and etcd, started with controller-runtime's
//     envtest from --assets, with the CRDs of config/crd/bases installed and
//     a kubeconfig for a system:masters user written to the temp dir;
//   - the list store of --store, seeded with a document of bystander IDs
//     that the operator must leave alone: by default (--store=fakeapi) the
//     bundled fake list server (bin/fakeapi) on 127.0.0.1:8090 when that
//     port is free, else on a free port, with the
//     samples' bearer token and 1ms latency; with --store=s3 an in-process
//     S3 (internal/storetest/s3fake: gofakes3 behind a SigV4 verifier) on
//     a free port of 127.0.0.1, the document being the object
//     lists/allow.json; with --store=wafv2 an in-process AWS WAFv2 IP-set
//     API (internal/storetest/wafv2fake: SigV4 verified, WAF's lock tokens
//     checked) on a free port of 127.0.0.1, the list being the addresses
//     of the IP set allow-list (scope REGIONAL), whose description stands
//     for the document's other content;
//   - --replicas copies of the real manager binary (bin/manager), each a
//     separate process with its own metrics and probe ports, all active;
//   - config/samples, rendered with kubectl kustomize and applied; with
//     --store=s3 instead a Secret allow-list-aws with the S3's test
//     credentials (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY), an
//     ExternalList allow-list with spec.url <S3>/lists/allow.json,
//     itemsPointer /items and auth.aws (region us-east-1, that Secret), and
//     the samples' ListEntry alone; with --store=wafv2 that Secret with
//     the WAFv2 API's test credentials, an ExternalList allow-list with
//     spec.wafv2 (region us-east-1, scope REGIONAL, the set's name and ID,
//     endpoint the API's URL) and auth.aws, and a ListEntry tenant-a of
//     its own that holds 203.0.113.0/24. The managers reach the S3 or the
//     WAFv2 API over loopback and sign every request themselves
//     (internal/stores, the WAFv2 one with aws-sdk-go-v2's client), as
//     they would for AWS.
//
// An IP set holds CIDRs only. With --store=wafv2 the demo entries hold
// addresses of 10.0.0.0/8 instead of their names (demo-0042 holds
// 10.0.0.42/32), at most 9,949 of them beside the 50 bystanders
// (198.51.100.0/24, then 192.0.2.1/32 onwards) and the sample entry: WAF
// keeps at most 10,000 addresses in a set.
//
// Once the sample entry is on the list it says which replica writes the
// list's document: the one whose member Lease claims the bucket of the
// document's ID (status.documentID, or the ID of spec.url until the
// operator publishes one). It then creates --entries ListEntries
// concurrently, waits until all their IDs are on the list and every entry
// is Synced, deletes them all, and waits until the list holds only the
// bystanders and the sample entry's ID again and no demo entry is left.
//
// With --store=fakeapi a writer outside listkeeper edits the same document
// during both phases (harness.OutsideWriter): every 100-200 ms it reads
// the document with its ETag, adds or removes one of its own IDs
// (outside-1 to outside-5) and writes it back with If-Match, reading again
// after a 412. The operator must never touch those IDs (the sample list is
// Additive): at the end the demo checks that exactly the IDs the writer
// left are on the list, counts any other outcome as lost updates, and
// splits the 412s into those answered to listkeeper and those answered to
// the outside writer, as the fake server counted them by User-Agent. The
// writer's requests are left out of the operator's figures. With
// --store=s3 and --store=wafv2 there is no outside writer: it would have
// to sign its requests (and the WAFv2 fake's own way to change a set takes
// no lock token, so it could undo the operator's writes). Progress is
// shown live on a terminal (one line redrawn in place) and as plain lines
// otherwise. The demo reads the list
// document and the store's request counts through a small interface,
// listStore (store.go): from the fake server's admin routes
// (/_fakeapi/stats, without the demo's own reads), or from the S3 or the
// WAFv2 API without a request (GetObject, IPSet, Stats). Those counts and
// each replica's Prometheus metrics give the requests, the lost races the
// replicas survived (412 Precondition Failed; with S3 also 409
// ConditionalRequestConflict; with WAFv2 the 400s whose error code is
// WAFOptimisticLockException, counted apart from any other 400), the
// writes and the batch sizes; a summary table closes the run, with the
// lost updates (IDs missing from the list or left on it), which must be 0,
// and the store used with its requests by method (WAFv2: by operation)
// and status per phase, and WAFv2's errors by error code.
//
// # Exit status and files
//
// The demo exits 0 on success and 1 on any failure: a phase timing out, a
// process exiting early, or a lost update. On failure it says what failed
// and copies the evidence (every process's log, the entries and lists as
// YAML, the list document, and the fake server's history and stats or the
// S3's or the WAFv2 API's stats and request log; for WAFv2 the document is
// the IP set with its description and lock token) to
// .demo/<time>/ in the repository, whose paths it prints. Interrupted
// (Ctrl-C, SIGTERM) it exits 130. Either way it stops every process it
// started (each runs in its own process group, which is killed whole) and
// removes its temp dir (os.MkdirTemp "listkeeper-demo-*"). It writes
// nothing else, apart from the port reservations that envtest itself keeps
// in the user's cache dir.
//
// The processes, the control plane, the metrics and the workload come from
// the shared end-to-end harness, test/e2e/harness; this command adds the
// samples, the progress display and the summary.
//
// With --keep it leaves everything running after the summary, prints how to
// look at the cluster and the list, and waits for Ctrl-C before it cleans
// up.
//
// Run it from the repository root, as `make demo` does:
//
//	go run ./hack/demo --bin bin --assets bin/k8s [--store fakeapi|s3|wafv2] [--entries 200] [--replicas 3] [--timeout 2m] [--keep]
//
// or `make demo ARGS=--store=s3`, `make demo ARGS=--store=wafv2`.
// bin/fakeapi is needed only with --store=fakeapi.
package main
