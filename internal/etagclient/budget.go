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
	"container/list"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// ErrMemoryBudget means a read could not get the memory it needs from the
// process's memory budget (WithBudget): the document alone is larger than
// the whole budget, or the budget stayed full, held by other lists' reads
// and documents, for longer than the read may wait. Retrying later can
// help in the second case; raising --memory-budget-bytes (or the memory
// limit it derives from) in the first.
var ErrMemoryBudget = errors.New("memory budget exceeded")

// Memory cost factors, measured with bench/sizing (BenchmarkMemoryBudget)
// and the allocation figures of the stores' tests.
const (
	// ReadCostFactor is the memory one byte of an answer costs while the
	// engine reads and parses it: the buffer the body is read into, the
	// Document's copy of it, and the items' string headers (16 bytes an
	// item; an 8 MiB document of 100,000 items adds 0.2 bytes a byte), with
	// room for the buffer's growth when the length is not announced. A
	// read reserves this much per byte as the bytes arrive.
	ReadCostFactor = 3
	// SDKReadCostFactor is the memory one byte of an answer costs a
	// backend whose provider's SDK decodes the whole answer into generic
	// values and then into its types: one 8 MiB GetIPSet answer raised the
	// live heap by 73-86 MiB (about 10 bytes a byte; the allocations add
	// up to about 20, but not all are live at once). Such a backend says
	// so with ReadCoster.
	SDKReadCostFactor = 10
)

// ReadCoster is implemented by a backend whose reads cost more memory per
// byte of answer than the engine's own JSON reads (ReadCostFactor), such
// as one whose provider's SDK decodes the answer. ReadCost returns the
// bytes of memory a byte of answer costs while it is read and decoded.
type ReadCoster interface {
	ReadCost() int64
}

// Budget bounds the memory that the list clients of one process hold and
// read, all lists together: the documents their caches keep and the
// answers being read. A per-document limit (WithMaxBodyBytes) bounds one
// list; only a shared budget bounds many. A read reserves its bytes from
// the budget as they arrive (all at once when the answer announces its
// length); when the budget is full, it first makes room by dropping the
// cached documents of idle clients (a cache is only a cache: the next read
// fetches the document again), and then waits its turn.
//
// Waiters are served strictly in arrival order (a fair weighted
// semaphore): a large read queued first is not overtaken by small ones
// forever. A reservation larger than the whole budget fails at once with
// ErrMemoryBudget. A Budget is safe for concurrent use; share one per
// process.
type Budget struct {
	limit int64

	mu      sync.Mutex
	used    int64
	high    int64
	waiters list.List // of *budgetWaiter, in arrival order
	// holders are the clients whose caches hold a document, by the order
	// they last used it (evicted oldest first).
	holders map[*Client]uint64
	tick    uint64

	// onChange, when set, learns the reserved bytes after each change
	// (for a gauge).
	onChange atomic.Pointer[func(reserved int64)]
}

type budgetWaiter struct {
	n     int64
	ready chan struct{}
}

// Defaults of the budget.
const (
	// DefaultBudgetFraction of the Go runtime's soft memory limit
	// (GOMEMLIMIT) is the budget's default: the other half is the heap
	// the budget does not see (the garbage of finished reads until the
	// collector frees it, the Kubernetes informers' caches, the SDKs'
	// clients). bench/sizing measured 30 lists at the caps with a budget
	// of half of 230 MiB: see its BenchmarkMemoryBudget.
	DefaultBudgetFraction = 0.5
	// DefaultBudgetBytes is the budget when no memory limit is set
	// (128 MiB): five lists at the caps read at once.
	DefaultBudgetBytes int64 = 128 << 20
)

// BudgetFor returns the default budget for a soft memory limit of
// memLimit bytes (debug.SetMemoryLimit(-1)): DefaultBudgetFraction of it,
// or DefaultBudgetBytes when no limit is set (math.MaxInt64).
func BudgetFor(memLimit int64) int64 {
	if memLimit <= 0 || memLimit == math.MaxInt64 {
		return DefaultBudgetBytes
	}
	return max(int64(float64(memLimit)*DefaultBudgetFraction), 1)
}

// NewBudget returns a Budget of limit bytes. limit must be positive.
func NewBudget(limit int64) *Budget {
	if limit <= 0 {
		limit = 1
	}
	return &Budget{limit: limit, holders: map[*Client]uint64{}}
}

// Limit returns the budget's size in bytes.
func (b *Budget) Limit() int64 { return b.limit }

// Reserved returns the bytes reserved now.
func (b *Budget) Reserved() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// HighWater returns the most bytes that were ever reserved at once.
func (b *Budget) HighWater() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.high
}

// OnChange sets f to learn the reserved bytes after every change, for a
// metric. f is called with the Budget's lock held: it must be quick and
// must not call back into the Budget.
func (b *Budget) OnChange(f func(reserved int64)) { b.onChange.Store(&f) }

// Acquire reserves n bytes, waiting in arrival order while the budget is
// full, until ctx ends. It makes room by evicting the cached documents of
// idle clients before it waits. It fails at once with ErrMemoryBudget when
// n exceeds the whole budget, and with ErrMemoryBudget (and ctx's error)
// when ctx ends first.
func (b *Budget) Acquire(ctx context.Context, n int64) error {
	if n <= 0 {
		return nil
	}
	if n > b.limit {
		return fmt.Errorf("%w: %d bytes needed, more than the whole budget of %d (--memory-budget-bytes raises it)", ErrMemoryBudget, n, b.limit)
	}
	if b.tryAcquire(n) {
		return nil
	}
	b.evict(n, nil)
	b.mu.Lock()
	if b.waiters.Len() == 0 && b.used+n <= b.limit {
		b.take(n)
		b.mu.Unlock()
		return nil
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	elem := b.waiters.PushBack(w)
	b.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		select {
		case <-w.ready:
			// Granted as ctx ended: give it back.
			b.used -= n
			b.notify()
		default:
			front := b.waiters.Front() == elem
			b.waiters.Remove(elem)
			if front {
				// The waiters behind may fit now.
				b.notify()
			}
		}
		b.mu.Unlock()
		return fmt.Errorf("%w: waited for %d bytes of a budget of %d that other lists hold: %w", ErrMemoryBudget, n, b.limit, context.Cause(ctx))
	}
}

// tryAcquire reserves n bytes when nobody waits and they fit.
func (b *Budget) tryAcquire(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.waiters.Len() == 0 && b.used+n <= b.limit {
		b.take(n)
		return true
	}
	return false
}

// take reserves n bytes; b.mu is held.
func (b *Budget) take(n int64) {
	b.used += n
	b.high = max(b.high, b.used)
	b.changed()
}

func (b *Budget) changed() {
	if f := b.onChange.Load(); f != nil {
		(*f)(b.used)
	}
}

// Release gives n bytes back, and wakes the waiters that fit, in order.
func (b *Budget) Release(n int64) {
	if n <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
	b.notify()
}

// adjust replaces a reservation of from bytes with one of to bytes,
// without letting anyone in between: the bytes are already in memory, and
// must stay counted. It may take the budget over its limit, by the
// difference, when a document costs more than its read reserved; the
// reads after it then wait until that is paid back.
func (b *Budget) adjust(from, to int64) {
	if from == to {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used += to - from
	b.high = max(b.high, b.used)
	b.notify()
}

// notify grants the waiters at the front that fit, in order; b.mu is held.
// It stops at the first that does not fit, so a large read is never
// overtaken.
func (b *Budget) notify() {
	for {
		e := b.waiters.Front()
		if e == nil {
			break
		}
		w := e.Value.(*budgetWaiter)
		if b.used+w.n > b.limit {
			break
		}
		b.used += w.n
		b.high = max(b.high, b.used)
		b.waiters.Remove(e)
		close(w.ready)
	}
	b.changed()
}

// waiting reports whether a reservation waits.
func (b *Budget) waiting() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.waiters.Len() > 0
}

// hold records that c's cache holds a document, used now.
func (b *Budget) hold(c *Client) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tick++
	b.holders[c] = b.tick
}

// unhold records that c's cache holds nothing.
func (b *Budget) unhold(c *Client) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.holders, c)
}

// evict drops the cached documents of idle clients, least recently used
// first, until n more bytes would fit beside the reservations waiting, or
// none is left to drop. except is not evicted (the client asking). It
// calls the clients without holding b.mu: a client calls the Budget with
// its own lock held.
func (b *Budget) evict(n int64, except *Client) {
	for {
		b.mu.Lock()
		need := b.used + n - b.limit
		for e := b.waiters.Front(); e != nil; e = e.Next() {
			need += e.Value.(*budgetWaiter).n
		}
		var oldest *Client
		var at uint64
		for c, t := range b.holders {
			if c != except && (oldest == nil || t < at) {
				oldest, at = c, t
			}
		}
		b.mu.Unlock()
		if need <= 0 || oldest == nil {
			return
		}
		if !oldest.evict() {
			// Busy: it is not idle, and is left alone this time.
			b.mu.Lock()
			if t, ok := b.holders[oldest]; ok && t == at {
				delete(b.holders, oldest)
			}
			b.mu.Unlock()
		}
	}
}

// readLedger is what one read of a client reserves for the answers it
// reads: the cycle hands it to the backend's requests through the
// context, the budget's transport charges each answer to it as its bytes
// arrive, and the cycle turns what it holds into the cached document's
// share once the read is done.
type readLedger struct {
	budget *Budget
	factor int64
	// deadline bounds each wait for the budget (WithBudgetWait); zero for
	// none beyond the request's context.
	deadline time.Time
	mu       sync.Mutex
	reserved int64 // bytes reserved for the answer being read
	got      int64 // bytes of that answer read so far
}

type ledgerKey struct{}

// withLedger returns ctx carrying l.
func withLedger(ctx context.Context, l *readLedger) context.Context {
	return context.WithValue(ctx, ledgerKey{}, l)
}

// budgetTransport charges every answer's bytes to the budget while they
// are read: to the read's ledger when the request carries one (the bytes
// then stay counted until the cycle settles them), or to a reservation of
// the answer's own otherwise, given back when its body is closed.
type budgetTransport struct {
	next   http.RoundTripper
	budget *Budget
	// factor is the cost of a byte of answer (ReadCostFactor, or the
	// backend's ReadCost); set before the first request.
	factor int64
	// maxBody caps a reservation: a longer answer is refused by the limit
	// anyway.
	maxBody int64
}

// RoundTrip implements http.RoundTripper. An answer reserves all it may
// need before its first byte is read, waiting its turn while the budget is
// full: its announced length, or without one the body limit (at most the
// whole budget). The reservation never grows while bytes arrive: reads
// that each held part of the budget and waited for more would wait for
// each other. The read gives back what it did not use when it settles. A reservation that fails fails the body's Read, so
// that every backend reports it as an answer it could not read, which no
// SDK retries.
func (t *budgetTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.Body == nil || resp.Body == http.NoBody {
		return resp, err
	}
	l, _ := req.Context().Value(ledgerKey{}).(*readLedger)
	if l == nil {
		l = &readLedger{budget: t.budget, factor: t.factor}
		resp.Body = &budgetBody{ReadCloser: resp.Body, ctx: req.Context(), l: l, own: true, max: t.maxBody}
	} else {
		// A new answer of the same read (a retry): the one before is
		// closed and gone.
		l.restart(t.factor)
		resp.Body = &budgetBody{ReadCloser: resp.Body, ctx: req.Context(), l: l, max: t.maxBody}
	}
	body := resp.Body.(*budgetBody)
	if cl := resp.ContentLength; cl > 0 {
		body.announced = min(cl, t.maxBody+1)
	} else {
		// Without a length, the largest answer the limit lets through,
		// or the whole budget when that is less: growing a reservation
		// as bytes arrive would deadlock reads that each hold part of
		// the budget and wait for more.
		body.announced = max(min(t.maxBody+1, t.budget.Limit()/t.factor), 1)
	}
	return resp, nil
}

// CloseIdleConnections closes the idle connections of the transport below.
func (t *budgetTransport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// restart gives back what the ledger reserved for an earlier answer.
func (l *readLedger) restart(factor int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.budget.Release(l.reserved)
	l.reserved, l.got, l.factor = 0, 0, factor
}

// grow makes the ledger's reservation cover n bytes of answer.
func (l *readLedger) grow(ctx context.Context, n int64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	want := n * l.factor
	if want <= l.reserved {
		return nil
	}
	if !l.deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, l.deadline)
		defer cancel()
	}
	if err := l.budget.Acquire(ctx, want-l.reserved); err != nil {
		return err
	}
	l.reserved = want
	return nil
}

// take returns what the ledger reserved, and empties it.
func (l *readLedger) take() (reserved, got int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	reserved, got = l.reserved, l.got
	l.reserved, l.got = 0, 0
	return reserved, got
}

// budgetBody charges the bytes of an answer to its ledger as they arrive.
type budgetBody struct {
	io.ReadCloser
	ctx context.Context
	l   *readLedger
	own bool // the ledger is the answer's own: Close gives it back
	max int64
	// announced is the length the answer announced (at most max+1),
	// reserved all at once by the first Read; 0 when it announced none.
	announced int64
}

func (b *budgetBody) Read(p []byte) (int, error) {
	if b.announced > 0 {
		if err := b.l.grow(b.ctx, b.announced); err != nil {
			return 0, err
		}
		b.announced = 0
	}
	b.l.mu.Lock()
	got, reserved, factor := b.l.got, b.l.reserved, b.l.factor
	b.l.mu.Unlock()
	if room := reserved/factor - got; room < int64(len(p)) && got <= b.max {
		switch {
		case room > 0:
			p = p[:room]
		case reserved/factor > b.max:
			// The size limit refuses what comes next.
			p = p[:1]
		default:
			// The reservation was the whole budget: one more byte
			// means the answer needs more.
			var one [1]byte
			n, err := b.ReadCloser.Read(one[:])
			if n == 0 {
				return 0, err
			}
			return 0, fmt.Errorf("%w: the answer needs more than the whole budget of %d (--memory-budget-bytes raises it)", ErrMemoryBudget, b.l.budget.Limit())
		}
	}
	n, err := b.ReadCloser.Read(p)
	b.l.mu.Lock()
	b.l.got += int64(n)
	b.l.mu.Unlock()
	return n, err
}

func (b *budgetBody) Close() error {
	err := b.ReadCloser.Close()
	if b.own {
		r, _ := b.l.take()
		b.l.budget.Release(r)
	}
	return err
}
