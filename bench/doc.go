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

// Package bench compares ways of changing one shared list document behind
// an HTTP API, all against the bundled fake list server (internal/fakeapi)
// over real HTTP on loopback, with the same workload and the same injected
// latency.
//
// # Workload
//
// The list starts with N target IDs followed by bystander IDs. R replicas
// with C goroutines each remove the N targets, each target exactly once:
// the targets are split round-robin between the replicas, and the
// goroutines of a replica pull from their replica's queue (as the workers
// of one controller pull from its work queue). Every goroutine submits one
// removal and waits for it before it takes the next. Replicas share
// nothing: each has its own http.Transport, its own client and its own
// mutex, as separate processes would.
//
// # Strategies
//
//   - blind: GET, remove, PUT without If-Match (the server accepts blind
//     writes for this strategy only). Loses updates.
//   - mutex: blind, under a per-replica sync.Mutex. Correct only at R=1.
//   - occ-default: GET, remove, PUT If-Match, retried on 412 with
//     client-go's retry.DefaultRetry (5 steps, 10 ms, factor 1, jitter 0.1).
//   - occ-jitter: the same, retried until success with exponential backoff
//     and jitter (5 ms initial, 1 s cap), bounded only by the run's time cap.
//   - listkeeper: the product's etagclient.Client, one per replica, shared
//     by the replica's goroutines (combining and cached ETags).
//
// The baselines live here, not in the product.
//
// # Measures
//
// Lost updates are computed exactly from the final document: targets whose
// removal was reported successful but that are still on the list. Given up
// counts removals that returned an error before the time cap; unfinished
// counts those still in flight when the cap ended the run. Requests are
// counted at the server (fakeapi Stats) and at each replica's transport,
// and the two are cross-checked. Latency is per change, submit to return.
//
// At the sweep points, listkeeper also runs with other conflict policies
// (etagclient.WithConflictPolicy), repeated, with per-replica completion
// times and p99s so that starvation is visible. A "+yield" variant
// emulates, through the client's public Submit API, a proposed client
// change; it is labeled as such and is not the product's behavior.
//
// Every run also measures the physical limit of the fake server (one
// client, no contention, back-to-back conditional PUTs of the whole
// document) and a micro-measurement of one combined write through the
// product client against the server's own handling time of the same PUT.
//
// # Scope and limitations
//
// Client and server share one process and its CPUs, so with large
// documents the strategies compete with the server for CPU, and memory
// figures include the server's. Every run is bounded in count (N changes)
// and in time (Config.TimeCap); a run that hits its cap is reported as
// timed out with what it managed, never hidden.
package bench
