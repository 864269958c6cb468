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

// Package sizing measures the manager's memory per list size, for the
// README's "Sizing" section and the chart's default requests and limits:
// BenchmarkClientMemory reports the heap a client keeps for one list
// document (its cache) and the bytes one write allocates, for lists of
// 10,000 and 100,000 IDs.
//
//	go test -run '^$' -bench ClientMemory -benchtime 5x ./bench/sizing
//
// # Scope and limitations
//
// The fake list server runs in a child process (the test binary started
// again), so that its own copy of the document and its allocations are not
// counted. Heap figures come from runtime.ReadMemStats after a collection;
// they leave out the Go runtime's own overhead and the manager's informer
// caches of ListEntries, which grow with the number of entries, not with
// the list.
package sizing
