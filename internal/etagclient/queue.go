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
	"fmt"
	"math/rand/v2"
	"time"
)

// op is one caller's change (or read) waiting for, or riding in, a cycle.
type op struct {
	change    Change
	read      bool // a Read: revalidate the document before completing
	notify    func()
	owns      func() bool             // nil: the change is never fenced
	check     func(*CheckRound) error // nil: the change is always wanted (see SubmitChecked)
	submitted time.Time               // by the Client's clock; the change's budget counts from here
	attempts  int                     // PUTs that carried the change
	spelled   bool                    // change is in the backend's spelling (see spellItems)
	done      chan struct{}
	res       Result
	snap      Snapshot
	err       error
}

// outcome is how a change or read ended.
type outcome struct {
	written bool
	snap    Snapshot
	err     error
}

// finish completes o with out. It is the one place where callers learn the
// fate of their changes.
func (c *Client) finish(o *op, out outcome) {
	if out.err != nil {
		o.err = out.err
	} else {
		o.res = Result{ETag: out.snap.ETag, Items: len(out.snap.Items), Written: out.written}
		o.snap = out.snap
		if !o.read {
			c.obs.Committed(c.clock.Now().Sub(o.submitted))
		}
	}
	close(o.done)
	if o.notify != nil {
		o.notify()
	}
}

func (c *Client) submit(ch Change, read bool, notify func(), owns func() bool, check func(*CheckRound) error) *op {
	o := &op{change: ch, read: read, notify: notify, owns: owns, check: check, submitted: c.clock.Now(), done: make(chan struct{})}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		// A caller that got the client just before it was closed (a list
		// whose configuration changed) learns it at once and retries.
		c.finish(o, outcome{err: c.errClosed()})
		return o
	}
	c.pending = append(c.pending, o)
	select {
	case c.arrived <- struct{}{}:
	default:
	}
	if !c.running {
		c.running = true
		c.wg.Add(1)
		go c.run()
	}
	return o
}

// wait returns nil once o is complete, or ctx's error when ctx ends first.
// An op still pending then is withdrawn, so it is never applied; one that a
// cycle has taken stays in it, in its place in the order.
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
			if o.read {
				return fmt.Errorf("read of %s not done in time: %w", c.URL(), ctx.Err())
			}
			return fmt.Errorf("change to %s withdrawn: %w", c.URL(), ctx.Err())
		}
	}
	c.mu.Unlock()
	if o.read {
		return fmt.Errorf("read of %s not done in time: %w", c.URL(), ctx.Err())
	}
	return fmt.Errorf("waiting for change to %s (it may still be applied): %w", c.URL(), ctx.Err())
}

// run serves cycles until nothing is pending, then gives up ownership.
func (c *Client) run() {
	defer c.wg.Done()
	for {
		c.gather()
		batch, loc := c.takeBatch()
		if loc != nil {
			c.use(loc)
			c.cache.forget()
		}
		if len(batch) == 0 {
			c.yieldIdle()
			return
		}
		if c.ctx.Err() != nil {
			for _, o := range batch {
				c.finish(o, outcome{err: c.errClosed()})
			}
			continue
		}
		c.paceNext()
		rest, out := c.cycle(batch)
		c.account()
		for _, o := range rest {
			c.finish(o, out)
		}
		c.linger(len(batch))
	}
}

// paceNext sets when the cycle after the one starting now may start: the
// batch interval later, plus a random extra of up to the interval again, so
// that the cycles of replicas that saw the same watch events at the same
// moment drift apart instead of colliding with 412s.
func (c *Client) paceNext() {
	if c.cfg.batchInterval <= 0 {
		return
	}
	extra := time.Duration(rand.Int64N(int64(c.cfg.batchInterval) + 1))
	c.nextCycle = c.cfg.clock.Now().Add(c.cfg.batchInterval + extra)
}

// gather waits until the next cycle may start (see paceNext). Changes that
// arrive meanwhile ride on that cycle's write. After a quiet spell that
// moment has passed, and a change goes out at once.
func (c *Client) gather() {
	if c.nextCycle.IsZero() {
		return
	}
	wait := c.nextCycle.Sub(c.cfg.clock.Now())
	if wait <= 0 {
		return
	}
	select {
	case <-c.cfg.clock.After(wait):
	case <-c.ctx.Done():
	}
}

// maxLinger bounds how long a cycle goroutine waits, after completing a
// batch, for the callers it just woke to come back with their next change.
const maxLinger = time.Millisecond

// linger lets the goroutines that the last cycle woke submit their next
// changes before the next batch is taken. Without it the next batch holds
// only the few that were quick, and batches alternate between large and
// small: with 16 callers, about 8 changes a write instead of 16. It is only
// needed without a batch interval, which gathers for much longer anyway. It
// sleeps until a submission arrives, never spins.
func (c *Client) linger(n int) {
	if c.cfg.batchInterval > 0 || n < 2 {
		return
	}
	timeout := c.cfg.clock.After(maxLinger)
	for {
		c.mu.Lock()
		ready := len(c.pending)
		c.mu.Unlock()
		if ready >= n {
			return
		}
		select {
		case <-c.arrived:
		case <-timeout:
			return
		case <-c.ctx.Done():
			return
		}
	}
}

// takeBatch takes every pending op, in submission order, for the next
// cycle, together with a Reconfigure made before the last of them was
// submitted (nil if none), so that a change submitted after Reconfigure
// returned always rides with the new configuration. With nothing pending,
// it gives up ownership of the cycle (the Reconfigure waits for the next).
func (c *Client) takeBatch() ([]*op, *location) {
	c.mu.Lock()
	defer c.mu.Unlock()
	batch := c.pending
	c.pending = nil
	if len(batch) == 0 {
		c.running = false
		return nil, nil
	}
	loc := c.next
	c.next = nil
	return batch, loc
}

// takePending takes every pending op, in submission order, to join the
// cycle in flight; none while a Reconfigure waits (they ride with the new
// configuration, in the next cycle).
func (c *Client) takePending() []*op {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.next != nil {
		return nil
	}
	batch := c.pending
	c.pending = nil
	return batch
}
