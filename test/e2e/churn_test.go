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

	"github.com/listkeeper/listkeeper/internal/membership"
	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

const (
	churnBystanders = 15
	// churnIDs IDs have churnHolders possible holders each (entries
	// churn-<id>-h<n>); the first churnHot of them get half of the
	// operations, so that operations on one ID meet.
	churnIDs     = 24
	churnHolders = 3
	churnHot     = 6
	// churnWorkers goroutines each run one operation, then pause a random
	// time up to churnPause.
	churnWorkers = 6
	churnPause   = 200 * time.Millisecond
	// The replicas go 3 -> 5 at churnScaleUp and 5 -> 2 at churnScaleDown
	// (one SIGKILL, two SIGTERM); the churn stops at churnLength, a while
	// after the killed replica's Lease expired (10s).
	churnReplicas  = 3
	churnScaleUp   = 4 * time.Second
	churnScaleDown = 10 * time.Second
	churnLength    = 22 * time.Second
	// churnTimeout bounds the test; churnConverge the wait for rest after
	// the churn.
	churnTimeout  = 3 * time.Minute
	churnConverge = 90 * time.Second
	// recreateFor bounds how long a re-creation under the same name waits
	// for the old entry to be gone.
	recreateFor = 3 * time.Second
)

// TestChurnWhileScaling creates and deletes entries at random while the
// replicas go from 3 to 5 and then to 2, one of the three that go killed
// with SIGKILL. Each ID has up to three holders, and the operations race:
// a holder toggled on or off, one holder of an ID deleted while another is
// created, an entry deleted and re-created under its name as soon as the
// old one is gone. From the scale-down on, the odd IDs only lose holders,
// and at the end the rest of their holders are deleted at once. When the
// operator is at rest the list must hold exactly the bystanders and every
// ID that has a live holder.
func TestChurnWhileScaling(t *testing.T) {
	if suite.cluster == nil {
		t.Skip("end-to-end tests need the control plane, which -short skips")
	}
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), churnTimeout)
	defer cancel()
	e := newEnv(ctx, t, envOptions{namespace: "churn", replicas: churnReplicas, bystanders: churnBystanders,
		latency: time.Millisecond})
	seed := uint64(time.Now().UnixNano())
	t.Logf("setup: %d replicas, %d bystanders, in %v; %d IDs with up to %d holders each, seed %d",
		churnReplicas, churnBystanders, time.Since(began).Round(time.Millisecond), churnIDs, churnHolders, seed)
	c0, err := harness.ReadCounters(ctx, e.lists, nil)
	if err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	ch := &churn{entries: e.entries}
	churned := make(chan error, 1)
	go func() { churned <- ch.run(ctx, seed, start.Add(churnLength)) }()

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
	if err := e.entries.Delete(ctx, fadingHolders()); err != nil {
		t.Fatal(err)
	}
	churnEnd := time.Now()
	t.Logf("%v: churn over, every holder of the odd IDs deleted: %s", churnEnd.Sub(start).Round(time.Millisecond), ch.counts())

	last := e.awaitConverged(ctx, churnConverge)
	atRest := time.Since(churnEnd) - settle
	live := e.wantItems(last.entries)[len(e.bystanders):]
	t.Logf("at rest %v after the churn: %d live entries hold %d IDs; the list holds the %d bystanders and exactly those IDs",
		atRest.Round(time.Millisecond), len(last.entries), len(live), len(e.bystanders))
	if len(live) == 0 {
		t.Errorf("no ID is held at the end: the churn did not leave a live holder")
	}
	e.checkMembers(ctx, e.managers[3:])

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
	leases, err := harness.ReadMemberLeases(ctx, suite.cluster.Client, e.list.Namespace, membership.DefaultBuckets)
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

// churn runs random operations on the holders of a few IDs.
type churn struct {
	entries harness.Entries
	// fading, once set, turns every operation on an odd ID into the
	// deletion of the holder it picked: those IDs lose their holders
	// while the replicas scale down.
	fading atomic.Bool
	// Counts of what happened: holders created and deleted by a toggle,
	// swaps (one holder of an ID deleted while another is created),
	// re-creations under the same name after the old entry was gone, and
	// holders of fading IDs deleted.
	created, deleted, swaps, recreated, recreateGaveUp, faded atomic.Int64
}

// fadingHolders are every holder of the odd IDs.
func fadingHolders() []string {
	var out []string
	for id := 1; id < churnIDs; id += 2 {
		for h := range churnHolders {
			out = append(out, holderName(id, h))
		}
	}
	return out
}

func holderName(id, holder int) string { return fmt.Sprintf("churn-%02d-h%d", id, holder) }
func holderID(id int) string           { return fmt.Sprintf("churn-id-%02d", id) }

// run runs churnWorkers workers, each starting operations until end, and
// returns the first error.
func (c *churn) run(ctx context.Context, seed uint64, end time.Time) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	for w := range churnWorkers {
		rng := rand.New(rand.NewPCG(seed, uint64(w)))
		wg.Go(func() {
			for time.Now().Before(end) && ctx.Err() == nil {
				if err := c.step(ctx, rng); err != nil {
					cancel(err)
					return
				}
				select {
				case <-time.After(time.Duration(rng.Int64N(int64(churnPause)))):
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
	id := rng.IntN(churnIDs)
	if rng.IntN(2) == 0 {
		id = rng.IntN(churnHot)
	}
	h := rng.IntN(churnHolders)
	if id%2 == 1 && c.fading.Load() {
		deleted, err := c.entries.DeleteOne(ctx, holderName(id, h))
		c.faded.Add(b2i(deleted))
		return err
	}
	switch p := rng.IntN(100); {
	case p < 60:
		return c.toggle(ctx, id, h)
	case p < 80:
		return c.swap(ctx, id, h, (h+1+rng.IntN(churnHolders-1))%churnHolders)
	default:
		return c.recreate(ctx, id, h)
	}
}

// toggle creates the holder, or deletes it when it exists.
func (c *churn) toggle(ctx context.Context, id, h int) error {
	created, err := c.entries.CreateHolder(ctx, holderName(id, h), holderID(id))
	if err != nil || created {
		c.created.Add(b2i(created))
		return err
	}
	deleted, err := c.entries.DeleteOne(ctx, holderName(id, h))
	c.deleted.Add(b2i(deleted))
	return err
}

// swap deletes one holder of an ID while it creates another, at once.
func (c *churn) swap(ctx context.Context, id, gone, comes int) error {
	var wg sync.WaitGroup
	var delErr, createErr error
	wg.Go(func() { _, delErr = c.entries.DeleteOne(ctx, holderName(id, gone)) })
	wg.Go(func() { _, createErr = c.entries.CreateHolder(ctx, holderName(id, comes), holderID(id)) })
	wg.Wait()
	c.swaps.Add(1)
	return errors.Join(delErr, createErr)
}

// recreate deletes the holder and creates it again under the same name as
// soon as the old entry is gone (the operator has released it).
func (c *churn) recreate(ctx context.Context, id, h int) error {
	if _, err := c.entries.DeleteOne(ctx, holderName(id, h)); err != nil {
		return err
	}
	deadline := time.Now().Add(recreateFor)
	for time.Now().Before(deadline) {
		created, err := c.entries.CreateHolder(ctx, holderName(id, h), holderID(id))
		if err != nil || created {
			c.recreated.Add(b2i(created))
			return err
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	c.recreateGaveUp.Add(1)
	return nil
}

func (c *churn) total() int {
	return int(c.created.Load() + c.deleted.Load() + 2*c.swaps.Load() + 2*c.recreated.Load() + c.recreateGaveUp.Load() + c.faded.Load())
}

func (c *churn) counts() string {
	return fmt.Sprintf("%d holders created and %d deleted by toggles, %d swaps, %d re-created under the same name (%d gave up after %v), %d holders of odd IDs deleted after the scale-down",
		c.created.Load(), c.deleted.Load(), c.swaps.Load(), c.recreated.Load(), c.recreateGaveUp.Load(), recreateFor, c.faded.Load())
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
