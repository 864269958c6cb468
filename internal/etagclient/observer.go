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
	// arrived.
	Request(method string, code int)
	// Write is called once per write decision of a cycle.
	Write(result WriteResult)
	// Batch is called before each PUT with the number of changes it carries.
	Batch(size int)
	// Committed is called once per change that committed (or already held),
	// with the time from submission to commit.
	Committed(d time.Duration)
}

// NopObserver discards everything.
type NopObserver struct{}

var _ Observer = NopObserver{}

// Request implements Observer.
func (NopObserver) Request(string, int) {}

// Write implements Observer.
func (NopObserver) Write(WriteResult) {}

// Batch implements Observer.
func (NopObserver) Batch(int) {}

// Committed implements Observer.
func (NopObserver) Committed(time.Duration) {}

// Counters is an Observer that counts, for tests, demos and benchmarks. It
// is safe for concurrent use; read the fields with their Load methods.
type Counters struct {
	Requests, Gets, Puts, NotModified, PreconditionFailed atomic.Int64
	Written, Unchanged, Conflicts, Ambiguous, Errors      atomic.Int64
	Batches, BatchedChanges, Commits                      atomic.Int64
}

var _ Observer = (*Counters)(nil)

// Request implements Observer.
func (c *Counters) Request(method string, code int) {
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

// MultiObserver fans every call out to each of its observers.
type MultiObserver []Observer

var _ Observer = MultiObserver(nil)

// Request implements Observer.
func (m MultiObserver) Request(method string, code int) {
	for _, o := range m {
		o.Request(method, code)
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
