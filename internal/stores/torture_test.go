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

package stores_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// The fault tortures of the SDK backends (wafv2_torture_test.go,
// gcpiam_torture_test.go) run the engine as three replicas of the
// operator would, 16 goroutines each, on one list behind a fake whose
// fault hook fails a seeded random share of the requests. This file holds
// the workload they share and its checks; torture_faults_test.go the seed
// and the dice of the fault hooks.
const (
	tortureReplicas = 3
	tortureWorkers  = 16
	// tortureOwn is how many IDs of its own each goroutine adds; it
	// removes the even ones again.
	tortureOwn = 30
	// tortureFaultRate is the share of requests a fault hook fails.
	tortureFaultRate = 0.15
	// tortureDeadline is how long a torture may run before it is failed
	// as stuck: a run takes seconds, and a livelock must not hang the
	// package until go test's own timeout.
	tortureDeadline = 60 * time.Second
	// tortureSeedEnv names the environment variable that replays a
	// torture with a seed that a failed run logged.
	tortureSeedEnv = "LISTKEEPER_TORTURE_SEED"
	// tortureDefaultSeed is the seed of a run without tortureSeedEnv:
	// fixed, as test/torture's are, so that a plain go test is the same
	// run every time, as far as the scheduling of goroutines allows.
	tortureDefaultSeed = 1
)

// tortureIDs are the IDs of a torture's workload, as one backend spells
// them.
type tortureIDs struct {
	// own returns the k-th ID of goroutine w of replica r: as submitted,
	// and as the list stores it.
	own func(r, w, k int) (submit, stored string)
	// relay returns the ID that goroutine w of replica r starts handing
	// on to the next replicas: the one of end 0 ends on the list, the one
	// of end 1 off it.
	relay func(r, w, end int) string
	// shared are IDs that many goroutines of every replica add, and
	// nobody removes.
	shared []string
	// leavers are on the list at the start; many goroutines of every
	// replica remove them, and nobody adds them.
	leavers []string
}

// want returns the IDs the workload leaves on the list besides the
// bystanders, as the list stores them, sorted.
func (ids tortureIDs) want() []string {
	var out []string
	for r := range tortureReplicas {
		for w := range tortureWorkers {
			for k := 1; k < tortureOwn; k += 2 {
				_, stored := ids.own(r, w, k)
				out = append(out, stored)
			}
			out = append(out, ids.relay(r, w, 0))
		}
	}
	out = append(out, ids.shared...)
	slices.Sort(out)
	return out
}

// changesPerWorker is how many changes each goroutine of the workload
// makes, each until it is acknowledged.
const changesPerWorker = 2 + // the relays it starts
	tortureOwn + tortureOwn/2 + // its own IDs, added, and the even ones removed
	1 + 1 + // a shared ID added, a leaver removed
	3 // the relay steps handed to it

// relayStep is one change of a relay: step 1 removes the ID, step 2 adds
// it again (only an ID of end 0 has one).
type relayStep struct {
	id   string
	end  int
	step int
}

// tortureRun is one run of the workload.
type tortureRun struct {
	ids     tortureIDs
	clients []*etagclient.Client
	// holds reports whether the list holds id (as stored) right now,
	// from the fake's own state.
	holds func(id string) bool

	// transient counts changes that failed with ErrUnreachable and were
	// submitted again.
	transient atomic.Int64

	mu       sync.Mutex
	failures []string
}

// run lets tortureWorkers goroutines per client make their changes, each
// change submitted again after a transient failure (ErrUnreachable: the
// provider kept failing, or a write's outcome stayed unknown) until it is
// acknowledged, as the controller does. Every acknowledged change must
// hold in the list at once, as the fake has it: no other goroutine makes a
// contrary change to that ID before the goroutine that made it hands the
// ID on. A goroutine of replica r makes, in this order:
//
//   - two relays: it adds an ID and hands it to replica r+1, which removes
//     it; the ID of end 0 goes on to replica r+2, which adds it again.
//     Every step is a change by another replica than the one before, made
//     after the one before was acknowledged: a lost or resurrected change
//     would show at the end;
//   - its own IDs, each added, and the even ones removed again; a shared
//     ID added (three goroutines per shared ID) and a leaver removed, in
//     between;
//   - the three relay steps that reach it, in the order they come.
//
// It fails the test and returns false when a change failed otherwise, an
// acknowledged change does not hold, or ctx ended first (the run is then
// stuck: tortureDeadline).
func (run *tortureRun) run(ctx context.Context, t *testing.T) bool {
	t.Helper()
	ctx, abort := context.WithCancelCause(ctx)
	defer abort(nil)
	var inboxes [tortureReplicas][tortureWorkers]chan relayStep
	for r := range inboxes {
		for w := range inboxes[r] {
			inboxes[r][w] = make(chan relayStep, 3) // its three steps: no send blocks
		}
	}
	var wg sync.WaitGroup
	for r := range tortureReplicas {
		for w := range tortureWorkers {
			wg.Go(func() {
				if err := run.worker(ctx, r, w, &inboxes); err != nil {
					if ctx.Err() == nil { // the first to fail; the others stop
						run.fail("replica %d goroutine %d: %v", r, w, err)
					}
					abort(err)
				}
			})
		}
	}
	wg.Wait()
	if errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		t.Errorf("the changes did not finish within %v: the cycle is stuck", tortureDeadline)
	}
	run.mu.Lock()
	defer run.mu.Unlock()
	for _, msg := range run.failures {
		t.Error(msg)
	}
	return !t.Failed()
}

// worker is goroutine w of replica r (see run).
func (run *tortureRun) worker(ctx context.Context, r, w int, inboxes *[tortureReplicas][tortureWorkers]chan relayStep) error {
	c := run.clients[r]
	next := inboxes[(r+1)%tortureReplicas][w]
	for end := range 2 {
		id := run.ids.relay(r, w, end)
		if err := run.change(ctx, c, etagclient.Change{Add: []string{id}}, id, true); err != nil {
			return err
		}
		next <- relayStep{id: id, end: end, step: 1}
	}
	for k := range tortureOwn {
		submit, stored := run.ids.own(r, w, k)
		if err := run.change(ctx, c, etagclient.Change{Add: []string{submit}}, stored, true); err != nil {
			return err
		}
		switch k {
		case 2:
			id := run.ids.shared[(r*tortureWorkers+w)%len(run.ids.shared)]
			if err := run.change(ctx, c, etagclient.Change{Add: []string{id}}, id, true); err != nil {
				return err
			}
		case 3:
			id := run.ids.leavers[(r*tortureWorkers+w)%len(run.ids.leavers)]
			if err := run.change(ctx, c, etagclient.Change{Remove: []string{id}}, id, false); err != nil {
				return err
			}
		}
		if k%2 == 0 {
			if err := run.change(ctx, c, etagclient.Change{Remove: []string{stored}}, stored, false); err != nil {
				return err
			}
		}
	}
	for range 3 {
		var s relayStep
		select {
		case s = <-inboxes[r][w]:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
		ch, present := etagclient.Change{Remove: []string{s.id}}, false
		if s.step == 2 {
			ch, present = etagclient.Change{Add: []string{s.id}}, true
		}
		if err := run.change(ctx, c, ch, s.id, present); err != nil {
			return err
		}
		if s.step == 1 && s.end == 0 {
			next <- relayStep{id: s.id, end: s.end, step: 2}
		}
	}
	return nil
}

// change makes ch through c until it is acknowledged, and checks that the
// list then holds stored (present) or lacks it.
func (run *tortureRun) change(ctx context.Context, c *etagclient.Client, ch etagclient.Change, stored string, present bool) error {
	for {
		_, err := c.Update(ctx, ch)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if !errors.Is(err, etagclient.ErrUnreachable) {
			return fmt.Errorf("change %+v: %w", ch, err)
		}
		run.transient.Add(1)
	}
	if got := run.holds(stored); got != present {
		run.fail("change %+v was acknowledged, and the list holds %s = %v", ch, stored, got)
	}
	return nil
}

func (run *tortureRun) fail(format string, args ...any) {
	run.mu.Lock()
	defer run.mu.Unlock()
	run.failures = append(run.failures, fmt.Sprintf(format, args...))
}

// checkFinal fails the test unless got, the list at the end, is the
// bystanders, first and in their order, then exactly the IDs the workload
// leaves (in any order).
func (run *tortureRun) checkFinal(t *testing.T, got, bystanders []string) {
	t.Helper()
	if len(got) < len(bystanders) || !slices.Equal(got[:len(bystanders)], bystanders) {
		t.Errorf("the bystanders are not first and in their order: %.8q", got)
		return
	}
	rest := slices.Sorted(slices.Values(got[len(bystanders):]))
	want := run.ids.want()
	if slices.Equal(rest, want) {
		return
	}
	var lost, extra []string
	for _, id := range want {
		if _, found := slices.BinarySearch(rest, id); !found {
			lost = append(lost, id)
		}
	}
	for _, id := range rest {
		if _, found := slices.BinarySearch(want, id); !found {
			extra = append(extra, id)
		}
	}
	t.Errorf("the list holds %d IDs besides the bystanders, want %d: %d lost %.5q, %d that should be gone %.5q",
		len(rest), len(want), len(lost), lost, len(extra), extra)
}

// tortureCounts sums the engine's counters of the replicas.
type tortureCounts struct {
	written, conflicts, ambiguous, errs, committed int64
}

func sumCounters(obs []*etagclient.Counters) tortureCounts {
	var s tortureCounts
	for _, o := range obs {
		s.written += o.Written.Load()
		s.conflicts += o.Conflicts.Load()
		s.ambiguous += o.Ambiguous.Load()
		s.errs += o.Errors.Load()
		s.committed += o.Commits.Load()
	}
	return s
}

// checkEngine fails the test unless the replicas' counters show that every
// change was acknowledged once, a write was lost to another for certain,
// and a write whose outcome was unknown was settled by a read; landed is
// how many writes the fake committed.
func (run *tortureRun) checkEngine(t *testing.T, s tortureCounts, landed int64) {
	t.Helper()
	if want := int64(tortureReplicas * tortureWorkers * changesPerWorker); s.committed != want {
		t.Errorf("the clients acknowledged %d changes, want %d", s.committed, want)
	}
	if s.conflicts == 0 {
		t.Error("no write was lost to another: the replicas did not race")
	}
	if s.ambiguous == 0 {
		t.Error("no write's outcome was unknown to its client: the faults did not reach a write")
	}
	if landed <= s.written {
		t.Errorf("the fake committed %d writes and the clients saw %d commit: no write landed unknown to its client", landed, s.written)
	}
	if run.transient.Load() == 0 {
		t.Error("no change failed for a while: the faults never outlasted the client's retries")
	}
}
