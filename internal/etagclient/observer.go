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

package etagclient

import (
	"sync/atomic"
	"time"
)

// WriteResult is the outcome of one write decision of a cycle.
type WriteResult string

// The write results, as the listkeeper_list_writes_total metric labels them.
const (
	// WriteWritten: a PUT committed.
	WriteWritten WriteResult = "written"
	// WriteUnchanged: the changes already held; nothing was written.
	WriteUnchanged WriteResult = "unchanged"
	// WriteConflict: a PUT lost to another writer (412).
	WriteConflict WriteResult = "conflict"
	// WriteAmbiguous: a PUT was sent but no answer came; the next read
	// decides whether it took effect.
	WriteAmbiguous WriteResult = "ambiguous"
	// WriteError: the cycle failed.
	WriteError WriteResult = "error"
)

// Observer receives what a Client does. Implementations must be safe for
// concurrent use; calls must be fast and must not block.
type Observer interface {
	// Request is called once per HTTP attempt, with code 0 when no response
	// arrived, and the time until the response headers (or the failure).
	Request(method string, code int, d time.Duration)
	// Write is called once per write decision of a cycle.
	Write(result WriteResult)
	// Batch is called before each PUT with the number of changes it carries.
	Batch(size int)
	// Committed is called once per change that committed (or already held),
	// with the time from submission to commit.
	Committed(d time.Duration)
	// Wrote is called once per PUT that committed, with what it changed:
	// the audit trail of the list.
	Wrote(c Commit)
}

// Commit describes one committed write: the net effect on the items and the
// versions before and after it.
type Commit struct {
	// URL is the document's URL, redacted as in errors and logs.
	URL string
	// Added are the IDs the write put on the list, in list order.
	Added []string
	// Removed are the IDs the write took off the list, in their former
	// order.
	Removed []string
	// ETagBefore is the ETag the write was conditional on; empty when it
	// created the document.
	ETagBefore string
	// ETagAfter is the ETag the server answered with; empty when it sent
	// none (the next read learns it).
	ETagAfter string
	// Created is true when the write created the document.
	Created bool
	// Changes is the number of submitted changes the write carried.
	Changes int
}

// NopObserver discards everything.
type NopObserver struct{}

var _ Observer = NopObserver{}

// Request implements Observer.
func (NopObserver) Request(string, int, time.Duration) {}

// Write implements Observer.
func (NopObserver) Write(WriteResult) {}

// Batch implements Observer.
func (NopObserver) Batch(int) {}

// Committed implements Observer.
func (NopObserver) Committed(time.Duration) {}

// Wrote implements Observer.
func (NopObserver) Wrote(Commit) {}

// Counters is an Observer that counts, for tests, demos and benchmarks. It
// is safe for concurrent use; read the fields with their Load methods.
type Counters struct {
	Requests, Gets, Puts, NotModified, PreconditionFailed atomic.Int64
	Written, Unchanged, Conflicts, Ambiguous, Errors      atomic.Int64
	Batches, BatchedChanges, Commits                      atomic.Int64
}

var _ Observer = (*Counters)(nil)

// Request implements Observer.
func (c *Counters) Request(method string, code int, _ time.Duration) {
	c.Requests.Add(1)
	switch method {
	case "GET":
		c.Gets.Add(1)
	case "PUT":
		c.Puts.Add(1)
	}
	switch code {
	case 304:
		c.NotModified.Add(1)
	case 412:
		c.PreconditionFailed.Add(1)
	}
}

// Write implements Observer.
func (c *Counters) Write(r WriteResult) {
	switch r {
	case WriteWritten:
		c.Written.Add(1)
	case WriteUnchanged:
		c.Unchanged.Add(1)
	case WriteConflict:
		c.Conflicts.Add(1)
	case WriteAmbiguous:
		c.Ambiguous.Add(1)
	case WriteError:
		c.Errors.Add(1)
	}
}

// Batch implements Observer.
func (c *Counters) Batch(n int) {
	c.Batches.Add(1)
	c.BatchedChanges.Add(int64(n))
}

// Committed implements Observer.
func (c *Counters) Committed(time.Duration) { c.Commits.Add(1) }

// Wrote implements Observer.
func (c *Counters) Wrote(Commit) {}

// MultiObserver fans every call out to each of its observers.
type MultiObserver []Observer

var _ Observer = MultiObserver(nil)

// Request implements Observer.
func (m MultiObserver) Request(method string, code int, d time.Duration) {
	for _, o := range m {
		o.Request(method, code, d)
	}
}

// Write implements Observer.
func (m MultiObserver) Write(r WriteResult) {
	for _, o := range m {
		o.Write(r)
	}
}

// Batch implements Observer.
func (m MultiObserver) Batch(n int) {
	for _, o := range m {
		o.Batch(n)
	}
}

// Committed implements Observer.
func (m MultiObserver) Committed(d time.Duration) {
	for _, o := range m {
		o.Committed(d)
	}
}

// Wrote implements Observer.
func (m MultiObserver) Wrote(c Commit) {
	for _, o := range m {
		o.Wrote(c)
	}
}
