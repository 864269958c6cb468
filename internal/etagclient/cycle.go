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
	"sync"
)

// cycle runs one read-modify-write for the batch, retrying after lost writes
// (see conflict.go), and returns the ops it did not finish itself together
// with their common outcome. Ops that are done earlier (settled on a read,
// or out of budget) are finished on the way.
//
// The changes of a batch are applied in submission order, in one write, so
// changes to the same ID take effect in the order they were submitted.
func (c *Client) cycle(batch []*op) ([]*op, outcome) {
	waits := c.cfg.conflict.waits(c.cfg.clock)
	needRead := !c.cache.known || c.cache.stale || anyRead(batch)
	readThisCycle := false
	for {
		c.spellItems(batch)
		// Whether each change is still wanted is asked before the read
		// that its write will be computed from, not between that read and
		// the write: a check may take a while (an API read), and another
		// writer must not get that long to overtake the write. No change
		// of this client settles between the two, so the answer is as
		// fresh for the write as it is for the read.
		if batch = c.dropUnwanted(batch); len(batch) == 0 {
			return nil, outcome{}
		}
		if needRead {
			if err := c.refresh(); err != nil {
				c.cfg.observer.Write(WriteError)
				return batch, outcome{err: err}
			}
			readThisCycle = true
			// After a takeover without a handover, the last writer's
			// late write may still land: no change settles on a read
			// made before it could have (see Fence.SettleAfter).
			if c.waitToSettle() {
				continue
			}
			// Changes that hold on this read, and that no other change
			// of the batch interferes with, are done: their
			// linearization point is this read. Re-applying them later
			// could undo a removal that another writer committed after it
			// (an add whose first PUT landed without an answer would come
			// back after someone else took the ID off).
			if batch = c.settleOnRead(batch); len(batch) == 0 {
				return nil, outcome{}
			}
		}
		if c.cache.absent && !c.cfg.createIfMissing {
			if !readThisCycle {
				needRead = true
				continue
			}
			return c.finishAbsent(batch)
		}
		if batch = c.checkItems(batch); len(batch) == 0 {
			return nil, outcome{}
		}
		next, changed, err := c.nextDocument(batch)
		if err != nil {
			c.cfg.observer.Write(WriteError)
			return batch, outcome{err: err}
		}
		if !changed {
			if !readThisCycle {
				// The cached copy may be stale: another writer may have
				// undone what it shows. Only a read made after these
				// changes were submitted can tell that they hold
				// (If-None-Match keeps it cheap).
				needRead = true
				continue
			}
			c.cfg.observer.Write(WriteUnchanged)
			return batch, outcome{snap: c.cache.snapshot()}
		}
		// A fenced change is written only while its caller still has the
		// right to make it, asked before every write that would carry it,
		// the first included: it may have waited in the queue or in a
		// backoff since it was submitted. The write is computed again
		// without the changes that lost it.
		if rest := c.dropFenced(batch); len(rest) != len(batch) {
			if batch = rest; len(batch) == 0 {
				return nil, outcome{}
			}
			needRead = false
			continue
		}

		for _, o := range batch {
			if !o.read {
				o.attempts++
			}
		}
		c.cfg.observer.Batch(countChanges(batch))
		create, base := c.cache.absent, c.cache.version
		ans, err := c.write(batch, next, create, base)
		if err == nil && ans.Outcome == writeFenced {
			// Refused before it went out, or cut off in flight (then it
			// may have landed): the changes whose right ended fail, the
			// others go on from a fresh read.
			c.cache.forget()
			if batch = c.dropFenced(batch); countChanges(batch) == 0 {
				c.serveReads(batch)
				return nil, outcome{}
			}
			needRead = true
			continue
		}
		if err != nil {
			c.cache.forget()
			c.cfg.observer.Write(WriteError)
			if c.ctx.Err() != nil {
				err = c.errClosed()
			}
			return batch, outcome{err: err}
		}
		if ans.Outcome == WriteCommitted {
			baseDoc := c.cache.doc
			stored := ans.Stored
			if stored == nil {
				stored = next
			}
			c.cache.storeWritten(stored, ans.Version)
			c.cfg.observer.Write(WriteWritten)
			c.reportCommit(batch, baseDoc, next, create, base, ans)
			return batch, outcome{written: true, snap: c.cache.snapshot()}
		}

		batch = c.afterLoss(batch, ans.Outcome)
		if len(batch) == 0 {
			return nil, outcome{}
		}
		if err := c.backOff(waits, ans.Outcome, len(batch)); err != nil {
			return batch, outcome{err: err}
		}
		// Changes that arrived during the backoff join this cycle, after
		// the ones already in it: the next write is computed from a fresh
		// read anyway, and the order is kept.
		batch = append(batch, c.takePending()...)
		needRead = true
	}
}

// refresh reads the list into the cache.
func (c *Client) refresh() error {
	ctx, ledger := c.readContext()
	ans, err := c.backend.Read(ctx, c.cache.validator())
	_, custom := c.backend.(*ownedBackend)
	if err != nil {
		if errors.Is(err, ErrInvalidDocument) || errors.Is(err, ErrMemoryBudget) {
			// A document that did not fit is not kept either: its
			// room goes to the others.
			c.cache.drop()
		} else {
			c.cache.forget()
		}
		c.settleRead(ledger, custom)
		if c.ctx.Err() != nil {
			return c.errClosed()
		}
		return err
	}
	c.cache.storeRead(ans)
	c.settleRead(ledger, custom)
	return nil
}

// writeFenced is the outcome of a write that the writer's right to write
// (Fence, SubmitFenced) refused before it went out, or cut off in flight
// (then it may have landed). It must not be tried again.
const writeFenced WriteOutcome = -1

// write hands next to the backend, conditional on base (or on the list's
// absence), under the batch's fences: the write's context says it is a
// write and carries the check that every change it carries may still be
// made (see fenceTransport), and is cut off when the Client's Fence ends.
func (c *Client) write(batch []*op, next *Document, create bool, base Version) (WriteAnswer, error) {
	ctx := context.WithValue(c.ctx, guardKey{}, writeGuard{owns: guard(batch)})
	ctx, stop := c.writeContext(ctx)
	defer stop()
	ans, err := c.backend.Write(ctx, next, create, base)
	if ans.Outcome != WriteCommitted || err != nil {
		if c.ctx.Err() == nil && (fenced(ctx, err) || fenced(ctx, ans.Cause)) {
			return WriteAnswer{Outcome: writeFenced}, nil
		}
	}
	return ans, err
}

// spellItems spells the IDs of each change of the batch as the backend
// stores them (ItemNormalizer), before anything compares them with the
// list: a read may settle a change, and "10.0.0.1" must settle on the
// "10.0.0.1/32" an IP set holds. Each change is spelled once, when it
// first meets the loop (changes that join the cycle later, the next time
// round).
func (c *Client) spellItems(batch []*op) {
	norm, _ := c.itemRules()
	if norm == nil {
		return
	}
	for _, o := range batch {
		if !o.read && !o.spelled {
			o.spelled = true
			o.change = Change{
				Add:        normalizeAll(norm, o.change.Add),
				Remove:     normalizeAll(norm, o.change.Remove),
				RetainOnly: normalizeAll(norm, o.change.RetainOnly),
			}
		}
	}
}

// checkItems fails, alone, each change that adds an ID the backend's rules
// refuse (ItemChecker), and returns the others. Removals are not checked:
// an ID the backend could never hold is simply not on the list.
func (c *Client) checkItems(batch []*op) []*op {
	_, ic := c.itemRules()
	if ic == nil {
		return batch
	}
	rest := batch[:0:0]
	for _, o := range batch {
		if !o.read {
			if err := checkAdds(ic, o.change.Add); err != nil {
				c.finish(o, outcome{err: fmt.Errorf("update %s: %w", c.safeURL, err)})
				continue
			}
		}
		rest = append(rest, o)
	}
	return rest
}

func normalizeAll(n ItemNormalizer, ids []string) []string {
	if len(ids) == 0 {
		return ids
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = n.NormalizeItem(id)
	}
	return out
}

func checkAdds(ic ItemChecker, ids []string) error {
	for _, id := range ids {
		if err := ic.CheckItem(id); err != nil {
			return err
		}
	}
	return nil
}

// nextDocument applies the batch's changes, in order, to the cached
// document (or to a new one when it is absent and may be created).
func (c *Client) nextDocument(batch []*op) (*Document, bool, error) {
	base := c.cache.doc
	if c.cache.absent {
		var err error
		if base, err = NewDocument(c.pointer); err != nil {
			return nil, false, fmt.Errorf("create %s: %w", c.safeURL, err)
		}
	}
	next, changed, err := base.Apply(changes(batch)...)
	if err != nil {
		return nil, false, fmt.Errorf("update %s: %w", c.safeURL, err)
	}
	if !changed {
		return next, false, nil
	}
	if n := len(next.Items()); n > c.cfg.maxItems {
		return nil, false, fmt.Errorf("update %s: %w: the new document would hold %d items, more than %d, the limit (--max-items raises it)",
			c.safeURL, ErrTooManyItems, n, c.cfg.maxItems)
	}
	if n := next.size(); int64(n) > c.cfg.maxBodyBytes {
		return nil, false, fmt.Errorf("update %s: %w: the new document would be %d bytes, more than %d, the limit (--max-body-bytes raises it)",
			c.safeURL, ErrTooLarge, n, c.cfg.maxBodyBytes)
	}
	return next, changed, nil
}

// finishAbsent ends a batch against a document that does not exist and may
// not be created. settleOnRead has already finished the changes that hold
// on it (removals); reads see an empty list, and additions fail.
func (c *Client) finishAbsent(batch []*op) ([]*op, outcome) {
	c.cfg.observer.Write(WriteUnchanged)
	var rest []*op
	for _, o := range batch {
		if o.read {
			c.finish(o, outcome{snap: Snapshot{Items: []string{}}})
		} else {
			rest = append(rest, o)
		}
	}
	return rest, outcome{err: fmt.Errorf("update %s: %w", c.safeURL, ErrNotFound)}
}

// reportCommit tells the observer what a committed write changed (the audit
// trail), and logs it at V(1).
func (c *Client) reportCommit(batch []*op, baseDoc, next *Document, create bool, base Version, ans WriteAnswer) {
	var before []string
	if baseDoc != nil && !create {
		before = baseDoc.Items()
	}
	added, removed := itemDiff(before, next.Items())
	cm := Commit{
		URL: c.safeURL, Added: added, Removed: removed,
		ETagBefore: base.Tag, ETagAfter: ans.Version.Tag,
		Created: create, Changes: countChanges(batch),
	}
	c.cfg.observer.Wrote(cm)
	c.cfg.log.V(1).Info("list written", "url", c.safeURL, "changes", cm.Changes,
		"added", len(added), "removed", len(removed), "etagBefore", base.Tag, "etagAfter", ans.Version.Tag)
}

// itemDiff returns the net effect of a write from before to after. A write
// keeps the remaining items in their order and appends additions at the end,
// so after is a subsequence of before followed by the added items: one
// ordered walk finds both sides without building a set of the whole list.
func itemDiff(before, after []string) (added, removed []string) {
	j := 0
	for _, id := range before {
		if j < len(after) && after[j] == id {
			j++
			continue
		}
		removed = append(removed, id)
	}
	if j < len(after) {
		added = append([]string(nil), after[j:]...)
	}
	return added, removed
}

// dropFenced fails, with ErrFenced, the changes whose owns reports false,
// or all of them when the Client's Fence is closed, and returns the
// others. A fenced change is not counted as a write error: fencing is what
// a handover of its bucket does, not a failure of the list.
func (c *Client) dropFenced(batch []*op) []*op {
	closed := c.cfg.fence != nil && !fenceOpen(c.cfg.fence, c.clock.Now())
	rest := batch[:0:0]
	for _, o := range batch {
		if o.read {
			rest = append(rest, o)
			continue
		}
		if closed || (o.owns != nil && !o.owns()) {
			// Not a write error: the change moved to another owner.
			c.finish(o, outcome{err: fmt.Errorf("update %s: %w", c.safeURL, ErrFenced)})
			continue
		}
		rest = append(rest, o)
	}
	return rest
}

// maxParallelChecks bounds the checks (see SubmitChecked) asked at once.
const maxParallelChecks = 8

// dropUnwanted asks each change of batch that has a check whether it is
// still wanted, up to maxParallelChecks at a time and all in one
// CheckRound, fails those that are not with the check's error, and returns
// the others in their order.
func (c *Client) dropUnwanted(batch []*op) []*op {
	errs := make([]error, len(batch))
	round := &CheckRound{}
	var wg sync.WaitGroup
	sem := make(chan struct{}, maxParallelChecks)
	for i, o := range batch {
		if o.read || o.check == nil {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = o.check(round)
		}()
	}
	wg.Wait()
	rest := batch[:0:0]
	for i, o := range batch {
		if errs[i] != nil {
			c.finish(o, outcome{err: errs[i]})
			continue
		}
		rest = append(rest, o)
	}
	return rest
}

// A CheckRound is one asking of the checks of a batch (SubmitChecked),
// right before the read that the batch's next write is computed from.
// Every change of the batch was queued before the round began, so what one
// of its checks reads in the round is as fresh for every other: Share lets
// them read it once. A round lives as long as its checks run; nothing is
// kept from one round to the next.
type CheckRound struct {
	mu     sync.Mutex
	shared map[any]*sharedRead
}

// sharedRead is one read of a round, done or in flight.
type sharedRead struct {
	done chan struct{}
	v    any
	err  error
}

// Share returns what read returns, calling it once per key in the round:
// the first check to ask for key reads, those that ask while it reads wait
// for its answer, and those that ask later get it at once. A read that
// fails fails every check that shares it. On a nil CheckRound, Share just
// calls read.
func (r *CheckRound) Share(key any, read func() (any, error)) (any, error) {
	if r == nil {
		return read()
	}
	r.mu.Lock()
	if s, ok := r.shared[key]; ok {
		r.mu.Unlock()
		<-s.done
		return s.v, s.err
	}
	if r.shared == nil {
		r.shared = map[any]*sharedRead{}
	}
	s := &sharedRead{done: make(chan struct{})}
	r.shared[key] = s
	r.mu.Unlock()
	defer close(s.done)
	s.v, s.err = read()
	return s.v, s.err
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
