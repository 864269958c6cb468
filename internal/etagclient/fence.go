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
	"time"
)

// Fence is a writer's right to write a document, which can end: a replica
// of an operator may write a document only while it owns it, and only
// until a deadline that each renewal of its ownership moves forward. A
// Client with a Fence (WithFence)
//
//   - asks it right before every write attempt is sent, transport retries
//     included, and sends nothing once the right has ended;
//   - cuts off a write in flight (its attempts, the waits between them,
//     Retry-After included) when the right ends, so that no write of this
//     Client outlives its writer's right by more than the time a server or
//     proxy may hold a request it has received;
//   - does not settle a change on a read ("it already holds, nothing to
//     write") before SettleAfter: after a takeover from a writer whose
//     right ended without a handover, that writer's last write may still
//     land, and a change settled on a read made before it would be undone
//     without anyone writing again.
//
// Changes that end because the right ended fail with ErrFenced.
// Implementations must be safe for concurrent use.
type Fence interface {
	// Until reports until when the writer may write: ok is false when it
	// may not write now; otherwise until is the end of its right as known
	// now, which later calls may move forward.
	Until() (until time.Time, ok bool)
	// SettleAfter returns the time before which a read may not settle a
	// change; the zero time when any read may.
	SettleAfter() time.Time
}

// WithFence makes every write of the Client conditional on f (see Fence).
// Default: none; the Client writes whenever it has a change.
func WithFence(f Fence) Option { return func(o *config) { o.fence = f } }

// errFencedAttempt ends a write attempt that the Fence refused before it
// was sent; it is never retried.
var errFencedAttempt = fmt.Errorf("%w: the writer's right to write ended before the request was sent", ErrFenced)

// errRightEnded cancels a write in flight whose writer's right ended.
var errRightEnded = fmt.Errorf("%w: the writer's right to write ended while the request was in flight", ErrFenced)

// fenceOpen reports whether f allows a write now.
func fenceOpen(f Fence, now time.Time) bool {
	until, ok := f.Until()
	return ok && now.Before(until)
}

// fenceTransport refuses a write attempt, right before it goes out, when
// the Client's Fence has closed or a change it carries was given up by its
// caller (Client.SubmitFenced). It sits below the retrying client, so every
// attempt, transport retries included, asks.
type fenceTransport struct {
	next  http.RoundTripper
	fence Fence // nil: only the changes' own fences
	clock Clock
}

// guardKey marks, in its context, a request that carries a write: its
// value is a writeGuard. Every request a backend sends under the context
// that Backend.Write got is such a request (a provider's API may write
// with a POST and read with one too, so the method cannot tell).
type guardKey struct{}

// writeGuard holds the check that every change a write carries may still
// be made; owns is nil when none is fenced.
type writeGuard struct{ owns func() bool }

func (t *fenceTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if g, isWrite := req.Context().Value(guardKey{}).(writeGuard); isWrite {
		if (t.fence != nil && !fenceOpen(t.fence, t.clock.Now())) || (g.owns != nil && !g.owns()) {
			if req.Body != nil {
				_ = req.Body.Close()
			}
			return nil, errFencedAttempt
		}
	}
	return t.next.RoundTrip(req)
}

// guard returns the check that every change of batch may still be written
// (see Client.SubmitFenced), or nil when none is fenced.
func guard(batch []*op) func() bool {
	var owns []func() bool
	for _, o := range batch {
		if !o.read && o.owns != nil {
			owns = append(owns, o.owns)
		}
	}
	if len(owns) == 0 {
		return nil
	}
	return func() bool {
		for _, f := range owns {
			if !f() {
				return false
			}
		}
		return true
	}
}

// writeContext returns ctx, canceled with errRightEnded when the Fence's
// right ends, re-checked at each deadline it reported (renewals move it).
// stop must be called when the write is over. Without a Fence it returns
// ctx.
func (c *Client) writeContext(ctx context.Context) (context.Context, func()) {
	f := c.cfg.fence
	if f == nil {
		return ctx, func() {}
	}
	wctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		for {
			until, ok := f.Until()
			wait := until.Sub(c.clock.Now())
			if !ok || wait <= 0 {
				cancel(errRightEnded)
				return
			}
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-done:
				t.Stop()
				return
			case <-wctx.Done():
				t.Stop()
				return
			}
		}
	}()
	return wctx, func() {
		close(done)
		cancel(nil)
	}
}

// fenced reports whether err ended a write because its writer's right
// ended: refused before it was sent, or cut off in flight (then it may
// have landed).
func fenced(ctx context.Context, err error) bool {
	return errors.Is(err, ErrFenced) || errors.Is(context.Cause(ctx), ErrFenced)
}

// settleWait returns how long the cycle must wait before it may settle a
// change on a read (see Fence.SettleAfter).
func (c *Client) settleWait() time.Duration {
	if c.cfg.fence == nil {
		return 0
	}
	after := c.cfg.fence.SettleAfter()
	if after.IsZero() {
		return 0
	}
	return after.Sub(c.clock.Now())
}

// waitToSettle waits until reads may settle changes, and reports whether it
// waited: the caller must then read again. It ends early when the Client is
// closed.
func (c *Client) waitToSettle() bool {
	wait := c.settleWait()
	if wait <= 0 {
		return false
	}
	c.cfg.log.V(1).Info("not settling on a read before a takeover's last late write", "url", c.safeURL, "wait", wait)
	select {
	case <-c.clock.After(wait):
	case <-c.ctx.Done():
	}
	return true
}
