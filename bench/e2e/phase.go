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
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

// phaseSpec is what a phase does and when it is done.
type phaseSpec struct {
	name   string
	adding bool
	// act creates or deletes one entry of list l.
	act func(ctx context.Context, l benchList, name string) error
	// listDone reports whether list l's items are where the phase wants
	// them.
	listDone func(l benchList, items []string) bool
	// entriesDone reports whether the entries are, and how they stand.
	entriesDone func(ctx context.Context) (bool, string, error)
	// want returns list l's wanted items, for messages.
	want func(l benchList) []string
}

// create creates the entries, waits until every list holds its own and
// then until every entry is Synced.
func (rr *roundRun) create(ctx context.Context) (phase, error) {
	return rr.runPhase(ctx, phaseSpec{
		name: "create", adding: true,
		act: func(ctx context.Context, l benchList, name string) error {
			_, err := l.entries.CreateHolder(ctx, name, name)
			return err
		},
		listDone: func(l benchList, items []string) bool { return harness.Count(l.names, items) == len(l.names) },
		entriesDone: func(ctx context.Context) (bool, string, error) {
			es, err := rr.entries.Existing(ctx)
			if err != nil {
				return false, "", err
			}
			synced := harness.CountSynced(es)
			return len(es) == len(rr.names) && synced == len(rr.names), fmt.Sprintf("%d entries, %d Synced", len(es), synced), nil
		},
		want: func(l benchList) []string { return append(slices.Clone(rr.bystanders), l.names...) },
	})
}

// delete deletes the entries, waits until every list holds exactly the
// bystanders and then until no entry is left.
func (rr *roundRun) delete(ctx context.Context) (phase, error) {
	return rr.runPhase(ctx, phaseSpec{
		name: "delete",
		act: func(ctx context.Context, l benchList, name string) error {
			_, err := l.entries.DeleteOne(ctx, name)
			return err
		},
		listDone: func(_ benchList, items []string) bool { return slices.Equal(items, rr.bystanders) },
		entriesDone: func(ctx context.Context) (bool, string, error) {
			n, err := rr.entries.Count(ctx)
			return n == 0, fmt.Sprintf("%d entries left", n), err
		},
		want: func(benchList) []string { return rr.bystanders },
	})
}

// callTimes records when each entry's create or delete call returned. It
// is safe for concurrent use.
type callTimes struct {
	mu sync.Mutex
	at map[string]time.Time
}

func (c *callTimes) done(name string) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at == nil {
		c.at = map[string]time.Time{}
	}
	c.at[name] = now
}

// of returns the times of names.
func (c *callTimes) of(names []string) map[string]time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]time.Time, len(names))
	for _, n := range names {
		if at, ok := c.at[n]; ok {
			out[n] = at
		}
	}
	return out
}

// actAll runs spec.act for every entry from the benchmark's clients, each
// entry on its list, and records when each call returned.
func (rr *roundRun) actAll(ctx context.Context, spec phaseSpec, calls *callTimes) error {
	listOf := make(map[string]benchList, len(rr.names))
	for _, l := range rr.docs {
		for _, n := range l.names {
			listOf[n] = l
		}
	}
	return harness.ForEach(ctx, rr.b.cfg.clients, rr.names, func(ctx context.Context, name string) error {
		if err := spec.act(ctx, listOf[name], name); err != nil {
			return err
		}
		calls.done(name)
		return nil
	})
}

// runPhase acts and waits, bounded by the phase timeout, first until every
// list is done, then until the entries are, and measures the phase.
func (rr *roundRun) runPhase(ctx context.Context, spec phaseSpec) (phase, error) {
	p := phase{Name: spec.name, Changes: len(rr.names)}
	c0, err := harness.ReadCounters(ctx, rr.lists, rr.managers)
	if err != nil {
		return p, err
	}
	a0, a0Err := rr.cluster.ScrapeAPIServer(ctx)
	start := time.Now()
	pctx, cancel := context.WithTimeout(ctx, rr.b.cfg.timeout)
	defer cancel()
	var calls callTimes
	acted := make(chan error, 1)
	go func() { acted <- rr.actAll(pctx, spec, &calls) }()
	actDone := false
	checkAct := func() error {
		if actDone {
			return nil
		}
		select {
		case err := <-acted:
			if err != nil {
				return harness.Fatal(fmt.Errorf("%s the entries: %w", spec.name, err))
			}
			actDone = true
		default:
		}
		return nil
	}

	items := make([][]string, len(rr.docs))
	lastPrint := start
	err = harness.Poll(pctx, rr.sup, rr.b.cfg.timeout, rr.b.cfg.poll, func(ctx context.Context) (bool, error) {
		if err := checkAct(); err != nil {
			return false, err
		}
		done, where := true, 0
		for i, l := range rr.docs {
			doc, err := rr.lists.Document(ctx, l.obj.Path)
			if err != nil {
				return false, err
			}
			items[i] = doc.Items
			done = done && spec.listDone(l, doc.Items)
			where += harness.Count(l.names, doc.Items)
		}
		if time.Since(lastPrint) >= progressEvery {
			lastPrint = time.Now()
			rr.b.logf("R=%d %s: %d/%d IDs on the lists after %.0fs", rr.replicas, spec.name, where, len(rr.names), time.Since(start).Seconds())
		}
		return done, nil
	})
	listPolled := time.Since(start)
	if err != nil {
		return p, rr.listsError(spec, err, items)
	}
	var state string
	err = harness.Poll(pctx, rr.sup, rr.b.cfg.timeout-listPolled, entriesPoll, func(ctx context.Context) (bool, error) {
		if err := checkAct(); err != nil {
			return false, err
		}
		done, st, err := spec.entriesDone(ctx)
		state = st
		return actDone && done, err
	})
	p.EntriesSeconds = time.Since(start).Seconds()
	if err != nil {
		return p, fmt.Errorf("%s: entries: %w (%s)", spec.name, err, state)
	}
	c1, err := harness.ReadCounters(ctx, rr.lists, rr.managers)
	if err != nil {
		return p, err
	}
	var apiDelta harness.APIServerMetrics
	a1, a1Err := rr.cluster.ScrapeAPIServer(ctx)
	if apiKnown := a0Err == nil && a1Err == nil; apiKnown {
		apiDelta = a1.Sub(a0)
		p.API = apiFiguresOf(apiDelta, p.Changes)
	} else {
		rr.b.logf("R=%d %s: kube-apiserver metrics unknown: %v", rr.replicas, spec.name, cmp.Or(a0Err, a1Err))
	}
	d := c1.Sub(c0)
	p.Operator = operatorAPIOf(d, apiDelta, p.API.Known)
	p.ListSeconds = listPolled.Seconds()
	rr.fromHistory(ctx, &p, spec, start, &calls)
	p.Seconds = p.ListSeconds
	if spec.name == "delete" {
		p.Seconds = max(p.ListSeconds, p.EntriesSeconds)
	}
	p.Finished = true
	rr.measure(&p, d)
	return p, nil
}

// listsError says how far each list got when the wait for them failed.
func (rr *roundRun) listsError(spec phaseSpec, err error, items [][]string) error {
	msg := fmt.Sprintf("%s: lists: %v", spec.name, err)
	for i, l := range rr.docs {
		missing, leftover := harness.DiffItems(spec.want(l), items[i])
		if len(missing)+len(leftover) > 0 {
			msg += fmt.Sprintf("; %s misses %d IDs%s and has %d it should not%s",
				l.obj.Name, len(missing), harness.IDList(missing), len(leftover), harness.IDList(leftover))
		}
	}
	return fmt.Errorf("%s", msg)
}

// fromHistory reads every list's history: the phase's list time becomes
// the commit that made the last list done, and each ID's latency runs from
// its call to the first commit of its document that settled it. Without a
// history the polled time stands and the latency stays unknown.
func (rr *roundRun) fromHistory(ctx context.Context, p *phase, spec phaseSpec, start time.Time, calls *callTimes) {
	var last time.Time
	var lat []time.Duration
	unsettled := 0
	for _, l := range rr.docs {
		h, err := rr.lists.History(ctx, l.obj.Path)
		if err != nil {
			rr.b.logf("R=%d: read the history of %s: %v (timing from polling)", rr.replicas, l.obj.Name, err)
			return
		}
		vs := versionsOf(h)
		at, ok := firstDone(vs, start, func(items []string) bool { return spec.listDone(l, items) })
		if !ok {
			rr.b.logf("R=%d: the history of %s has no version where it is done (timing from polling)", rr.replicas, l.obj.Name)
			return
		}
		if at.After(last) {
			last = at
		}
		ls, _ := idLatencies(vs, start, calls.of(l.names), spec.adding)
		lat = append(lat, ls...)
		unsettled += len(l.names) - len(ls) // IDs without a call time count as unsettled too
	}
	p.ListSeconds = last.Sub(start).Seconds()
	p.Latency = latencyOf(lat, unsettled)
}

// measure fills p's counters from the difference of two reads.
func (rr *roundRun) measure(p *phase, d harness.Counters) {
	p.Requests = d.Requests()
	p.RequestsPerChange = float64(p.Requests) / float64(p.Changes)
	p.Conflicts = d.Conflicts()
	p.Commits = d.Stats.Commits
	p.ConflictsPerWrite = ratio(float64(p.Conflicts), float64(p.Commits))
	p.Total = figuresOf("total", d.ManagerTotal())
	for i, m := range d.Managers {
		p.Replicas = append(p.Replicas, figuresOf(rr.managers[i].Name(), m))
	}
}
