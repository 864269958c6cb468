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

package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

// Poll intervals of a phase: fast on a terminal, where the line is redrawn.
const (
	pollTerminal = 250 * time.Millisecond
	pollPlain    = 500 * time.Millisecond
)

// phase is one step of the workload: an action on the demo's entries and
// the state that the operator must reach after it.
type phase struct {
	name   string
	adding bool                            // the entries are created (true) or deleted
	act    func(ctx context.Context) error // creates or deletes the entries
	want   []string                        // the list's items when the phase is done, as a set
}

// phaseResult is what a phase measured.
type phaseResult struct {
	name      string
	elapsed   time.Duration
	finished  bool                      // the operator reached the phase's goal in time
	changes   int                       // IDs to add or remove
	requests  int64                     // the operator's list requests, counted by the server
	conflicts int64                     // of which lost a race (storeStats.Conflicts)
	store     storeStats                // the store's requests during the phase, by method and code
	missing   []string                  // IDs that should be on the list and are not
	leftover  []string                  // IDs on the list that should not be
	replicas  []*harness.ManagerMetrics // per replica, during the phase; nil when unknown
}

// lost is the number of lost updates the phase saw.
func (r phaseResult) lost() int { return len(r.missing) + len(r.leftover) }

// observation is one look at the cluster and the list. The entries are
// read before the document, so an entry seen Synced (or gone) had its
// change committed before the document was read.
type observation struct {
	entries []v1alpha1.ListEntry
	doc     harness.Document
	stats   storeStats
}

// baseline is the counters at the start of a phase.
type baseline struct {
	stats    storeStats
	replicas []*harness.ManagerMetrics
}

// runPhase runs ph.act and waits until the operator claims to be done (every
// entry Synced after a create, every entry gone after a delete), then checks
// the list against ph.want. It fails on a timeout, a child's early exit, an
// error of the action, or an unreadable counter.
func (d *demo) runPhase(ctx context.Context, ph phase) (phaseResult, error) {
	res := phaseResult{name: ph.name, changes: len(d.names)}
	base, err := d.baseline(ctx)
	if err != nil {
		return res, err
	}
	start := time.Now()
	stopOutside := d.startOutside(ctx)
	defer func() { _ = stopOutside() }()
	actCtx, cancelAct := context.WithCancel(ctx)
	defer cancelAct()
	acted := make(chan error, 1)
	go func() { acted <- ph.act(actCtx) }()
	actDone := false

	var last observation
	var lastErr error
	err = d.poll(ctx, d.cfg.timeout, d.pollInterval(), func(ctx context.Context) (bool, error) {
		if !actDone {
			select {
			case err := <-acted:
				if err != nil {
					return false, harness.Fatal(err)
				}
				actDone = true
			default:
			}
		}
		obs, err := d.observe(ctx)
		if err != nil {
			if ctx.Err() == nil { // not just the deadline that ends the poll
				lastErr = err
			}
			return false, err
		}
		last = obs
		st := d.status(ph, obs, base, time.Since(start))
		d.ui.show(st)
		return actDone && d.claimed(ph, st), nil
	})
	res.elapsed = time.Since(start)
	d.ui.finish(d.status(ph, last, base, res.elapsed))
	if stopErr := stopOutside(); err == nil && stopErr != nil {
		err = harness.Fatal(fmt.Errorf("outside writer: %w", stopErr))
	}
	if err == nil { // the writer stopped: read the counts it left out once more
		last.stats, err = d.store.stats(ctx)
	}
	if err != nil {
		if last.stats.known() && ctx.Err() == nil { // best effort: show what the phase did
			res, _ = d.measure(ctx, res, base, last.stats)
		}
		return res, d.explain(ph, last, lastErr, err)
	}
	res.finished = true
	res.missing, res.leftover = harness.DiffItems(ph.want, d.ours(last.doc.Items))
	return d.measure(ctx, res, base, last.stats)
}

// claimed reports whether the operator says it is done with the phase.
func (d *demo) claimed(ph phase, st status) bool {
	if ph.adding {
		return st.entries == len(d.names) && st.synced == len(d.names)
	}
	return st.entries == 0
}

// status condenses an observation for the progress display.
func (d *demo) status(ph phase, obs observation, base baseline, elapsed time.Duration) status {
	st := status{phase: ph.name, adding: ph.adding, elapsed: elapsed, total: len(d.names), entries: len(obs.entries),
		synced: harness.CountSynced(obs.entries)}
	st.done = harness.Count(d.ids, obs.doc.Items)
	if !ph.adding {
		st.done = len(d.names) - st.done
	}
	if obs.stats.known() {
		st.conflicts = obs.stats.Conflicts - base.stats.Conflicts
		st.label = d.store.lostRace().heading()
	}
	return st
}

// observe reads the demo entries, then the list, then the server's stats.
func (d *demo) observe(ctx context.Context) (observation, error) {
	var obs observation
	var err error
	if obs.entries, err = d.entries.Existing(ctx); err != nil {
		return obs, err
	}
	if obs.doc, err = d.store.document(ctx); err != nil {
		return obs, err
	}
	obs.stats, err = d.store.stats(ctx)
	return obs, err
}

// baseline reads the counters a phase's figures are measured from.
func (d *demo) baseline(ctx context.Context) (baseline, error) {
	st, err := d.store.stats(ctx)
	if err != nil {
		return baseline{}, err
	}
	b := baseline{stats: st}
	b.replicas, err = harness.ScrapeAll(ctx, d.replicas)
	return b, err
}

// measure fills res's counters from the server's stats at the end of the
// phase and a fresh scrape of the replicas. A replica that cannot be read is
// left unknown, and the first such error returned.
func (d *demo) measure(ctx context.Context, res phaseResult, base baseline, end storeStats) (phaseResult, error) {
	res.requests = end.Total - base.stats.Total
	res.conflicts = end.Conflicts - base.stats.Conflicts
	res.store = end.sub(base.stats)
	now, err := harness.ScrapeAll(ctx, d.replicas)
	res.replicas = make([]*harness.ManagerMetrics, len(now))
	for i := range now {
		if now[i] != nil && base.replicas[i] != nil {
			delta := now[i].Sub(*base.replicas[i])
			res.replicas[i] = &delta
		}
	}
	return res, err
}

// explain turns a phase's failure into an error that says where it stood:
// how many IDs were where, and why entries were not Synced.
func (d *demo) explain(ph phase, obs observation, lastErr, err error) error {
	if !errors.Is(err, harness.ErrTimeout) {
		return fmt.Errorf("%s: %w", ph.name, err)
	}
	st := d.status(ph, obs, baseline{}, 0)
	var b strings.Builder
	fmt.Fprintf(&b, "%s %v: %d entries, %d Synced", ph.name, err, st.entries, st.synced)
	missing, leftover := harness.DiffItems(ph.want, d.ours(obs.doc.Items))
	fmt.Fprintf(&b, "; the list misses %d IDs%s and has %d it should not%s", len(missing), harness.IDList(missing), len(leftover), harness.IDList(leftover))
	for _, line := range harness.StuckEntries(obs.entries, ph.adding, 5) {
		b.WriteString("\n    " + line)
	}
	if lastErr != nil {
		fmt.Fprintf(&b, "\n    last read error: %v", lastErr)
	}
	return errors.New(b.String())
}
