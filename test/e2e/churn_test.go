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
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/membership"
	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

const (
	churnBystanders = 15
	// The churn works on churnDocs lists, each on its own document, so
	// that every replica writes some of them; the first is hot and gets
	// half of the operations.
	churnDocs = 6
	// On each list churnIDs IDs have churnHolders possible holders each;
	// the first churnHot IDs get half of the list's operations, so that
	// operations on one ID meet.
	churnIDs     = 16
	churnHolders = 3
	churnHot     = 4
	// churnWorkers goroutines each run one operation, then pause a random
	// time up to churnPause.
	churnWorkers = 12
	churnPause   = 60 * time.Millisecond
	// The replicas go 3 -> 5 at churnScaleUp and 5 -> 2 at churnScaleDown
	// (one SIGKILL, two SIGTERM); the churn stops at churnLength, a while
	// after the killed replica's Lease expired (10s).
	churnReplicas  = 3
	churnScaleUp   = 4 * time.Second
	churnScaleDown = 10 * time.Second
	churnLength    = 22 * time.Second
	// churnTimeout bounds the test; churnConverge the wait for rest after
	// the churn.
	// churnResync is the lists' resyncInterval, the shortest the API
	// allows: a resync during the churn corrects drift from a cache that
	// shows holders without their finalizer yet, and re-checks its write
	// against the API server.
	churnResync   = 10 * time.Second
	churnTimeout  = 3 * time.Minute
	churnConverge = 60 * time.Second
	// recreateFor bounds how long a re-creation under the same name waits
	// for the old entry to be gone.
	recreateFor = 3 * time.Second
	// flashFor bounds how long a flash holder lives before it is deleted:
	// well within the time the operator takes to put its finalizer on.
	flashFor = 50 * time.Millisecond
	// churnMinInWindow is the least number of flash holders whose
	// deletion must find them without the finalizer, for the finalizer
	// window to count as covered.
	churnMinInWindow = 5
)

// TestChurnWhileScaling creates and deletes entries at random on six
// lists while the replicas go from 3 to 5 and then to 2, one of the three
// that go killed with SIGKILL. Each ID has up to three holders, and the
// operations race: a holder toggled on or off, one holder of an ID deleted
// while another is created, an entry deleted and re-created under its name
// as soon as the old one is gone, and a flash holder created and deleted
// again within 50 ms, before the operator put its finalizer on, then
// created again under its name at once. From the scale-down on, the odd
// IDs only lose holders, and at the end the rest of their holders are
// deleted at once. Every list resyncs every 10 s, so drift corrections
// decide from the cache beside the churn. The churn runs without the
// finalizer policy, so that the operator patches each finalizer on. When the operator is at rest each list must hold
// exactly the bystanders and every ID that has a live holder, no entry may
// be Terminating or unsynced, and no version of any list may have held an
// ID without a holder or lacked a Synced holder's ID.
func TestChurnWhileScaling(t *testing.T) {
	if suite.cluster == nil {
		t.Skip("end-to-end tests need the control plane, which -short skips")
	}
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), churnTimeout)
	defer cancel()
	// The flash holders test the window between an entry's creation and
	// the finalizer's patch, which exists only without the finalizer
	// policy (TestChurnThroughTransitions churns with it).
	if err := harness.EnsureNamespace(ctx, suite.cluster.Client, "churn"); err != nil {
		t.Fatal(err)
	}
	withoutFinalizerPolicy(ctx, t, "churn")
	e := newEnv(ctx, t, envOptions{namespace: "churn", replicas: churnReplicas, bystanders: churnBystanders,
		latency: time.Millisecond, documents: churnDocs, resync: churnResync})
	seed := uint64(time.Now().UnixNano())
	led := e.startLedger(ctx)
	t.Logf("setup: %d replicas, %d lists with %d bystanders resynced every %v, in %v; %d IDs per list with up to %d holders each, %d workers, seed %d",
		churnReplicas, churnDocs, churnBystanders, churnResync, time.Since(began).Round(time.Millisecond), churnIDs, churnHolders, churnWorkers, seed)
	c0, err := harness.ReadCounters(ctx, e.lists, nil)
	if err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	ch := e.newChurn(churnIDs, churnHolders, churnHot)
	churned := make(chan error, 1)
	go func() { churned <- ch.run(ctx, seed, churnWorkers, churnPause, start.Add(churnLength)) }()

	e.sleepOrDie(ctx, start.Add(churnScaleUp))
	e.addManager(ctx)
	e.addManager(ctx)
	t.Logf("%v: 5 replicas (%s and %s started)", time.Since(start).Round(time.Millisecond), e.managers[3].Name(), e.managers[4].Name())

	e.sleepOrDie(ctx, start.Add(churnScaleDown))
	ch.fading.Store(true)
	var wg sync.WaitGroup
	wg.Go(e.managers[0].Kill)
	wg.Go(e.managers[1].Stop)
	wg.Go(e.managers[2].Stop)
	wg.Wait()
	t.Logf("%v: 2 replicas (%s killed, %s and %s stopped, all gone in %v)", time.Since(start).Round(time.Millisecond),
		e.managers[0].Name(), e.managers[1].Name(), e.managers[2].Name(),
		time.Since(e.managers[0].Signalled()).Round(time.Millisecond))

	if err := <-churned; err != nil {
		t.Fatalf("churn: %v", err)
	}
	// The last holders of the fading IDs go all at once.
	if err := ch.deleteFading(ctx); err != nil {
		t.Fatal(err)
	}
	churnEnd := time.Now()
	t.Logf("%v: churn over, every holder of the odd IDs deleted: %s", churnEnd.Sub(start).Round(time.Millisecond), ch.counts())

	last := e.awaitConverged(ctx, churnConverge)
	atRest := time.Since(churnEnd) - settle
	live := 0
	for _, d := range e.docs {
		live += len(e.wantItemsOf(d.list.Name, last.entries)) - len(e.bystanders)
	}
	t.Logf("at rest %v after the churn: %d live entries hold %d IDs on %d lists; each list holds the %d bystanders and exactly its IDs",
		atRest.Round(time.Millisecond), len(last.entries), live, len(e.docs), len(e.bystanders))
	if live == 0 {
		t.Errorf("no ID is held at the end: the churn did not leave a live holder")
	}
	if n := ch.flashInside.Load(); n < churnMinInWindow {
		t.Errorf("only %d flash holders were deleted before the operator put its finalizer on (want at least %d): the finalizer window went untested", n, churnMinInWindow)
	}
	e.checkResynced(ctx, start.Add(churnResync))
	e.checkMembers(ctx, e.managers[3:])
	e.checkLedger(ctx, led)

	c1, err := harness.ReadCounters(ctx, e.lists, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := c1.Sub(c0)
	ops := ch.total()
	t.Logf("figures: %d operations, list requests %d (%.2f per operation), 412s %d, commits %d",
		ops, d.Requests(), float64(d.Requests())/float64(max(ops, 1)), d.Conflicts(), d.Stats.Commits)
	e.logLeftoverLease(ctx, e.managers[0])
	e.checkBystandersKept(ctx)
	e.checkNoPanics()
	t.Logf("total %v", time.Since(began).Round(time.Millisecond))
}

// checkResynced checks that every list of the env last resynced (its
// status.lastSyncTime) at or after since: its drift corrections ran
// beside the churn.
func (e *env) checkResynced(ctx context.Context, since time.Time) {
	e.t.Helper()
	var latest []string
	for _, d := range e.docs {
		var xl v1alpha1.ExternalList
		if err := suite.cluster.Client.Get(ctx, client.ObjectKey{Namespace: d.list.Namespace, Name: d.list.Name}, &xl); err != nil {
			e.t.Errorf("read ExternalList %s: %v", d.list.Name, err)
			continue
		}
		last := xl.Status.LastSyncTime
		if last == nil || last.Time.Before(since.Truncate(time.Second)) {
			e.t.Errorf("ExternalList %s last resynced at %v, before %v: its resyncInterval did not run during the churn", d.list.Name, last, since.Format(timeFmt))
			continue
		}
		latest = append(latest, last.Format("15:04:05"))
	}
	e.t.Logf("resyncs: each list resynced during the churn, last at %s", strings.Join(latest, ", "))
}

// sleepOrDie waits until at, failing the test when a child dies early or
// ctx ends first.
func (e *env) sleepOrDie(ctx context.Context, at time.Time) {
	e.t.Helper()
	select {
	case <-time.After(time.Until(at)):
	case <-e.sup.Died():
		e.t.Fatal(e.sup.Err())
	case <-ctx.Done():
		e.t.Fatal(ctx.Err())
	}
}

// checkMembers checks that the Leases of the given replicas claim every
// bucket exactly once, each where the replicas assign it.
func (e *env) checkMembers(ctx context.Context, replicas []*harness.Manager) {
	e.t.Helper()
	leases, err := harness.ReadMemberLeases(ctx, suite.cluster.Client, e.namespace, membership.DefaultBuckets)
	if err != nil {
		e.t.Error(err)
		return
	}
	theirs := harness.LeasesOf(leases, names(replicas)...)
	held := make([]string, len(theirs))
	for i, l := range theirs {
		held[i] = fmt.Sprintf("%s %d", strings.TrimPrefix(l.Name, "listkeeper-member-"), len(l.Buckets))
	}
	if off := harness.Unsettled(theirs, membership.DefaultBuckets); off > 0 || len(theirs) != len(replicas) {
		e.t.Errorf("the Leases of the %d replicas left (%d found) do not claim the buckets as they assign them: %d off; %v",
			len(replicas), len(theirs), off, harness.CoverageOf(theirs, membership.DefaultBuckets))
		return
	}
	e.t.Logf("buckets held: %s", strings.Join(held, ", "))
}

// churn runs random operations on the holders of a few IDs on each of the
// env's lists. The first list is hot: it gets half of the operations.
type churn struct {
	docs                []harness.Entries
	ids, holders, hotID int
	// noFlash leaves flash holders and handoffs out: the churn then
	// never deletes an entry before the operator put its finalizer on,
	// unless a toggle happens to.
	noFlash bool
	// unchanged deletes each holder with preconditions on what was just
	// read (Entries.DeleteUnchanged), so that a deletion never overruns a
	// finalizer that the operator put on meanwhile.
	unchanged bool
	// until, when not zero, ends the churn earlier than run's end (Unix
	// nanoseconds; see endAt).
	until atomic.Int64
	// fading, once set, turns every operation on an odd ID into the
	// deletion of the holder it picked: those IDs lose their holders
	// while the replicas scale down.
	fading atomic.Bool
	// Counts of what happened: holders created and deleted by a toggle,
	// swaps (one holder of an ID deleted while another is created),
	// re-creations under the same name after the old entry was gone,
	// flash holders (created, deleted within flashFor, mostly created
	// again at once) whose deletion found them without the finalizer
	// (inside) or with it (after), handoffs (a swap to a flash holder),
	// and holders of fading IDs deleted.
	created, deleted, swaps, recreated, recreateGaveUp, faded atomic.Int64
	flashInside, flashAfter, handoffs                         atomic.Int64
}

// newChurn returns a churn on every list of the env, with ids IDs on each,
// holders possible holders per ID and the first hot IDs of each list
// getting half of its operations.
func (e *env) newChurn(ids, holders, hot int) *churn {
	c := &churn{ids: ids, holders: holders, hotID: hot}
	for _, d := range e.docs {
		c.docs = append(c.docs, d.entries)
	}
	return c
}

// holder is one possible holder: list d, ID id, holder h.
type holder struct{ d, id, h int }

func (h holder) name() string { return fmt.Sprintf("churn-%d-%02d-h%d", h.d, h.id, h.h) }
func (h holder) ID() string   { return fmt.Sprintf("churn-%d-id-%02d", h.d, h.id) }

func (c *churn) entries(h holder) harness.Entries { return c.docs[h.d] }

func (c *churn) create(ctx context.Context, h holder) (bool, error) {
	return c.entries(h).CreateHolder(ctx, h.name(), h.ID())
}

func (c *churn) remove(ctx context.Context, h holder) (bool, error) {
	if c.unchanged {
		return c.entries(h).DeleteUnchanged(ctx, h.name())
	}
	return c.entries(h).DeleteOne(ctx, h.name())
}

// deleteFading deletes every holder of the odd IDs.
func (c *churn) deleteFading(ctx context.Context) error {
	var errs []error
	for d := range c.docs {
		var names []string
		for id := 1; id < c.ids; id += 2 {
			for h := range c.holders {
				names = append(names, holder{d, id, h}.name())
			}
		}
		errs = append(errs, c.docs[d].Delete(ctx, names))
	}
	return errors.Join(errs...)
}

// endAt ends the churn at t, if that is before the end run was given.
func (c *churn) endAt(t time.Time) { c.until.Store(t.UnixNano()) }

// going reports whether the churn goes on: before end, and before the
// time endAt set.
func (c *churn) going(end time.Time) bool {
	now := time.Now()
	until := c.until.Load()
	return now.Before(end) && (until == 0 || now.UnixNano() < until)
}

// run runs workers workers, each starting operations until end (or the
// time endAt sets) and pausing up to pause between two, and returns the
// first error.
func (c *churn) run(ctx context.Context, seed uint64, workers int, pause time.Duration, end time.Time) error {
	return runWorkers(ctx, seed, workers, pause, func() bool { return c.going(end) }, c.step)
}

// runWorkers runs workers goroutines, each with its own random source
// seeded from seed, that call step and then pause a random time up to
// pause, while going reports true; the first error stops them all and is
// returned.
func runWorkers(ctx context.Context, seed uint64, workers int, pause time.Duration, going func() bool, step func(context.Context, *rand.Rand) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	for w := range workers {
		rng := rand.New(rand.NewPCG(seed, uint64(w)))
		wg.Go(func() {
			for going() && ctx.Err() == nil {
				if err := step(ctx, rng); err != nil {
					cancel(err)
					return
				}
				select {
				case <-time.After(time.Duration(rng.Int64N(int64(pause)))):
				case <-ctx.Done():
				}
			}
		})
	}
	wg.Wait()
	return context.Cause(ctx)
}

// step runs one random operation.
func (c *churn) step(ctx context.Context, rng *rand.Rand) error {
	d := 0
	if len(c.docs) > 1 && rng.IntN(2) == 0 {
		d = rng.IntN(len(c.docs))
	}
	id := rng.IntN(c.ids)
	if rng.IntN(2) == 0 {
		id = rng.IntN(c.hotID)
	}
	h := holder{d: d, id: id, h: rng.IntN(c.holders)}
	if id%2 == 1 && c.fading.Load() {
		deleted, err := c.remove(ctx, h)
		c.faded.Add(b2i(deleted))
		return err
	}
	other := h
	if c.holders > 1 {
		other.h = (h.h + 1 + rng.IntN(c.holders-1)) % c.holders
	}
	life := time.Duration(rng.Int64N(int64(flashFor)))
	switch p := rng.IntN(100); {
	case p < 35:
		return c.toggle(ctx, h)
	case p < 50 && other != h:
		return c.swap(ctx, h, other)
	case p < 65:
		return c.recreate(ctx, h)
	case c.noFlash:
		return c.toggle(ctx, h)
	case p < 85 || other == h:
		return c.flash(ctx, h, life, true)
	default:
		return c.handoff(ctx, h, other, life, rng.IntN(2) == 0)
	}
}

// toggle creates the holder, or deletes it when it exists.
func (c *churn) toggle(ctx context.Context, h holder) error {
	created, err := c.create(ctx, h)
	if err != nil || created {
		c.created.Add(b2i(created))
		return err
	}
	deleted, err := c.remove(ctx, h)
	c.deleted.Add(b2i(deleted))
	return err
}

// swap deletes one holder of an ID while it creates another, at once.
func (c *churn) swap(ctx context.Context, gone, comes holder) error {
	var wg sync.WaitGroup
	var delErr, createErr error
	wg.Go(func() { _, delErr = c.remove(ctx, gone) })
	wg.Go(func() { _, createErr = c.create(ctx, comes) })
	wg.Wait()
	c.swaps.Add(1)
	return errors.Join(delErr, createErr)
}

// recreate deletes the holder and creates it again under the same name as
// soon as the old entry is gone (the operator has released it).
func (c *churn) recreate(ctx context.Context, h holder) error {
	if _, err := c.remove(ctx, h); err != nil {
		return err
	}
	created, err := c.recreateOnceGone(ctx, h)
	c.recreated.Add(b2i(created))
	return err
}

// handoff deletes one holder of an ID while it creates another, at once,
// as swap does, but the new one is a flash holder (see flash): the only
// other holder of the ID while the first one's deletion is decided may
// itself be gone a moment later, before it ever had the finalizer.
func (c *churn) handoff(ctx context.Context, gone, comes holder, life time.Duration, again bool) error {
	var wg sync.WaitGroup
	var delErr, flashErr error
	wg.Go(func() { _, delErr = c.remove(ctx, gone) })
	wg.Go(func() { flashErr = c.flash(ctx, comes, life, again) })
	wg.Wait()
	c.handoffs.Add(1)
	return errors.Join(delErr, flashErr)
}

// flash creates the holder, deletes it again after life, mostly before
// the operator has put its finalizer on, and, when again is set, creates
// it again under the same name at once. A holder that exists already is
// re-created instead.
func (c *churn) flash(ctx context.Context, h holder, life time.Duration, again bool) error {
	created, err := c.create(ctx, h)
	if err != nil {
		return err
	}
	if !created {
		return c.recreate(ctx, h)
	}
	select {
	case <-time.After(life):
	case <-ctx.Done():
		return ctx.Err()
	}
	if _, err := c.remove(ctx, h); err != nil {
		return err
	}
	if !again {
		// Without the finalizer the deletion removed the entry at once.
		gone, err := c.entries(h).Gone(ctx, h.name())
		if err != nil {
			return err
		}
		c.countFlash(gone)
		return nil
	}
	// Without the finalizer the deletion removed the entry at once, and
	// the first creation finds its name free.
	created, err = c.create(ctx, h)
	if err != nil {
		return err
	}
	c.countFlash(created)
	if !created {
		_, err = c.recreateOnceGone(ctx, h)
	}
	return err
}

// countFlash counts a flash holder whose deletion found it without the
// finalizer (inside the window), or with it.
func (c *churn) countFlash(inside bool) {
	if inside {
		c.flashInside.Add(1)
	} else {
		c.flashAfter.Add(1)
	}
}

// recreateOnceGone creates the holder as soon as its name is free, trying
// for up to recreateFor.
func (c *churn) recreateOnceGone(ctx context.Context, h holder) (bool, error) {
	deadline := time.Now().Add(recreateFor)
	for time.Now().Before(deadline) {
		created, err := c.create(ctx, h)
		if err != nil || created {
			return created, err
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	c.recreateGaveUp.Add(1)
	return false, nil
}

func (c *churn) total() int {
	return int(c.created.Load() + c.deleted.Load() + 2*c.swaps.Load() + 2*c.recreated.Load() + c.recreateGaveUp.Load() + c.faded.Load() +
		3*(c.flashInside.Load()+c.flashAfter.Load()) + c.handoffs.Load())
}

func (c *churn) counts() string {
	parts := []string{
		fmt.Sprintf("%d holders created and %d deleted by toggles, %d swaps, %d re-created under the same name (%d gave up after %v)",
			c.created.Load(), c.deleted.Load(), c.swaps.Load(), c.recreated.Load(), c.recreateGaveUp.Load(), recreateFor),
	}
	if !c.noFlash {
		parts = append(parts, fmt.Sprintf("%d flash holders deleted within %v (%d before the finalizer was on, %d after; %d of them the new holder of a swap)",
			c.flashInside.Load()+c.flashAfter.Load(), flashFor, c.flashInside.Load(), c.flashAfter.Load(), c.handoffs.Load()))
	}
	if n := c.faded.Load(); n > 0 {
		parts = append(parts, fmt.Sprintf("%d holders of odd IDs deleted after the scale-down", n))
	}
	return strings.Join(parts, ", ")
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
