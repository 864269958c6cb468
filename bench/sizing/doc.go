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

// Package sizing measures the manager's memory per list, for the "Sizing"
// section of docs/operations/sizing.md and the chart's default requests and limits.
//
// BenchmarkListAtCap measures the largest list the caps allow (the
// manager's --max-body-bytes and --max-items): the heap one client keeps
// for it, and the most heap in use at once, and the bytes allocated, for a
// read, a write, and a write that first loses to another writer.
// BenchmarkClientMemory shows how the cost grows with the list: the heap
// kept and the bytes allocated per write for lists of 10,000 and 100,000
// IDs.
//
//	go test -run '^$' -bench . -benchmem -benchtime 10x ./bench/sizing
//
// # Scope and limitations
//
// The fake list server runs in a child process (the test binary started
// again), so that its own copy of the document and its allocations are not
// counted; another writer's changes are made there too. Heap figures come
// from runtime.ReadMemStats and runtime/metrics after full collections;
// they leave out the Go runtime's own overhead and the manager's informer
// caches of ListEntries, which grow with the number of entries, not with
// the list. A peak is sampled by collections run back to back during the
// operation, so it can only be lower than the true one.
package sizing
