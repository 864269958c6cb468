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

	"github.com/listkeeper/listkeeper/internal/fakeapi"
	"github.com/listkeeper/listkeeper/internal/membership"
	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

const (
	holdReplicas   = 3
	holdBystanders = 10
	// The churn works on holdDocs lists, the first of them hot, with
	// holdIDs IDs of up to two holders each. This test is about late
	// writes: no flash holders, and deletions that never overrun a
	// finalizer put on meanwhile (TestChurnWhileScaling covers both).
	holdDocs    = 6
	holdIDs     = 12
	holdHolders = 2
	holdHot     = 4
	holdWorkers = 8
	holdGap     = 100 * time.Millisecond
	// From holdOn into the churn the list server holds every write for
	// holdFor before it evaluates its If-Match (a slow proxy, a stalled
	// server thread): less than the request timeout (10 s), so the writer
	// waits for the answer. At holdScaleUp a fourth replica joins (the
	// documents whose buckets move to it are handed over while their
	// writes are held); once the buckets have settled the owner of the
	// hot list is killed with SIGKILL, its held writes still to be
	// evaluated. The hold ends holdOffAfter the kill, when the survivors
	// have taken the hot list and its writes are held too; the churn
	// ends holdChurnAfter the end of the hold.
	holdFor        = 8 * time.Second
	holdOn         = 3 * time.Second
	holdScaleUp    = 5 * time.Second
	holdOffAfter   = 14 * time.Second
	holdChurnAfter = 4 * time.Second
	holdSettle     = 40 * time.Second // bound of the wait for the buckets after the scale-up
	holdTimeout    = 4 * time.Minute
)

// TestHeldWrites runs a churn on six lists while the list server holds
// every write for 8 s before it evaluates the write's precondition, so
// that a write sent with a current tag is evaluated seconds later, after
// other writes, a handover or the death of its writer. During the hold a
// fourth replica joins (graceful handovers of the documents whose buckets
// move to it) and then the replica that writes the hot list is killed
// with SIGKILL right after one of its writes committed, so that its next
// write, sent at once and held, is evaluated when the survivors take the
// list over (an ungraceful takeover, with the dead owner's write landing
// afterwards). The hold then ends. At rest
// every list holds exactly the bystanders and the IDs of the live entries,
// and the ledger finds no version with an ID without a holder or without
// the ID of a Synced entry.
func TestHeldWrites(t *testing.T) {
	if suite.cluster == nil {
		t.Skip("end-to-end tests need the control plane, which -short skips")
	}
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), holdTimeout)
	defer cancel()
	e := newEnv(ctx, t, envOptions{namespace: "hold", replicas: holdReplicas, bystanders: holdBystanders,
		latency: time.Millisecond, documents: holdDocs})
	led := e.startLedger(ctx)
	seed := uint64(time.Now().UnixNano())
	t.Logf("setup: %d replicas, %d lists, in %v; churn of %d workers on %d IDs per list with up to %d holders, seed %d",
		holdReplicas, holdDocs, time.Since(began).Round(time.Millisecond), holdWorkers, holdIDs, holdHolders, seed)
	c0, err := harness.ReadCounters(ctx, e.lists, nil)
	if err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	ch := e.newChurn(holdIDs, holdHolders, holdHot)
	ch.noFlash, ch.unchanged = true, true
	churned := make(chan error, 1)
	// The churn runs until endAt is called, once the hold is over.
	go func() { churned <- ch.run(ctx, seed, holdWorkers, holdGap, start.Add(holdTimeout)) }()

	e.sleepOrDie(ctx, start.Add(holdOn))
	if err := e.lists.SetFaults(ctx, fakeapi.Faults{RateHoldWrites: 1, HoldWrites: holdFor}); err != nil {
		t.Fatal(err)
	}
	t.Logf("%v: the list server holds every write for %v", time.Since(start).Round(time.Millisecond), holdFor)

	e.sleepOrDie(ctx, start.Add(holdScaleUp))
	before, err := e.docOwners(ctx, e.managers)
	if err != nil {
		t.Fatal(err)
	}
	added := e.addManager(ctx)
	if err := harness.WaitMembers(ctx, suite.cluster.Client, e.sup, e.namespace, e.managers, membership.DefaultBuckets, holdSettle); err != nil {
		t.Fatal(err)
	}
	after, err := e.docOwners(ctx, e.managers)
	if err != nil {
		t.Fatal(err)
	}
	var moved []string
	for i := range e.docs {
		if before[i] != after[i] {
			moved = append(moved, fmt.Sprintf("%s: %s -> %s", e.docs[i].list.Name, before[i].Name(), after[i].Name()))
		}
	}
	t.Logf("%v: %s joined; the buckets settled with the writes held; lists handed over: %d%s",
		time.Since(start).Round(time.Millisecond), added.Name(), len(moved), harness.IDList(moved))

	victim, survivors, bucket, err := e.listOwner(ctx, e.managers)
	if err != nil {
		t.Fatalf("which replica writes the hot list: %v", err)
	}
	// Killed right after one of its held writes committed, the owner has
	// just sent the next one, which is then evaluated about holdFor after
	// its death: when the survivors take the hot list over.
	if err := e.awaitCommit(ctx, e.list.Path, holdFor+holdFor); err != nil {
		t.Logf("note: no write of the hot list committed: %v", err)
	}
	victim.Kill()
	killed := victim.Signalled()
	t.Logf("%v: %s, the owner of the hot list's bucket %d, killed (SIGKILL) right after a write committed, with its next write held", killed.Sub(start).Round(time.Millisecond), victim.Name(), bucket)

	e.sleepOrDie(ctx, killed.Add(holdOffAfter))
	if _, _, err := e.ownerOf(ctx, bucket, survivors); err != nil {
		t.Errorf("%v after the kill the survivors have not taken the hot list: %v", holdOffAfter, err)
	}
	if err := e.lists.SetFaults(ctx, fakeapi.Faults{}); err != nil {
		t.Fatal(err)
	}
	off := time.Now()
	t.Logf("%v: the hold is over (writes sent before still wait theirs out)", off.Sub(start).Round(time.Millisecond))
	ch.endAt(off.Add(holdChurnAfter))
	if err := <-churned; err != nil {
		t.Fatalf("churn: %v", err)
	}
	ended := time.Now()
	t.Logf("%v: churn over: %s", ended.Sub(start).Round(time.Millisecond), ch.counts())

	e.awaitConverged(ctx, churnConverge)
	t.Logf("at rest %v after the churn", (time.Since(ended) - settle).Round(time.Millisecond))
	e.checkHeldWrites(ctx, c0, killed)
	e.checkMembers(ctx, survivors)
	e.checkLedger(ctx, led)
	e.logLeftoverLease(ctx, victim)
	e.checkBystandersKept(ctx)
	e.checkNoPanics()
	t.Logf("total %v", time.Since(began).Round(time.Millisecond))
}

// awaitCommit waits until a new version of the document at path
// commits, bounded by timeout.
func (e *env) awaitCommit(ctx context.Context, path string, timeout time.Duration) error {
	h, err := e.lists.History(ctx, path)
	if err != nil {
		return err
	}
	n := len(h)
	return harness.Poll(ctx, e.sup, timeout, 20*time.Millisecond, func(ctx context.Context) (bool, error) {
		h, err := e.lists.History(ctx, path)
		return err == nil && len(h) > n, err
	})
}

// docOwners returns the replica, of managers, that writes each of the
// env's lists.
func (e *env) docOwners(ctx context.Context, managers []*harness.Manager) ([]*harness.Manager, error) {
	out := make([]*harness.Manager, len(e.docs))
	for i, d := range e.docs {
		b, err := documentBucket(ctx, d.list.Namespace, d.list.Name)
		if err != nil {
			return nil, err
		}
		if out[i], _, err = e.ownerOf(ctx, b, managers); err != nil {
			return nil, fmt.Errorf("list %s: %w", d.list.Name, err)
		}
	}
	return out, nil
}

// checkHeldWrites checks that the fault held writes, and logs how many
// 412s they met and how many versions of the hot list landed after its
// owner was killed and before a survivor's write could have: the dead
// owner's held writes (the survivors take over killEarliest after the
// kill at the earliest, and their writes are held too).
func (e *env) checkHeldWrites(ctx context.Context, c0 harness.Counters, killed time.Time) {
	e.t.Helper()
	c1, err := harness.ReadCounters(ctx, e.lists, nil)
	if err != nil {
		e.t.Error(err)
		return
	}
	d := c1.Sub(c0)
	held := d.Stats.Faults[fakeapi.FaultHoldWrite]
	if held == 0 {
		e.t.Errorf("the list server held no write: the fault covered nothing")
	}
	h, err := e.fullHistory(ctx, e.list.Path)
	if err != nil {
		e.t.Error(err)
		return
	}
	var late []string
	for _, v := range h {
		if v.Time.After(killed) && v.Time.Sub(killed) < killEarliest+holdFor {
			late = append(late, fmt.Sprintf("%d at +%v", v.Seq, v.Time.Sub(killed).Round(time.Millisecond)))
		}
	}
	e.t.Logf("  %d writes held, %d answered 412, %d commits; versions of the hot list committed after its owner's death, before a survivor could write: %d%s",
		held, d.Stats.Count("PUT", 412), d.Stats.Commits, len(late), harness.IDList(late))
}
