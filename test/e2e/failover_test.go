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
	"fmt"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/membership"
	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

const (
	failoverReplicas   = 3
	failoverBystanders = 10
	// The burst creates failoverEntries entries and deletes every
	// failoverDeleteEvery-th of them again failoverDeleteLag creations
	// later, failoverRate operations per second from failoverWorkers
	// goroutines: about 8 s, so that it goes on well after the fault,
	// which hits when half of it is handed out.
	failoverEntries     = 240
	failoverDeleteEvery = 3
	failoverDeleteLag   = 30
	failoverRate        = 40
	failoverWorkers     = 8
	// failoverTimeout bounds each case, setup included.
	failoverTimeout = 3 * time.Minute
	// failoverConverge bounds the wait from the start of the burst until
	// the operator is at rest again.
	failoverConverge = 60 * time.Second
)

// Takeover targets for the victim's entries that were pending at the
// signal or changed after it. The victim is the replica that writes the
// list's document, so every entry of the list is its. After SIGTERM it
// drains and deletes its Lease, so the survivors take over at once, not a
// lease duration later: none may wait as long as killEarliest, the least
// wait a takeover by Lease expiry could give, after its change or the
// signal. The wait itself (about 2 to 4 s on an idle machine: the new
// owner's backlog is every entry of the list changed since the signal,
// each needing its finalizer and its status written, two API writes at
// the client's rate, besides the list write that carries many of them) is
// printed, not bounded more tightly: it grows with the machine's load.
//
// After SIGKILL the survivors take the document's bucket when the victim's
// Lease has expired in their view: a lease duration (10 s) after they last
// saw it renewed, which was at most a renew period and a tick of the
// membership loop (3 s) before the signal. A change that needs a write is
// then written at once. A change that the document already holds (the
// victim wrote it, but did not report it before it died) is not settled
// until the victim's last write could have landed: its last renewal plus
// the lease duration plus the late-write bound (--request-timeout, 10 s),
// at most 20 s after the signal; then the new owner re-verifies the
// document and reports it. All of them must be Synced or gone within
// killTakeoverTarget of the signal: those 20 s and 5 s for the re-read,
// the status writes and a loaded machine.
const (
	killTakeoverTarget = 25 * time.Second
	termTakeoverTarget = killEarliest
	// killEarliest is the least time after SIGKILL before the survivors
	// may act on the victim's document: its Lease expires a lease duration
	// after its last renewal, which was at most a renew period (2 s) and a
	// tick of the membership loop (1 s) ago.
	killEarliest = 10*time.Second - 2*time.Second - time.Second
)

// TestReplicaFailover runs a burst of creations and deletions with three
// replicas and, in the middle of it, stops for good the replica that
// writes the list's document: with SIGKILL, or with SIGTERM. The survivors
// must take its work over: the list ends with exactly the bystanders and
// the IDs of the live entries, no entry stays Terminating or unsynced. It
// measures how soon after the signal the survivors' Leases claimed every
// bucket, and how soon every entry pending at the signal or changed after
// it was done.
func TestReplicaFailover(t *testing.T) {
	if suite.cluster == nil {
		t.Skip("end-to-end tests need the control plane, which -short skips")
	}
	for _, tc := range []struct {
		name      string
		namespace string
		signal    func(*harness.Manager)
		target    time.Duration
	}{
		{name: "SIGKILL", namespace: "failover-kill", signal: (*harness.Manager).Kill, target: killTakeoverTarget},
		{name: "SIGTERM", namespace: "failover-term", signal: (*harness.Manager).Stop, target: termTakeoverTarget},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testFailover(t, tc.namespace, tc.name, tc.signal, tc.target)
		})
	}
}

// takeover is what a failover case measured, from the signal on.
type takeover struct {
	signalled  time.Time
	leaseGone  time.Duration // until the victim's Lease was deleted; 0 if it never was
	leasesFull time.Duration // until the survivors' Leases claimed every bucket, each where it belongs
	// theirs are the entries, all in the victim's document, that were
	// pending at the signal or changed after it.
	theirs waits
}

// waits sums up how long entries waited after the signal.
type waits struct {
	n int
	// done is from the signal until the last of them reached its final
	// state; longest is the longest any waited after its own change or
	// the signal, whichever was later.
	done, longest time.Duration
	last          string // the entry done last
	// first is from the signal until the first of those changed after it
	// that needed an owner to get to their final state (see
	// timeline.neededOwner) did; firstName is it. (One pending at the
	// signal may have been done by the victim just before, and seen only
	// by the next snapshot.)
	first     time.Duration
	firstName string
}

func (w *waits) add(name string, change, signal, at time.Time, neededOwner bool) {
	w.n++
	if d := at.Sub(signal); d > w.done {
		w.done, w.last = d, name
	}
	if d := at.Sub(signal); neededOwner && change.After(signal) && (w.firstName == "" || d < w.first) {
		w.first, w.firstName = d, name
	}
	if change.Before(signal) {
		change = signal
	}
	w.longest = max(w.longest, at.Sub(change))
}

func (w waits) String() string {
	if w.n == 0 {
		return "none"
	}
	return fmt.Sprintf("%d, all done %v after the signal (the last %s), the longest wait %v",
		w.n, w.done.Round(time.Millisecond), w.last, w.longest.Round(time.Millisecond))
}

// failoverRun is one case's burst and what it saw.
type failoverRun struct {
	e         *env
	how       string
	victim    *harness.Manager
	survivors []*harness.Manager
	b         *burst
	signalled chan struct{} // closed once the victim's stop or kill returned
	// docBucket is the bucket of the list's document; victimBuckets are
	// the buckets the victim's Lease claimed just before the signal, read
	// on the burst's goroutine before signalled is closed.
	docBucket     int
	victimBuckets map[int]bool
	victimErr     error
	tl            timeline
	tk            takeover
}

func testFailover(t *testing.T, namespace, how string, signal func(*harness.Manager), target time.Duration) {
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), failoverTimeout)
	defer cancel()
	e := newEnv(ctx, t, envOptions{namespace: namespace, replicas: failoverReplicas, bystanders: failoverBystanders,
		latency: time.Millisecond})
	// The victim is the replica that writes the list's document: every
	// entry of the list is its work, and a fault to any other replica
	// would cover nothing.
	led := e.startLedger(ctx)
	victim, survivors, docBucket, err := e.listOwner(ctx, e.managers)
	if err != nil {
		t.Fatalf("which replica writes the list: %v", err)
	}
	r := &failoverRun{e: e, how: how, victim: victim, survivors: survivors, docBucket: docBucket,
		signalled: make(chan struct{})}
	ops := burstOps(harness.EntryNames(namespace, failoverEntries), failoverDeleteEvery, failoverDeleteLag)
	r.b = &burst{entries: e.entries, ops: ops, interval: time.Second / failoverRate, workers: failoverWorkers,
		faultAt: len(ops) / 2, onFault: func() {
			r.victimBuckets, r.victimErr = e.bucketsOf(ctx, r.victim)
			go func() {
				defer close(r.signalled)
				signal(r.victim)
			}()
		}}
	t.Logf("setup: %d replicas, %d bystanders, in %v; burst of %d operations, %s %s (the owner of the document's bucket %d) at operation %d",
		failoverReplicas, failoverBystanders, time.Since(began).Round(time.Millisecond), len(ops), how, r.victim.Name(), docBucket, r.b.faultAt)
	c0, err := harness.ReadCounters(ctx, e.lists, r.survivors)
	if err != nil {
		t.Fatal(err)
	}

	r.run(ctx)
	e.awaitConverged(ctx, failoverConverge)
	r.measure()
	r.check(target)
	e.checkLedger(ctx, led)
	e.logFailoverCounters(ctx, c0, r.survivors, len(ops))
	e.logLeftoverLease(ctx, r.victim)
	e.checkBystandersKept(ctx)
	e.checkNoPanics()
	t.Logf("total %v", time.Since(began).Round(time.Millisecond))
}

// run runs the burst and polls the entries, the list and, from the
// signal on, the Leases, until the burst and the signal are over, the
// survivors' Leases claim every bucket and the operator is at rest.
func (r *failoverRun) run(ctx context.Context) {
	e, t := r.e, r.e.t
	start := time.Now()
	burstDone := make(chan error, 1)
	go func() { burstDone <- r.b.run(ctx) }()
	burstOver := false
	var why string
	var last snapshot
	err := harness.Poll(ctx, e.sup, failoverConverge, pollInterval, func(ctx context.Context) (bool, error) {
		if !burstOver {
			select {
			case err := <-burstDone:
				if err != nil {
					return false, harness.Fatal(fmt.Errorf("burst: %w", err))
				}
				burstOver = true
			default:
			}
		}
		s := e.observe(ctx, nil)
		if s.err != nil {
			return false, s.err // not fatal: Poll tries again; why keeps the last complete look
		}
		r.tl.add(s)
		last = s
		if sig := r.victim.Signalled(); !sig.IsZero() && r.tk.leasesFull == 0 {
			r.tk.signalled = sig
			if err := e.observeTakeover(ctx, &r.tk, r.victim, r.survivors); err != nil {
				why = err.Error()
				return false, err
			}
		}
		ok, w := e.converged(s)
		why = w
		return burstOver && isClosed(r.signalled) && r.tk.leasesFull > 0 && ok, nil
	})
	if err != nil {
		if r.tk.leasesFull == 0 && !r.tk.signalled.IsZero() {
			why += "; the survivors' Leases do not claim every bucket"
		}
		t.Fatalf("after the %s of %s: not converged: %v: %s%s", r.how, r.victim.Name(), err, why, stuckOf(last))
	}
	t.Logf("%s of %s at %v into the burst; the burst ran %v; at rest %v after its start",
		r.how, r.victim.Name(), r.tk.signalled.Sub(start).Round(time.Millisecond), burstLength(r.b), time.Since(start).Round(time.Millisecond))
}

// measure finds the entries that were pending at the signal or changed
// after it, and logs the takeover.
func (r *failoverRun) measure() {
	t := r.e.t
	switch {
	case r.victimErr != nil:
		t.Fatalf("the buckets of %s: %v", r.victim.Name(), r.victimErr)
	case !r.victimBuckets[r.docBucket]:
		t.Fatalf("at the %s, %s's Lease no longer claimed the document's bucket %d: the fault hit a replica that did not write the list", r.how, r.victim.Name(), r.docBucket)
	}
	r.e.measureTakeover(&r.tk, &r.tl, r.b.lastOps())
	if r.tk.leaseGone > 0 {
		t.Logf("  %s's Lease deleted %v after the signal", r.victim.Name(), r.tk.leaseGone.Round(time.Millisecond))
	}
	t.Logf("  the survivors' Leases claimed every bucket %v after the signal", r.tk.leasesFull.Round(time.Millisecond))
	t.Logf("  entries pending at the signal or changed after it, all in %s's document (bucket %d of its %d): %v", r.victim.Name(), r.docBucket, len(r.victimBuckets), r.tk.theirs)
	if w := r.tk.theirs; w.firstName != "" {
		t.Logf("  the first of them changed after the signal that needed an owner was done %v after it (%s)", w.first.Round(time.Millisecond), w.firstName)
	}
}

// check compares the takeover with the target.
func (r *failoverRun) check(target time.Duration) {
	t, tk, name := r.e.t, r.tk, r.victim.Name()
	if tk.theirs.n == 0 {
		t.Errorf("none of %s's entries was pending at the %s or changed after it: the burst did not cover the fault", name, r.how)
		return
	}
	switch r.how {
	case "SIGKILL":
		// Nobody may act on a dead member's bucket before its Lease
		// expired in their view.
		switch {
		case tk.theirs.firstName == "":
			t.Errorf("no entry of %s's document changed after the SIGKILL and needed an owner: nothing shows when the survivors began to act", name)
		case tk.theirs.first < killEarliest:
			t.Errorf("%s's entry %s, changed after the SIGKILL, was done %v after it, before its Lease could expire (%v)",
				name, tk.theirs.firstName, tk.theirs.first.Round(time.Millisecond), killEarliest)
		}
		if tk.theirs.done > target {
			t.Errorf("the survivors finished %s's entries %v after the SIGKILL (the last %s), later than %v", name, tk.theirs.done.Round(time.Millisecond), tk.theirs.last, target)
		}
	case "SIGTERM":
		if tk.theirs.longest > target {
			t.Errorf("after the SIGTERM one of %s's entries waited %v for the survivors, longer than %v", name, tk.theirs.longest.Round(time.Millisecond), target)
		}
	}
}

// observeTakeover reads the member Leases after the signal and records
// when the victim's Lease was gone and when the survivors' claimed every
// bucket as they assign them among themselves.
func (e *env) observeTakeover(ctx context.Context, tk *takeover, victim *harness.Manager, survivors []*harness.Manager) error {
	leases, err := harness.ReadMemberLeases(ctx, suite.cluster.Client, e.list.Namespace, membership.DefaultBuckets)
	if err != nil {
		return err
	}
	now := time.Now()
	theirs := harness.LeasesOf(leases, names(survivors)...)
	victimThere := len(harness.LeasesOf(leases, victim.Name())) > 0
	if !victimThere && tk.leaseGone == 0 {
		tk.leaseGone = now.Sub(tk.signalled)
	}
	if len(theirs) == len(survivors) && harness.Unsettled(theirs, membership.DefaultBuckets) == 0 {
		tk.leasesFull = now.Sub(tk.signalled)
	}
	return nil
}

// measureTakeover finds the entries that were not yet in their final
// state at the signal, and when each got there.
func (e *env) measureTakeover(tk *takeover, tl *timeline, last map[string]opDone) {
	for name, op := range last {
		at, ok := tl.reached(name, tl.final(name), op.at)
		if !ok || !at.After(tk.signalled) {
			continue
		}
		tk.theirs.add(name, op.at, tk.signalled, at, tl.neededOwner(name))
	}
}

// bucketsOf reads the buckets that m's Lease claims.
func (e *env) bucketsOf(ctx context.Context, m *harness.Manager) (map[int]bool, error) {
	leases, err := harness.ReadMemberLeases(ctx, suite.cluster.Client, e.list.Namespace, membership.DefaultBuckets)
	if err != nil {
		return nil, err
	}
	mine := harness.LeasesOf(leases, m.Name())
	switch {
	case len(mine) == 0:
		return nil, fmt.Errorf("no Lease of %s among %d", m.Name(), len(leases))
	case mine[0].Err != nil:
		return nil, mine[0].Err
	}
	out := make(map[int]bool, len(mine[0].Buckets))
	for _, b := range mine[0].Buckets {
		out[b] = true
	}
	return out, nil
}

// names returns the replicas' names.
func names(managers []*harness.Manager) []string {
	out := make([]string, len(managers))
	for i, m := range managers {
		out[i] = m.Name()
	}
	return out
}

// burstLength is from the first operation's return to the last's.
func burstLength(b *burst) time.Duration {
	var first, last time.Time
	for _, op := range b.lastOps() {
		if first.IsZero() || op.at.Before(first) {
			first = op.at
		}
		if op.at.After(last) {
			last = op.at
		}
	}
	return last.Sub(first).Round(time.Millisecond)
}

// logFailoverCounters logs what the burst cost: list requests and 412s as
// the list server counted them (every replica's), reconciles and API
// requests of the survivors.
func (e *env) logFailoverCounters(ctx context.Context, c0 harness.Counters, survivors []*harness.Manager, changes int) {
	c1, err := harness.ReadCounters(ctx, e.lists, survivors)
	if err != nil {
		e.t.Errorf("read the counters: %v", err)
		return
	}
	d := c1.Sub(c0)
	tot := d.ManagerTotal()
	e.t.Logf("  %d changes: list requests %d (%.2f per change), 412s %d; survivors: reconciles listentry %.0f (errors %.0f), API requests %.0f (409s %.0f)",
		changes, d.Requests(), float64(d.Requests())/float64(changes), d.Conflicts(),
		tot.ReconcileCount("listentry", ""), tot.ReconcileCount("listentry", "error"), tot.APIRequestTotal(), tot.APIConflicts)
}

// logLeftoverLease notes a Lease the victim left behind: nothing deletes a
// dead member's Lease, so every SIGKILL leaves one.
func (e *env) logLeftoverLease(ctx context.Context, victim *harness.Manager) {
	leases, err := harness.ReadMemberLeases(ctx, suite.cluster.Client, e.list.Namespace, membership.DefaultBuckets)
	if err != nil {
		e.t.Errorf("read the member Leases: %v", err)
		return
	}
	for _, l := range leases {
		if l.Of(victim.Name()) {
			e.t.Logf("  note: %s's Lease %s is still there, renewed last %v ago, claiming %d buckets",
				victim.Name(), l.Name, time.Since(l.Renewed).Round(time.Second), len(l.Buckets))
		}
	}
}
