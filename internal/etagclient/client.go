package etagclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"runtime"
	"sync"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// Client changes one list document by optimistic read-modify-write, combining
// the concurrent changes of all its callers into as few writes as possible.
// Create one Client per list per process and share it. A Client is safe for
// concurrent use.
type Client struct {
	url     string // the list's URL; may carry credentials, never printed
	safeURL string // url without credentials or query values
	pointer Pointer
	cfg     config
	http    *retryablehttp.Client

	ctx    context.Context // canceled by Close
	cancel context.CancelFunc

	mu      sync.Mutex
	pending []*op
	running bool // a cycle goroutine owns the state below
	closed  bool
	wg      sync.WaitGroup

	// Owned by the cycle goroutine; handed from one to the next through mu.
	doc    *Document // last document read or written; nil when absent or unknown
	etag   string    // doc's ETag
	known  bool      // whether doc/etag (or absence) reflect a read or write
	absent bool      // the last read said 404
	// contended is set when the last cycle lost a write to another writer:
	// the cached copy is then probably stale too, and the next cycle reads
	// (If-None-Match) before it writes instead of spending a PUT on a 412.
	contended bool
	lastCycle time.Time // start of the last cycle, for the batch interval
}

// op is one caller's change waiting for a cycle.
type op struct {
	change    Change
	read      bool // a Read: revalidate the document before completing
	notify    func()
	submitted time.Time
	done      chan struct{}
	res       Result
	snap      Snapshot
	err       error
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
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("list URL must be an absolute http or https URL")
	}
	p, err := ParsePointer(cfg.itemsPointer)
	if err != nil {
		return nil, err
	}
	if cfg.maxBodyBytes <= 0 || cfg.requestTimeout <= 0 {
		return nil, fmt.Errorf("max body bytes and request timeout must be positive")
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Client{
		url:     rawURL,
		safeURL: RedactURL(u),
		pointer: p,
		cfg:     cfg,
		http:    newHTTPClient(&cfg, u),
		ctx:     ctx,
		cancel:  cancel,
	}, nil
}

// URL returns the list's URL without credentials or query values, safe to
// log.
func (c *Client) URL() string { return c.safeURL }

// Close cancels the cycle in flight, fails the changes still waiting, waits
// for the cycle goroutine to end and closes idle connections. The Client must
// not be used afterwards.
func (c *Client) Close() {
	c.mu.Lock()
	c.closed = true // no cycle goroutine starts after this
	c.mu.Unlock()
	c.cancel()
	c.wg.Wait()
	// http.Client.CloseIdleConnections reaches a transport only through its
	// CloseIdleConnections method, which countingTransport does not have,
	// so it did nothing: ask the wrapped transport directly.
	if ct, ok := c.http.HTTPClient.Transport.(*countingTransport); ok {
		if ci, ok := ct.next.(interface{ CloseIdleConnections() }); ok {
			ci.CloseIdleConnections()
		}
	}
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

// ErrClosed is returned for a change submitted after Close.
var ErrClosed = errors.New("client closed")

// Submit queues the change for the next cycle and returns at once. It lets a
// caller, such as a reconciler, hand over many changes without holding a
// worker for each, so that they combine into few writes. notify, when not
// nil, is called once the change is complete, from the client's goroutine:
// it must return quickly and must not call back into the Client.
func (c *Client) Submit(ch Change, notify func()) (*Pending, error) {
	if err := ch.Validate(); err != nil {
		return nil, err
	}
	return &Pending{op: c.submit(ch, false, notify)}, nil
}

// Read returns the list as it is now, revalidating the cached copy with
// If-None-Match. It shares cycles with Update, so a read never races a write
// of the same process.
func (c *Client) Read(ctx context.Context) (Snapshot, error) {
	o := c.submit(Change{}, true, nil)
	if err := c.wait(ctx, o); err != nil {
		return Snapshot{}, err
	}
	return o.snap, o.err
}

func (c *Client) submit(ch Change, read bool, notify func()) *op {
	o := &op{change: ch, read: read, notify: notify, submitted: time.Now(), done: make(chan struct{})}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		// A caller that got the client just before it was closed (a list
		// whose configuration changed) learns it at once and retries.
		o.fail(fmt.Errorf("change to %s: %w", c.safeURL, ErrClosed))
		return o
	}
	c.pending = append(c.pending, o)
	if !c.running {
		c.running = true
		c.wg.Add(1)
		go c.run()
	}
	return o
}

// wait returns nil once o is complete, or ctx's error when ctx ends first.
// An op still pending then is withdrawn, so it is never applied.
func (c *Client) wait(ctx context.Context, o *op) error {
	select {
	case <-o.done:
		return nil
	case <-ctx.Done():
	}
	select {
	case <-o.done:
		return nil
	default:
	}
	c.mu.Lock()
	for i, p := range c.pending {
		if p == o {
			c.pending = append(c.pending[:i], c.pending[i+1:]...)
			c.mu.Unlock()
			return fmt.Errorf("change to %s withdrawn: %w", c.safeURL, ctx.Err())
		}
	}
	c.mu.Unlock()
	return fmt.Errorf("waiting for change to %s (it may still be applied): %w", c.safeURL, ctx.Err())
}

// run serves cycles until nothing is pending.
func (c *Client) run() {
	defer c.wg.Done()
	for {
		c.gather()
		batch := c.takePending(true)
		if len(batch) == 0 {
			return
		}
		c.lastCycle = c.cfg.clock.Now()
		c.cycle(batch)
		c.linger(len(batch))
	}
}

// maxLinger bounds how long a cycle goroutine waits, after completing a
// batch, for the callers it just woke to come back with their next change.
const maxLinger = time.Millisecond

// linger lets the goroutines that the last cycle woke submit their next
// changes before the next batch is taken. Without it the next batch holds
// only the few that were quick, and batches alternate between large and
// small: with 16 callers, about 8 changes a write instead of 16. It is only
// needed without a batch interval, which gathers for much longer anyway.
func (c *Client) linger(n int) {
	if c.cfg.batchInterval > 0 || n < 2 {
		return
	}
	deadline := time.Now().Add(maxLinger)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		ready := len(c.pending)
		c.mu.Unlock()
		if ready >= n {
			return
		}
		runtime.Gosched()
	}
}

// gather paces the cycles of a client with a batch interval: it waits until
// the interval has passed since the previous cycle began, plus a random
// extra of up to the interval again. A burst of changes thus rides on one
// write, the list server sees at most about one cycle per interval from this
// client, and the cycles of replicas that all saw the same watch events at
// the same moment drift apart instead of colliding with 412s.
func (c *Client) gather() {
	if c.cfg.batchInterval <= 0 {
		return
	}
	wait := time.Duration(rand.Int64N(int64(c.cfg.batchInterval) + 1))
	if !c.lastCycle.IsZero() {
		wait += max(0, c.cfg.batchInterval-c.cfg.clock.Now().Sub(c.lastCycle))
	}
	select {
	case <-c.cfg.clock.After(wait):
	case <-c.ctx.Done():
	}
}

// takePending takes every pending op. With last set and nothing pending, it
// also gives up ownership of the cycle.
func (c *Client) takePending(last bool) []*op {
	c.mu.Lock()
	defer c.mu.Unlock()
	batch := c.pending
	c.pending = nil
	if len(batch) == 0 && last {
		c.running = false
	}
	return batch
}

// complete finishes every op of the batch with err, or with the state of the
// list when err is nil.
func (c *Client) complete(batch []*op, written bool, err error) {
	now, snap := time.Now(), c.snapshot()
	for _, o := range batch {
		if err != nil {
			o.fail(err)
		} else {
			c.succeed(o, snap, written, now)
		}
	}
}

// succeed finishes o as committed (or already holding) on snap.
func (c *Client) succeed(o *op, snap Snapshot, written bool, now time.Time) {
	o.res = Result{ETag: snap.ETag, Items: len(snap.Items), Written: written}
	o.snap = snap
	if !o.read {
		c.cfg.observer.Committed(now.Sub(o.submitted))
	}
	o.finish()
}

func (o *op) fail(err error) {
	o.err = err
	o.finish()
}

func (o *op) finish() {
	close(o.done)
	if o.notify != nil {
		o.notify()
	}
}

func (c *Client) snapshot() Snapshot {
	if c.doc == nil {
		return Snapshot{Items: []string{}}
	}
	return Snapshot{ETag: c.etag, Items: c.doc.Items(), Exists: true, Bytes: len(c.doc.Bytes())}
}

// putOutcome is what a PUT attempt ended in.
type putOutcome int

const (
	putCommitted putOutcome = iota
	putConflict
	putAmbiguous
)

// cycle runs one read-modify-write for the batch, retrying after conflicts
// and ambiguous writes, and completes every op in it.
func (c *Client) cycle(batch []*op) {
	bo := c.cfg.conflict.NewBackOff(c.cfg.clock)
	attempts := 0
	var lastLoss error
	needRead := !c.known || anyRead(batch) || c.contended
	c.contended = false
	readThisCycle := false
	for {
		if needRead {
			if err := c.read(c.ctx); err != nil {
				c.known = false
				c.cfg.observer.Write(WriteError)
				c.complete(batch, false, err)
				return
			}
			needRead, readThisCycle = false, true
			// Changes that already hold on this read are done: their
			// linearization point is this read. Re-applying them later
			// could undo a removal that another writer committed after it
			// (an add whose first PUT landed without an answer would come
			// back after someone else took the ID off).
			if batch = c.settleHeld(batch); len(batch) == 0 {
				return
			}
		}
		if c.absent && !c.cfg.createIfMissing {
			if !readThisCycle {
				needRead = true
				continue
			}
			c.completeAbsent(batch)
			return
		}
		base := c.doc
		if c.absent {
			var err error
			if base, err = NewDocument(c.pointer); err != nil {
				c.complete(batch, false, fmt.Errorf("create %s: %w", c.safeURL, err))
				return
			}
		}
		items, changed := Apply(base.Items(), changes(batch)...)
		if !changed && !readThisCycle {
			// The cached copy may be stale: another writer may have undone
			// what it shows. Only a read made after these changes were
			// submitted can tell that they hold (If-None-Match keeps it
			// cheap).
			needRead = true
			continue
		}
		if !changed {
			c.cfg.observer.Write(WriteUnchanged)
			c.complete(batch, false, nil)
			return
		}
		next, err := base.WithItems(items)
		if err == nil && int64(len(next.Bytes())) > c.cfg.maxBodyBytes {
			err = fmt.Errorf("%w: the new document would be %d bytes", ErrTooLarge, len(next.Bytes()))
		}
		if err != nil {
			c.cfg.observer.Write(WriteError)
			c.complete(batch, false, err)
			return
		}
		attempts++
		c.cfg.observer.Batch(countChanges(batch))
		outcome, err := c.put(c.ctx, next)
		if err != nil {
			c.known = false
			c.cfg.observer.Write(WriteError)
			c.complete(batch, false, err)
			return
		}
		switch outcome {
		case putCommitted:
			c.cfg.observer.Write(WriteWritten)
			c.complete(batch, true, nil)
			return
		case putConflict:
			c.cfg.observer.Write(WriteConflict)
			c.contended = true
			lastLoss = fmt.Errorf("%w: %d attempts lost to other writers (412)", ErrConflictRetriesExhausted, attempts)
		case putAmbiguous:
			c.cfg.observer.Write(WriteAmbiguous)
			lastLoss = fmt.Errorf("%w: PUT %s: no answer after %d attempts", ErrUnreachable, c.safeURL, attempts)
		}
		// Another writer may have won, or our own write may have landed:
		// only a fresh read can tell, and the next apply decides.
		c.known, needRead = false, true
		wait := bo.NextBackOff()
		if wait == -1 { // backoff.Stop
			c.cfg.observer.Write(WriteError)
			c.complete(batch, false, fmt.Errorf("update %s: %w", c.safeURL, lastLoss))
			return
		}
		if outcome == putAmbiguous {
			// No contention to wait out: re-read at once. The longer the
			// wait, the likelier another writer undoes a write of ours that
			// landed without an answer, and then this cycle, unable to tell,
			// would apply it a second time. (GETs have their own transport
			// retries if the server is down.)
			wait = 0
		}
		c.cfg.log.V(1).Info("write lost, retrying", "url", c.safeURL, "attempt", attempts, "backoff", wait, "changes", len(batch))
		select {
		case <-c.cfg.clock.After(wait):
		case <-c.ctx.Done():
			c.complete(batch, false, fmt.Errorf("update %s: client closed: %w", c.safeURL, c.ctx.Err()))
			return
		}
		// Changes that arrived during the backoff join this cycle: the next
		// write is computed from a fresh read anyway.
		batch = append(batch, c.takePending(false)...)
	}
}

// settleHeld completes every change of the batch that holds on the document
// just read, and returns the ops still to do. When only reads are left, they
// are completed too and nil is returned.
func (c *Client) settleHeld(batch []*op) []*op {
	items := []string{}
	if c.doc != nil && !c.absent {
		items = c.doc.Items()
	}
	now, snap := time.Now(), c.snapshot()
	rest := batch[:0:0]
	writes := 0
	for _, o := range batch {
		switch {
		case o.read:
			rest = append(rest, o)
		case Holds(items, o.change):
			c.succeed(o, snap, false, now)
		default:
			rest = append(rest, o)
			writes++
		}
	}
	if writes == 0 {
		c.cfg.observer.Write(WriteUnchanged)
		c.complete(rest, false, nil)
		return nil
	}
	return rest
}

// completeAbsent finishes a batch against a document that does not exist and
// may not be created. settleHeld has already completed the changes that
// hold on it (removals); what is left are reads, which see an empty list,
// and additions, which fail.
func (c *Client) completeAbsent(batch []*op) {
	c.cfg.observer.Write(WriteUnchanged)
	now, snap := time.Now(), Snapshot{Items: []string{}}
	for _, o := range batch {
		if o.read {
			c.succeed(o, snap, false, now)
		} else {
			o.fail(fmt.Errorf("update %s: %w", c.safeURL, ErrNotFound))
		}
	}
}

func anyRead(batch []*op) bool {
	for _, o := range batch {
		if o.read {
			return true
		}
	}
	return false
}

func changes(batch []*op) []Change {
	out := make([]Change, 0, len(batch))
	for _, o := range batch {
		if !o.read {
			out = append(out, o.change)
		}
	}
	return out
}

func countChanges(batch []*op) int {
	n := 0
	for _, o := range batch {
		if !o.read {
			n++
		}
	}
	return n
}

// read GETs the document, with If-None-Match when a copy is cached, and
// updates the cache. A 404 is not an error: it sets absent.
func (c *Client) read(ctx context.Context) error {
	req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return fmt.Errorf("GET %s: %w", c.safeURL, err)
	}
	c.setHeaders(req.Header)
	req.Header.Set("Accept", "application/json")
	if c.doc != nil && c.etag != "" {
		req.Header.Set("If-None-Match", c.etag)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return transportError(http.MethodGet, c.safeURL, err)
	}
	defer drain(resp)
	switch resp.StatusCode {
	case http.StatusNotModified:
		// Only a revalidation (If-None-Match sent) may answer 304; without
		// a cached ETag there is nothing to send If-Match with.
		if c.doc == nil || c.etag == "" {
			return fmt.Errorf("GET %s: %w", c.safeURL, &StatusError{Method: http.MethodGet, Code: resp.StatusCode})
		}
		c.known, c.absent = true, false
		return nil
	case http.StatusNotFound:
		c.doc, c.etag, c.known, c.absent = nil, "", true, true
		return nil
	case http.StatusOK:
	default:
		return fmt.Errorf("GET %s: %w", c.safeURL, &StatusError{Method: http.MethodGet, Code: resp.StatusCode})
	}
	// The content type is checked before the ETag: an HTML page from a
	// proxy or a login portal usually has no ETag, and "not JSON" is the
	// diagnosis that points the user at the real problem.
	if err := checkContentType(resp.Header); err != nil {
		return fmt.Errorf("GET %s: %w", c.safeURL, err)
	}
	etag, err := ParseETag(resp.Header)
	if err != nil {
		return fmt.Errorf("GET %s: %w", c.safeURL, err)
	}
	body, err := readBody(resp, c.cfg.maxBodyBytes)
	if err != nil {
		if errors.Is(err, ErrTooLarge) {
			return fmt.Errorf("GET %s: %w", c.safeURL, err)
		}
		return transportError(http.MethodGet, c.safeURL, err)
	}
	doc, err := ParseDocument(body, c.pointer)
	if err != nil {
		return fmt.Errorf("GET %s: %w", c.safeURL, err)
	}
	c.doc, c.etag, c.known, c.absent = doc, etag, true, false
	return nil
}

// put writes next conditionally: If-Match on the cached ETag, or
// If-None-Match: * to create. An error means the cycle must fail; conflicts
// and missing answers are outcomes, not errors.
func (c *Client) put(ctx context.Context, next *Document) (putOutcome, error) {
	req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodPut, c.url, next.Bytes())
	if err != nil {
		return 0, fmt.Errorf("PUT %s: %w", c.safeURL, err)
	}
	c.setHeaders(req.Header)
	req.Header.Set("Content-Type", "application/json")
	if c.absent {
		req.Header.Set("If-None-Match", "*")
	} else {
		req.Header.Set("If-Match", c.etag)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if errors.Is(err, ErrRedirect) || isCertError(err) || ctx.Err() != nil {
			return 0, transportError(http.MethodPut, c.safeURL, err)
		}
		return putAmbiguous, nil
	}
	defer drain(resp)
	switch code := resp.StatusCode; {
	case code == http.StatusOK || code == http.StatusCreated || code == http.StatusNoContent:
		etag, err := ParseETag(resp.Header)
		if err != nil {
			// Committed, but the new version is unknown: re-read next time
			// (known is false, and without an ETag the read sends no
			// If-None-Match). The written document is kept so that the
			// Result reports the items just committed, not 0.
			c.doc, c.etag, c.known, c.absent = next, "", false, false
			c.cfg.log.V(1).Info("PUT answer carried no usable ETag; the next change re-reads", "url", c.safeURL)
			return putCommitted, nil
		}
		c.doc, c.etag, c.known, c.absent = c.stored(resp, next), etag, true, false
		return putCommitted, nil
	case code == http.StatusPreconditionFailed:
		return putConflict, nil
	case code == http.StatusNotFound:
		// The document was deleted since the read: re-read decides.
		return putConflict, nil
	case code == http.StatusPreconditionRequired:
		return 0, fmt.Errorf("PUT %s: %w: the server answered 428 to a PUT that carried a precondition", c.safeURL, ErrUnsafeServer)
	case code == http.StatusRequestEntityTooLarge:
		return 0, fmt.Errorf("PUT %s: %w: the server refused %d bytes (413)", c.safeURL, ErrTooLarge, len(next.Bytes()))
	default:
		return 0, fmt.Errorf("PUT %s: %w", c.safeURL, &StatusError{Method: http.MethodPut, Code: code})
	}
}

// stored returns the document the server says it stored, when its answer to
// the PUT carries one: a server may add or rewrite fields on write (an
// updatedAt, a version), and the next write from the cache must not drop
// them. Without a usable body, what was sent is what was stored.
func (c *Client) stored(resp *http.Response, sent *Document) *Document {
	if resp.StatusCode == http.StatusNoContent || checkContentType(resp.Header) != nil {
		return sent
	}
	body, err := readBody(resp, c.cfg.maxBodyBytes)
	if err != nil || len(bytes.TrimSpace(body)) == 0 || bytes.Equal(body, sent.Bytes()) {
		return sent
	}
	doc, err := ParseDocument(body, c.pointer)
	if err != nil {
		return sent
	}
	return doc
}

func (c *Client) setHeaders(h http.Header) {
	for k, vs := range c.cfg.headers {
		h[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	h.Set("User-Agent", "listkeeper-etagclient/1")
}
