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
	"errors"
	"fmt"
	"time"

	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

// phase is one step of a test's workload, with a fault injected during it.
type phase struct {
	name   string
	adding bool
	names  []string
	want   []string // the list's items when done, for failure messages
	act    func(context.Context) error
	fault  *fault
	done   func(snapshot) bool
}

// fault kills a process when trigger first holds and restarts it outage
// later.
type fault struct {
	what    string
	trigger func(snapshot) bool
	kill    func(context.Context)
	restart func(context.Context) error
}

// phaseResult is what runPhase saw.
type phaseResult struct {
	name    string
	fault   *fault
	start   time.Time
	elapsed time.Duration
	faultAt int           // names on the list when the fault hit
	downFor time.Duration // from the kill until the restarted process was ready
	last    snapshot      // the last complete look
	lastErr error         // why a later look failed (the list server may be down)
}

// runPhase runs ph.act, injects ph.fault once its trigger holds, and waits
// until the fault is over and ph.done holds, bounded by crashPhaseTimeout.
func (e *env) runPhase(ctx context.Context, ph phase) phaseResult {
	e.t.Helper()
	res := phaseResult{name: ph.name, fault: ph.fault, start: time.Now()}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	acted := make(chan error, 1)
	go func() { acted <- ph.act(ctx) }()
	actDone := false
	var recovered chan recovery // set when the fault hit
	faultOver := false          // recovered has been received from

	err := harness.Poll(ctx, e.sup, crashPhaseTimeout, pollInterval, func(ctx context.Context) (bool, error) {
		if !actDone {
			select {
			case err := <-acted:
				if err != nil {
					return false, harness.Fatal(fmt.Errorf("%s the entries: %w", ph.name, err))
				}
				actDone = true
			default:
			}
		}
		if recovered != nil && !faultOver {
			select {
			case r := <-recovered:
				faultOver = true
				if r.err != nil && ctx.Err() == nil { // else the poll times out and says where it stood
					return false, harness.Fatal(fmt.Errorf("restart %s: %w", ph.fault.what, r.err))
				}
				res.downFor = r.down
			default:
			}
		}
		s := e.observe(ctx, ph.names)
		switch {
		case s.err == nil:
			res.last, res.lastErr = s, nil
		case ctx.Err() == nil: // not just the deadline that ends the poll
			res.lastErr = s.err
		}
		if recovered == nil && ph.fault.trigger(s) {
			res.faultAt = s.on
			recovered = make(chan recovery, 1)
			go func() { recovered <- e.injectFault(ctx, ph.fault) }()
		}
		return actDone && faultOver && ph.done(s), nil
	})
	res.elapsed = time.Since(res.start)
	if err != nil {
		if recovered != nil && !faultOver {
			cancel()
			<-recovered
		}
		if errors.Is(err, harness.ErrTimeout) {
			e.t.Fatalf("%s %v: %s", ph.name, err, res.last.describe(ph.want, ph.adding, res.lastErr))
		}
		e.t.Fatalf("%s: %v", ph.name, err)
	}
	e.t.Logf("%s: done in %v; %s killed at %d/%d IDs on the list, back after %v",
		ph.name, res.elapsed.Round(time.Millisecond), ph.fault.what, res.faultAt, len(ph.names), res.downFor.Round(time.Millisecond))
	return res
}

// recovery is how a fault ended.
type recovery struct {
	down time.Duration // from the kill until the restarted process was ready
	err  error         // of the restart
}

// injectFault kills, waits outage and restarts.
func (e *env) injectFault(ctx context.Context, f *fault) recovery {
	f.kill(ctx)
	killed := time.Now()
	select {
	case <-ctx.Done():
		return recovery{err: ctx.Err()}
	case <-time.After(outage):
	}
	err := f.restart(ctx)
	return recovery{down: time.Since(killed), err: err}
}
