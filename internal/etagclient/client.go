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
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// Client changes one list document by optimistic read-modify-write, combining
// the concurrent changes of all its callers into as few writes as possible.
// Create one Client per list per process and share it. A Client is safe for
// concurrent use.
//
// The work is split by concern. The engine: queue.go takes changes in and
// paces cycles, cycle.go runs one read-modify-write, conflict.go decides
// what happens after a write is lost (412), settle.go decides which changes
// are done after a read, fence.go refuses writes whose writer's right
// ended, cache.go and held.go hold what was last read and what it costs,
// budget.go bounds the memory of every Client of a process, and
// observer.go reports to metrics. The document model: document.go, scan.go
// and edit.go read and edit a JSON document in place, pointer.go finds its
// items, change.go says what a change does to them. The seam to where the
// list lives is backend.go; the HTTP backend, the default, is wire.go (GET
// and PUT), etag.go and dialect.go (what its answers mean), and
// transport.go and signer.go build the HTTP client lent to every backend.
type Client struct {
	// The document's location and how to reach it: owned by the cycle
	// goroutine, and replaced between cycles by Reconfigure (see apply).
	safeURL string // the list's URL without credentials or query values
	cfg     config
	// backend reads and writes the list (the HTTP backend unless
	// WithBackend chose another).
	backend Backend

	// Fixed for the Client's life.
	pointer Pointer
	obs     Observer
	clock   Clock
	// budget is the process's memory budget (WithBudget); nil for none.
	budget *Budget
	shown  atomic.Pointer[string] // safeURL, for callers outside the cycle

	ctx    context.Context // canceled by Close
	cancel context.CancelFunc

	mu      sync.Mutex
	pending []*op         // submitted, not yet taken by a cycle, in submission order
	arrived chan struct{} // signalled (without blocking) on every submission
	running bool          // a cycle goroutine owns the fields below
	closed  bool
	next    *location // a Reconfigure not applied yet
	wg      sync.WaitGroup

	// Owned by the cycle goroutine; handed from one to the next through mu.
	cache cache
	// held is what the cached document is counted for in the budget.
	held      int64
	nextCycle time.Time // earliest start of the next cycle (batch interval)
}

// location is how a Client reaches its document: the URL and every option,
// with the backend built from them.
type location struct {
	safeURL string
	cfg     config
	backend Backend
}

// Result tells a caller about the commit of its change.
type Result struct {
	// ETag is the list's ETag after the change ("" when the list does not
	// exist, or when the server's answer to the PUT carried none).
	ETag string
	// Items is the number of IDs on the list after the change.
	Items int
	// Written reports whether the cycle that carried the change wrote; false
	// means the change already held.
	Written bool
}

// Snapshot is the list as one read saw it.
type Snapshot struct {
	// ETag is the document's strong ETag; "" when Exists is false.
	ETag string
	// Items are the IDs on the list, in order. The slice is shared and must
	// not be modified.
	Items []string
	// Exists is false when the server answered 404.
	Exists bool
	// Bytes is the size of the document.
	Bytes int
}

// New returns a Client for the JSON document at rawURL.
func New(rawURL string, opts ...Option) (*Client, error) {
	loc, p, err := newLocation(rawURL, opts, nil)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Client{
		pointer: p,
		obs:     loc.cfg.observer,
		clock:   loc.cfg.clock,
		budget:  loc.cfg.budget,
		ctx:     ctx,
		cancel:  cancel,
		arrived: make(chan struct{}, 1),
	}
	c.use(loc)
	return c, nil
}

// newLocation checks rawURL and opts and builds the backend they describe.
// A location for an existing Client (c not nil: Reconfigure) keeps c's
// observer and clock, which are fixed for its life: the backend and the
// HTTP client lent to it report to them and wait on them.
func newLocation(rawURL string, opts []Option, c *Client) (*location, Pointer, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if c != nil {
		cfg.observer, cfg.clock = c.obs, c.clock
	}
	u, err := url.Parse(rawURL)
	switch {
	case err != nil || u.Host == "" || u.Scheme == "":
		return nil, Pointer{}, fmt.Errorf("list URL must be an absolute URL")
	case cfg.backend == nil && u.Scheme != "http" && u.Scheme != "https":
		return nil, Pointer{}, fmt.Errorf("list URL must be an absolute http or https URL")
	}
	p, err := ParsePointer(cfg.itemsPointer)
	if err != nil {
		return nil, Pointer{}, err
	}
	if cfg.maxBodyBytes <= 0 || cfg.maxBodyBytes > maxDocumentBytes || cfg.maxItems <= 0 || cfg.requestTimeout <= 0 {
		return nil, Pointer{}, fmt.Errorf("max body bytes must be in 1..%d, and max items and the request timeout positive", int64(maxDocumentBytes))
	}
	hc, own, bt := newHTTPClient(&cfg, u)
	shown := RedactURL(u)
	if cfg.shownURL != "" {
		shown = cfg.shownURL
	}
	loc := &location{safeURL: shown, cfg: cfg}
	if cfg.backend == nil {
		loc.backend = &httpBackend{url: rawURL, safeURL: shown, cfg: &loc.cfg, pointer: p, http: newRetryingClient(&loc.cfg, hc), own: own}
		return loc, p, nil
	}
	b, err := cfg.backend(BackendEnv{
		URL: rawURL, ShownURL: shown, HTTPClient: hc, Pointer: p,
		MaxBodyBytes: cfg.maxBodyBytes, MaxItems: cfg.maxItems,
		TransportRetries: cfg.transportRetries, Log: cfg.log,
	})
	if err != nil {
		if own != nil {
			own.CloseIdleConnections()
		}
		return nil, Pointer{}, err
	}
	if rc, ok := b.(ReadCoster); ok && bt != nil {
		bt.factor = max(rc.ReadCost(), 1)
	}
	loc.backend = &ownedBackend{Backend: b, own: own}
	return loc, p, nil
}

// ownedBackend closes the transport built for a backend that the engine
// lent it (see BackendEnv.HTTPClient) when the backend is done.
type ownedBackend struct {
	Backend
	own *http.Transport
}

// Close implements Backend.
func (b *ownedBackend) Close() {
	b.Backend.Close()
	if b.own != nil {
		b.own.CloseIdleConnections()
	}
}

// itemRules returns the item rules of the Client's backend: how it spells
// IDs and which it refuses; nil for what it has none of.
func (c *Client) itemRules() (ItemNormalizer, ItemChecker) {
	b := c.backend
	if o, ok := b.(*ownedBackend); ok {
		b = o.Backend
	}
	n, _ := b.(ItemNormalizer)
	ic, _ := b.(ItemChecker)
	return n, ic
}

// use makes loc the Client's location. Only the cycle goroutine, or a
// caller holding mu while none runs, may call it.
func (c *Client) use(loc *location) {
	old := c.backend
	// loc was built with the Client's observer and clock (newLocation).
	c.safeURL, c.cfg, c.backend = loc.safeURL, loc.cfg, loc.backend
	c.shown.Store(&loc.safeURL)
	if old != nil && old != loc.backend {
		old.Close()
	}
}

// Reconfigure changes how the Client reaches its document: a new URL for
// the same document (a rotated token in its query), new headers,
// credentials, TLS settings or preconditions. The items pointer must stay
// the same; the observer and clock stay those of New. A cycle in flight
// finishes as it began; the next one uses the new configuration and reads
// the document before it writes. Changes keep their order: they stay in
// this Client's queue.
func (c *Client) Reconfigure(rawURL string, opts ...Option) error {
	loc, p, err := newLocation(rawURL, opts, c)
	if err != nil {
		return err
	}
	if p.String() != c.pointer.String() {
		loc.backend.Close()
		return fmt.Errorf("reconfigure: the items pointer cannot change (%q to %q): that is another list", c.pointer.String(), p.String())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.next != nil {
		// Never used: the newer configuration replaces it.
		c.next.backend.Close()
	}
	if c.running {
		c.next = loc
		return nil
	}
	c.next = nil
	c.use(loc)
	c.cache.forget()
	return nil
}

// URL returns the list's URL without credentials or query values, safe to
// log.
func (c *Client) URL() string { return *c.shown.Load() }

// Idle reports whether the Client has nothing to do: no change pending and
// no cycle in flight.
func (c *Client) Idle() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.running && len(c.pending) == 0
}

// Close cancels the cycle in flight, fails the changes still waiting with
// ErrClosed, and waits for the cycle goroutine to end. A change whose write
// was in flight may still have been applied. The Client must not be used
// afterwards; changes submitted later fail with ErrClosed.
func (c *Client) Close() {
	c.mu.Lock()
	c.closed = true // no cycle goroutine starts after this
	c.mu.Unlock()
	c.cancel()
	c.wg.Wait()
	c.mu.Lock()
	left := c.pending
	c.pending = nil
	c.mu.Unlock()
	for _, o := range left {
		c.finish(o, outcome{err: c.errClosed()})
	}
	c.mu.Lock()
	c.dropHeld()
	b := c.backend
	if c.next != nil {
		c.next.backend.Close()
	}
	c.mu.Unlock()
	b.Close()
}

// errClosed is the error of a change that the Client's closing ended.
func (c *Client) errClosed() error {
	return fmt.Errorf("change to %s: %w", c.URL(), ErrClosed)
}

// Update makes the change hold on the list. It returns when the change is
// committed (or already held), or with an error when it could not be. It may
// share a read-modify-write cycle with other callers' changes. When ctx ends
// first, the change may still be applied by the cycle that carries it; it is
// idempotent, so the caller can simply try again.
func (c *Client) Update(ctx context.Context, ch Change) (Result, error) {
	p, err := c.Submit(ch, nil)
	if err != nil {
		return Result{}, err
	}
	if err := c.wait(ctx, p.op); err != nil {
		return Result{}, err
	}
	return p.Result()
}

// Pending is a change submitted without waiting. It is safe for concurrent
// use.
type Pending struct{ op *op }

// Done is closed when the change is committed or has failed.
func (p *Pending) Done() <-chan struct{} { return p.op.done }

// Result returns the outcome once Done is closed; before, it returns
// ErrNotDone.
func (p *Pending) Result() (Result, error) {
	select {
	case <-p.op.done:
		return p.op.res, p.op.err
	default:
		return Result{}, ErrNotDone
	}
}

// ErrNotDone is returned by Pending.Result before the change is complete.
var ErrNotDone = errors.New("change not complete yet")

// Submit queues the change for the next cycle and returns at once. It lets a
// caller, such as a reconciler, hand over many changes without holding a
// worker for each, so that they combine into few writes. Changes to one
// Client that name the same ID take effect in the order they were submitted.
// notify, when not nil, is called once the change is complete, from the
// client's goroutine: it must return quickly and must not call back into the
// Client.
func (c *Client) Submit(ch Change, notify func()) (*Pending, error) {
	return c.SubmitFenced(ch, nil, notify)
}

// SubmitFenced is Submit for a caller whose right to make the change can
// end, such as a replica that owns the change's bucket only while its Lease
// lives. Before every write that would carry the change (the first one, and
// each one after a lost write: 412, or no answer) owns is asked; when it
// reports false the change fails with ErrFenced instead. A write already in
// flight is fenced by the server: it carries If-Match.
func (c *Client) SubmitFenced(ch Change, owns func() bool, notify func()) (*Pending, error) {
	return c.SubmitChecked(ch, owns, nil, notify)
}

// SubmitChecked is SubmitFenced for a change that may stop being wanted
// while it waits: before every write that would carry it (before the read
// that write is computed from), check is asked, and when it returns an
// error the change is withdrawn and fails with that error. A
// removal that must not land once another holder of its ID appeared is
// such a change: the question is answered for each write, not only when
// the change is queued. The checks of one batch are asked together, in one
// CheckRound, side by side, holding up the batch while they run: a check
// must be bounded (a deadline of its own), safe for concurrent use, and
// must not call back into the Client. Checks that read the same thing
// share one read through the round (CheckRound.Share).
func (c *Client) SubmitChecked(ch Change, owns func() bool, check func(*CheckRound) error, notify func()) (*Pending, error) {
	if err := ch.Validate(); err != nil {
		return nil, err
	}
	o := c.submit(ch, false, notify, owns, check)
	return &Pending{op: o}, nil
}

// Read returns the list as it is now, revalidating the cached copy with
// If-None-Match. It shares cycles with Update, so a read never races a write
// of the same process, and it sees every change submitted before it.
func (c *Client) Read(ctx context.Context) (Snapshot, error) {
	o := c.submit(Change{}, true, nil, nil, nil)
	if err := c.wait(ctx, o); err != nil {
		return Snapshot{}, err
	}
	return o.snap, o.err
}
