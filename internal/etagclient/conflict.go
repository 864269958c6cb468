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
	"fmt"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// What happens when a write is lost.
//
// A PUT is lost when the server answers 412 Precondition Failed (or a
// status its dialect declares a conflict, see Dialect.ConflictStatuses): another writer
// changed the document since our read, and nothing of ours was written. It
// is also lost, differently, when no answer comes (or a gateway gives up):
// the write may or may not have landed.
//
// Either way the cycle
//  1. drops the changes whose owner gave them up (Client.SubmitFenced): a
//     replica that lost a bucket must not write for it again; then counts
//     the attempt against the budget of every change that rode in it; a
//     change whose own budget is spent (ConflictPolicy.MaxAttempts
//     PUTs, or MaxElapsedTime since it was submitted) fails, and the others
//     go on;
//  2. backs off with jitter after a 412, so writers that lost together do
//     not retry together; after a missing answer it goes on at once, since
//     there is no contention to wait out and every moment lets another
//     writer undo our write, if it landed, before we can see it;
//  3. takes in the changes submitted meanwhile, after the ones it holds;
//  4. reads the document again (after a 412 without If-None-Match: the
//     server just said our tag is not current), finishes the
//     changes that now hold (see settle.go), and applies the rest to what
//     it read. A change computed from an old read is never replayed.

// afterLoss records a lost write on the batch: it fails the changes whose
// budget is spent and returns the others.
func (c *Client) afterLoss(batch []*op, lost WriteOutcome) []*op {
	if lost == WriteLost {
		c.cache.lost()
		c.cfg.observer.Write(WriteConflict)
	} else {
		// Our ETag was not proven wrong: revalidating it is fine.
		c.cache.forget()
		c.cfg.observer.Write(WriteAmbiguous)
	}
	now := c.cfg.clock.Now()
	rest := batch[:0:0]
	// Fenced changes fail now rather than after the backoff.
	spent := false
	for _, o := range c.dropFenced(batch) {
		if o.read || !c.cfg.conflict.spent(o.attempts, now.Sub(o.submitted)) {
			rest = append(rest, o)
			continue
		}
		if !spent {
			// One failed cycle, however many of its changes ran out:
			// the write outcomes count cycles.
			c.cfg.observer.Write(WriteError)
			spent = true
		}
		var err error
		if lost == WriteLost {
			err = fmt.Errorf("update %s: %w: %d attempts lost to other writers", c.safeURL, ErrConflictRetriesExhausted, o.attempts)
		} else {
			err = fmt.Errorf("update %s: %w: PUT without an answer after %d attempts (the change may have been applied)", c.safeURL, ErrUnreachable, o.attempts)
		}
		c.finish(o, outcome{err: err})
	}
	if len(rest) == 0 {
		return nil
	}
	if countChanges(rest) == 0 {
		c.serveReads(rest)
		return nil
	}
	return rest
}

// serveReads finishes reads, and nothing but reads, with a fresh read.
func (c *Client) serveReads(reads []*op) {
	if len(reads) == 0 {
		return
	}
	if err := c.refresh(); err != nil {
		for _, o := range reads {
			c.finish(o, outcome{err: err})
		}
		return
	}
	for _, o := range reads {
		c.finish(o, outcome{snap: c.cache.snapshot()})
	}
}

// backOff waits before the next attempt: a jittered exponential wait after a
// conflict, none after a missing answer. It fails only when the Client is
// closed meanwhile.
func (c *Client) backOff(waits backoff.BackOff, lost WriteOutcome, n int) error {
	wait := waits.NextBackOff()
	if lost == WriteUnknown {
		wait = 0
	}
	c.cfg.log.V(1).Info("write lost, retrying", "url", c.safeURL, "backoff", wait, "changes", n)
	select {
	case <-c.cfg.clock.After(wait):
		return nil
	case <-c.ctx.Done():
		return c.errClosed()
	}
}

// spent reports whether a change that rode in attempts PUTs and was
// submitted elapsed ago has used up its budget.
func (p ConflictPolicy) spent(attempts int, elapsed time.Duration) bool {
	return (p.MaxAttempts > 0 && attempts >= p.MaxAttempts) ||
		(p.MaxElapsedTime > 0 && elapsed >= p.MaxElapsedTime)
}

// waits returns the jittered exponential waits of the policy, without an
// end: each change's own budget decides when to give up.
func (p ConflictPolicy) waits(clock Clock) backoff.BackOff {
	eb := &backoff.ExponentialBackOff{
		InitialInterval:     p.InitialInterval,
		RandomizationFactor: p.RandomizationFactor,
		Multiplier:          p.Multiplier,
		MaxInterval:         p.MaxInterval,
		Stop:                backoff.Stop,
		Clock:               clock,
	}
	eb.Reset()
	return eb
}
