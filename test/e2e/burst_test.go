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

package e2e_test

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

// burstOp is one step of a burst: create the entry name (its ID is its
// name), or delete it.
type burstOp struct {
	name   string
	create bool
}

// burstOps creates the names in order and deletes every every-th of them
// again lag creations later, so that creations and deletions interleave.
func burstOps(names []string, every, lag int) []burstOp {
	ops := make([]burstOp, 0, len(names)+len(names)/every+1)
	del := func(j int) {
		if j >= 0 && j%every == 0 {
			ops = append(ops, burstOp{name: names[j]})
		}
	}
	for i, n := range names {
		ops = append(ops, burstOp{name: n, create: true})
		del(i - lag)
	}
	for j := max(len(names)-lag, 0); j < len(names); j++ {
		del(j)
	}
	return ops
}

// burst hands its ops, one every interval, to workers goroutines, and
// calls onFault just before it hands out op faultAt. It records when the
// last op of each name returned.
type burst struct {
	entries  harness.Entries
	ops      []burstOp
	interval time.Duration
	workers  int
	faultAt  int
	onFault  func()

	mu   sync.Mutex
	last map[string]opDone
}

// opDone is when an op returned, and its place in the burst.
type opDone struct {
	seq int
	at  time.Time
}

// run runs the burst and returns the first error of an op.
func (b *burst) run(ctx context.Context) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	type job struct {
		seq int
		op  burstOp
	}
	work := make(chan job)
	var wg sync.WaitGroup
	for range b.workers {
		wg.Go(func() {
			for j := range work {
				var err error
				if j.op.create {
					_, err = b.entries.CreateHolder(ctx, j.op.name, j.op.name)
				} else {
					_, err = b.entries.DeleteOne(ctx, j.op.name)
				}
				if err != nil {
					cancel(err)
					continue
				}
				b.record(j.op.name, opDone{seq: j.seq, at: time.Now()})
			}
		})
	}
	tick := time.NewTicker(b.interval)
	defer tick.Stop()
feed:
	for i, op := range b.ops {
		if i == b.faultAt && b.onFault != nil {
			b.onFault()
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			break feed
		}
		select {
		case work <- job{seq: i, op: op}:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	return context.Cause(ctx)
}

func (b *burst) record(name string, d opDone) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.last == nil {
		b.last = map[string]opDone{}
	}
	if prev, ok := b.last[name]; !ok || prev.seq < d.seq {
		b.last[name] = d
	}
}

// lastOps returns, per name, when its last op returned.
func (b *burst) lastOps() map[string]opDone {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[string]opDone, len(b.last))
	for k, v := range b.last {
		out[k] = v
	}
	return out
}

// entryState is where one entry stands in a snapshot.
type entryState uint8

const (
	stateAbsent   entryState = iota
	statePending             // live, not Synced yet
	stateSynced              // live and Synced
	stateDeleting            // being deleted
)

func stateOf(le *v1alpha1.ListEntry) entryState {
	switch {
	case le.DeletionTimestamp != nil:
		return stateDeleting
	case meta.IsStatusConditionTrue(le.Status.Conditions, v1alpha1.ConditionSynced):
		return stateSynced
	default:
		return statePending
	}
}

// timeline keeps the entries' states of every complete snapshot, to tell
// afterwards when each entry reached the state it ended in.
type timeline struct {
	polls []timedStates
	// finalized are the entries ever seen with listkeeper's finalizer.
	finalized map[string]bool
}

type timedStates struct {
	at     time.Time
	states map[string]entryState
}

func (tl *timeline) add(s snapshot) {
	states := make(map[string]entryState, len(s.entries))
	if tl.finalized == nil {
		tl.finalized = map[string]bool{}
	}
	for i := range s.entries {
		le := &s.entries[i]
		states[le.Name] = stateOf(le)
		if controllerutil.ContainsFinalizer(le, v1alpha1.FinalizerName) {
			tl.finalized[le.Name] = true
		}
	}
	tl.polls = append(tl.polls, timedStates{at: s.at, states: states})
}

// final is name's state in the last snapshot.
func (tl *timeline) final(name string) entryState {
	if len(tl.polls) == 0 {
		return stateAbsent
	}
	return tl.polls[len(tl.polls)-1].states[name]
}

// neededOwner reports whether name's final state needed an owner to act:
// a live entry is Synced only by one, and a deleted entry waits for one
// only when it had the finalizer (one may have had it unseen, between two
// snapshots).
func (tl *timeline) neededOwner(name string) bool {
	return tl.final(name) == stateSynced || tl.finalized[name]
}

// reached returns the time of the first snapshot, taken at or after since,
// that shows name in state want.
func (tl *timeline) reached(name string, want entryState, since time.Time) (time.Time, bool) {
	for _, p := range tl.polls {
		if !p.at.Before(since) && p.states[name] == want {
			return p.at, true
		}
	}
	return time.Time{}, false
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
