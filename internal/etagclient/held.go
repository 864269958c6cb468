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
	"time"
)

// What the Client's cache holds, as the memory budget (Budget) counts it.
// The cycle goroutine settles it after each read and each cycle; Budget
// evicts the cache of an idle Client under pressure.

// cost returns what the Document costs in memory: its bytes, a string
// header for each item, and the spans and decoded copies of the items
// spelled with escapes.
func (d *Document) cost() int64 {
	n := int64(len(d.raw)) + 16*int64(len(d.items)) + 12*int64(len(d.escaped))
	for _, e := range d.escaped {
		n += int64(e.end - e.start)
	}
	return n
}

// cacheCost returns what the cache holds: the document, and for a backend
// whose version carries more of the answer (an IP set's fields, a whole
// IAM policy), the bytes of that answer.
func (c *Client) cacheCost() int64 {
	if c.cache.doc == nil {
		return 0
	}
	return c.cache.doc.cost() + c.cache.extra
}

// readContext returns the context of one read: it carries the ledger the
// read's answers are charged to (see budgetTransport), with the budget
// wait as the deadline of each wait for room.
func (c *Client) readContext() (context.Context, *readLedger) {
	if c.budget == nil {
		return c.ctx, nil
	}
	l := &readLedger{budget: c.budget, factor: ReadCostFactor}
	if c.cfg.budgetWait > 0 {
		// The wait is for other reads, which run on the wall clock
		// whatever clock the Client was given.
		l.deadline = time.Now().Add(c.cfg.budgetWait)
	}
	return withLedger(c.ctx, l), l
}

// settleRead turns what the read reserved into the cache's share, in one
// step, so that no other read takes the room in between: the read's
// answer is now the cached document (or gone, after a failure or a 304).
func (c *Client) settleRead(l *readLedger, custom bool) {
	if l == nil {
		return
	}
	reserved, got := l.take()
	c.cache.extra = 0
	if custom && c.cache.doc != nil {
		c.cache.extra = got
	}
	c.settleHeld(c.held + reserved)
}

// account brings what the budget counts for the cache up to date after a
// cycle: a write replaced the document, a lost write dropped it.
func (c *Client) account() {
	if c.budget == nil {
		return
	}
	if c.cache.doc == nil {
		c.cache.extra = 0
	}
	c.settleHeld(c.held)
}

// settleHeld makes what the budget counts for the Client, counted so far,
// what the cache costs now, and tells the budget whether the cache holds
// a document that it may evict.
func (c *Client) settleHeld(counted int64) {
	c.held = c.cacheCost()
	c.budget.adjust(counted, c.held)
	if c.held > 0 {
		c.budget.hold(c)
	} else {
		c.budget.unhold(c)
	}
}

// evict drops the cached document of an idle Client, for the budget: the
// next read fetches the document again. It reports false, and keeps the
// cache, when a cycle runs.
func (c *Client) evict() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running {
		return false
	}
	c.cache.drop()
	c.dropHeld()
	return true
}

// dropHeld gives back what the cache was counted for. mu is held, and no
// cycle runs.
func (c *Client) dropHeld() {
	if c.budget == nil {
		return
	}
	c.budget.adjust(c.held, 0)
	c.held = 0
	c.budget.unhold(c)
}

// yieldIdle lets the budget evict caches, this one included, when a read
// waits for room as this Client goes idle.
func (c *Client) yieldIdle() {
	if c.budget != nil && c.budget.waiting() {
		c.budget.evict(0, nil)
	}
}
