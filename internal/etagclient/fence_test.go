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

package etagclient_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// TestFencedChangeIsNotReappliedAfterALostWrite: a change submitted with
// SubmitFenced whose owner gave it up while its write was in flight is not
// applied again after that write lost (412): a zombie replica must not
// write for a bucket it no longer owns. A change whose owner still holds it
// is retried as usual.
func TestFencedChangeIsNotReappliedAfterALostWrite(t *testing.T) {
	for _, stillOwned := range []bool{false, true} {
		name := map[bool]string{false: "owner gave it up: ErrFenced, no second PUT", true: "still owned: retried and committed"}[stillOwned]
		t.Run(name, func(t *testing.T) {
			var owned atomic.Bool
			owned.Store(true)
			srv := startListServer(t, `["a"]`, func(s *listServer, w http.ResponseWriter, r *http.Request, nth int) bool {
				if r.Method != http.MethodPut || nth > 1 {
					return false
				}
				// The first write loses to another writer, and meanwhile
				// the bucket moves away (or does not).
				s.otherWriter(nil)
				owned.Store(stillOwned)
				w.WriteHeader(http.StatusPreconditionFailed)
				return true
			})
			c, _ := ownedClient(t, srv.url(), etagclient.WithConflictPolicy(tinyPolicy(10)), noTransportRetries)
			p, err := c.SubmitFenced(etagclient.Change{Add: []string{"x"}}, owned.Load, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = waitDone(t, "fenced add", p)
			if stillOwned {
				if err != nil {
					t.Fatalf("err = %v, want the change committed after the 412", err)
				}
				if got := srv.stored(); got != `["a","x"]` {
					t.Fatalf("stored %s, want [\"a\",\"x\"]", got)
				}
				return
			}
			if !errors.Is(err, etagclient.ErrFenced) {
				t.Fatalf("err = %v, want ErrFenced", err)
			}
			if n := srv.count(http.MethodPut); n != 1 {
				t.Fatalf("%d PUTs, want 1: the fenced change was written again", n)
			}
			if got := srv.stored(); got != `["a"]` {
				t.Fatalf("stored %s, want the list untouched", got)
			}
		})
	}
}

// TestFencedChangeIsNotWrittenOnceOwnershipEnded: the fence is asked before
// the first write too. A change that waited (in the queue, behind the
// batch interval) while its caller lost the right to make it fails with
// ErrFenced and is never sent; a change that already holds on the read is
// done, since nothing needs writing.
func TestFencedChangeIsNotWrittenOnceOwnershipEnded(t *testing.T) {
	srv := startListServer(t, `["a"]`, nil)
	c, _ := ownedClient(t, srv.url(), noTransportRetries)
	var owned atomic.Bool // false from the start: the change waited too long
	p, err := c.SubmitFenced(etagclient.Change{Add: []string{"x"}}, owned.Load, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := waitDone(t, "fenced add", p); !errors.Is(err, etagclient.ErrFenced) {
		t.Fatalf("err = %v, want ErrFenced", err)
	}
	if n := srv.count(http.MethodPut); n != 0 {
		t.Fatalf("%d PUTs, want none: a fenced change was written", n)
	}
	held, err := c.SubmitFenced(etagclient.Change{Add: []string{"a"}}, owned.Load, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := waitDone(t, "add that already holds", held); err != nil {
		t.Fatalf("err = %v, want nil: the ID is already on the list", err)
	}
	if got := srv.stored(); got != `["a"]` {
		t.Fatalf("stored %s, want the list untouched", got)
	}
}

// TestWriteErrorsCountCycles: the write outcomes count cycles, so that
// listkeeper_list_writes_total{result="error"} over all results is a share
// of cycles. A cycle whose many changes all run out of conflict retries is
// one error, and a fenced change (its bucket moved) is none.
func TestWriteErrorsCountCycles(t *testing.T) {
	srv := startListServer(t, `[]`, func(s *listServer, w http.ResponseWriter, r *http.Request, _ int) bool {
		if r.Method != http.MethodPut {
			return false
		}
		s.otherWriter(nil) // every write loses to another writer
		w.WriteHeader(http.StatusPreconditionFailed)
		return true
	})
	var obs etagclient.Counters
	c, _ := ownedClient(t, srv.url(), etagclient.WithConflictPolicy(tinyPolicy(2)), noTransportRetries,
		etagclient.WithObserver(&obs), etagclient.WithBatchInterval(50*time.Millisecond))
	var fenced atomic.Bool
	fenced.Store(true)
	var pending []*etagclient.Pending
	for i := range 10 {
		p, err := c.SubmitFenced(etagclient.Change{Add: []string{fmt.Sprintf("id-%d", i)}}, func() bool { return true }, nil)
		if err != nil {
			t.Fatal(err)
		}
		pending = append(pending, p)
	}
	for _, p := range pending {
		if _, err := waitDone(t, "add", p); !errors.Is(err, etagclient.ErrConflictRetriesExhausted) {
			t.Fatalf("err = %v, want ErrConflictRetriesExhausted", err)
		}
	}
	if batches, errs := obs.Batches.Load(), obs.Errors.Load(); errs < 1 || errs > batches/2 {
		t.Fatalf("%d errors for %d PUTs of 10 changes that ran out in 2 attempts each: want one per failed cycle", errs, batches)
	}
	before := obs.Errors.Load()
	p, err := c.SubmitFenced(etagclient.Change{Add: []string{"moved"}}, func() bool { return !fenced.Load() }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := waitDone(t, "fenced add", p); !errors.Is(err, etagclient.ErrFenced) {
		t.Fatalf("err = %v, want ErrFenced", err)
	}
	if n := obs.Errors.Load() - before; n != 0 {
		t.Fatalf("a fenced change counted %d write errors, want 0", n)
	}
}

// TestTransportRetryAsksTheFence: a PUT answered 503 with Retry-After is
// sent again by the transport after the wait, inside one attempt of the
// cycle. When the change's owner gave it up during that wait, the second
// PUT must not go out: every attempt, transport retries included, asks
// right before it is sent.
func TestTransportRetryAsksTheFence(t *testing.T) {
	var owned atomic.Bool
	owned.Store(true)
	srv := startListServer(t, `["a"]`, func(s *listServer, w http.ResponseWriter, r *http.Request, nth int) bool {
		if r.Method != http.MethodPut || nth > 1 {
			return false
		}
		// The server is busy; meanwhile the bucket moves away.
		time.AfterFunc(100*time.Millisecond, func() { owned.Store(false) })
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
		return true
	})
	c, _ := ownedClient(t, srv.url(), etagclient.WithClock(realClock{}), etagclient.WithMaxRetryAfter(500*time.Millisecond),
		etagclient.WithTransportRetries(3, 10*time.Millisecond, time.Second))
	p, err := c.SubmitFenced(etagclient.Change{Add: []string{"x"}}, owned.Load, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = waitDone(t, "fenced add", p)
	if n := srv.count(http.MethodPut); n != 1 {
		t.Fatalf("%d PUTs reached the server, want 1: the transport's retry after Retry-After did not ask the fence", n)
	}
	if !errors.Is(err, etagclient.ErrFenced) {
		t.Fatalf("err = %v, want ErrFenced", err)
	}
	if got := srv.stored(); got != `["a"]` {
		t.Fatalf("stored %s, want the list untouched", got)
	}
}

// testFence is an etagclient.Fence whose right either is renewed on every
// call (renew > 0: it ends renew after the call) or ends at a fixed time.
type testFence struct {
	renew       time.Duration
	until       time.Time
	settleAfter time.Time
}

func (f *testFence) Until() (time.Time, bool) {
	if f.renew > 0 {
		return time.Now().Add(f.renew), true
	}
	return f.until, time.Now().Before(f.until)
}

func (f *testFence) SettleAfter() time.Time { return f.settleAfter }

// holdPUTs returns a hook that holds the first held PUTs for hold before the
// server evaluates their precondition, as a slow server or a proxy would.
func holdPUTs(held int, hold time.Duration) listHook {
	return func(_ *listServer, _ http.ResponseWriter, r *http.Request, nth int) bool {
		if r.Method == http.MethodPut && nth <= held {
			time.Sleep(hold)
		}
		return false
	}
}

// TestWriteEndsWithItsRight: a write in flight is cut off when its writer's
// right ends (the attempt's context is canceled then, not after the request
// timeout), and the change fails with ErrFenced; while the right is
// renewed, a slow write goes on and commits.
func TestWriteEndsWithItsRight(t *testing.T) {
	const hold = 1500 * time.Millisecond
	t.Run("right ends during a slow PUT: cut off with ErrFenced", func(t *testing.T) {
		srv := startListServer(t, `["a"]`, holdPUTs(1, hold))
		f := &testFence{until: time.Now().Add(300 * time.Millisecond)}
		c, _ := ownedClient(t, srv.url(), etagclient.WithClock(realClock{}), etagclient.WithFence(f),
			etagclient.WithRequestTimeout(10*time.Second), noTransportRetries)
		start := time.Now()
		_, err := c.Update(t.Context(), etagclient.Change{Add: []string{"x"}})
		took := time.Since(start)
		if !errors.Is(err, etagclient.ErrFenced) {
			t.Fatalf("err = %v, want ErrFenced", err)
		}
		if took > hold-200*time.Millisecond {
			t.Fatalf("the write ended %v after it began, want it cut off at the end of the right (300ms), well before the server answered (%v)", took, hold)
		}
		if n := srv.count(http.MethodPut); n != 1 {
			t.Fatalf("%d PUTs, want 1: a write must not be tried again once its right ended", n)
		}
	})
	t.Run("right renewed during a slow PUT: committed", func(t *testing.T) {
		srv := startListServer(t, `["a"]`, holdPUTs(1, hold))
		c, _ := ownedClient(t, srv.url(), etagclient.WithClock(realClock{}), etagclient.WithFence(&testFence{renew: 300 * time.Millisecond}),
			etagclient.WithRequestTimeout(10*time.Second), noTransportRetries)
		if _, err := c.Update(t.Context(), etagclient.Change{Add: []string{"x"}}); err != nil {
			t.Fatalf("err = %v, want the write committed: its right was renewed all along", err)
		}
		if got := srv.stored(); got != `["a","x"]` {
			t.Fatalf("stored %s", got)
		}
	})
	t.Run("right ended before the change was written: nothing sent", func(t *testing.T) {
		srv := startListServer(t, `["a"]`, nil)
		c, _ := ownedClient(t, srv.url(), etagclient.WithClock(realClock{}), etagclient.WithFence(&testFence{until: time.Now().Add(-time.Second)}),
			noTransportRetries)
		if _, err := c.Update(t.Context(), etagclient.Change{Add: []string{"x"}}); !errors.Is(err, etagclient.ErrFenced) {
			t.Fatalf("err = %v, want ErrFenced", err)
		}
		if n := srv.count(http.MethodPut); n != 0 {
			t.Fatalf("%d PUTs, want none", n)
		}
		snap, err := c.Read(t.Context())
		if err != nil || !slices.Equal(snap.Items, []string{"a"}) {
			t.Fatalf("Read = %v, %v: a closed fence must not stop reads", snap.Items, err)
		}
	})
}

// TestNoSettleBeforeTheLastLateWrite: the old owner of a document sent
// "remove x" just before it lost its right, and a slow server holds that
// PUT. The new owner's "add x" finds x on the list. Settled on that read
// (nothing to write), the add is undone when the held removal lands with
// the ETag that is still current, and x stays off while its holder is told
// it is on. With SettleAfter past the old owner's last possible write, the
// add waits, reads again and puts x back. The first case is the control:
// it shows the race happened.
func TestNoSettleBeforeTheLastLateWrite(t *testing.T) {
	for _, guarded := range []bool{false, true} {
		name := map[bool]string{false: "settled at once (control): x lost", true: "settles after SettleAfter: x kept"}[guarded]
		t.Run(name, func(t *testing.T) {
			const hold = 600 * time.Millisecond
			srv := startListServer(t, `["a","x"]`, holdPUTs(1, hold))
			old, _ := ownedClient(t, srv.url(), etagclient.WithClock(realClock{}), noTransportRetries,
				etagclient.WithRequestTimeout(5*time.Second))
			removing := make(chan error, 1)
			go func() {
				_, err := old.Update(context.Background(), etagclient.Change{Remove: []string{"x"}})
				removing <- err
			}()
			// The removal's PUT is held by the server.
			deadline := time.Now().Add(2 * time.Second)
			for srv.count(http.MethodPut) == 0 && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			f := &testFence{renew: time.Minute}
			if guarded {
				f.settleAfter = time.Now().Add(hold + 300*time.Millisecond)
			}
			next, _ := ownedClient(t, srv.url(), etagclient.WithClock(realClock{}), etagclient.WithFence(f), noTransportRetries)
			res, err := next.Update(t.Context(), etagclient.Change{Add: []string{"x"}})
			if err != nil {
				t.Fatal(err)
			}
			if err := <-removing; err != nil {
				t.Fatalf("the old owner's removal: %v", err)
			}
			got := srv.stored()
			if !guarded {
				if got != `["a"]` || res.Written {
					t.Fatalf("control: stored %s, add written %v; want the add settled on its read and x removed by the late write", got, res.Written)
				}
				return
			}
			if got != `["a","x"]` || !res.Written {
				t.Fatalf("stored %s, add written %v: want x put back after the late removal landed", got, res.Written)
			}
		})
	}
}

// TestReconfigureKeepsOrder: new credentials (a rotated header) take effect
// at the next cycle; the cycle in flight finishes with the old ones, and a
// change submitted after the switch still takes effect after the one
// before it: the Client, and its queue, stay the same.
func TestReconfigureKeepsOrder(t *testing.T) {
	srv := startListServer(t, `["a","x"]`, holdPUTs(1, 300*time.Millisecond))
	opts := func(token string) []etagclient.Option {
		return []etagclient.Option{etagclient.WithClock(realClock{}), noTransportRetries,
			etagclient.WithHeaders(http.Header{"Authorization": {"Bearer " + token}})}
	}
	c, _ := ownedClient(t, srv.url(), opts("old")...)
	removal, err := c.Submit(etagclient.Change{Remove: []string{"x"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for srv.count(http.MethodPut) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if err := c.Reconfigure(srv.url(), opts("new")...); err != nil {
		t.Fatal(err)
	}
	add, err := c.Submit(etagclient.Change{Add: []string{"x"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := waitDone(t, "removal", removal); err != nil {
		t.Fatal(err)
	}
	if _, err := waitDone(t, "add", add); err != nil {
		t.Fatal(err)
	}
	if got := srv.stored(); got != `["a","x"]` {
		t.Fatalf("stored %s, want x back: the add was submitted after the removal", got)
	}
	var auth []string
	for _, r := range srv.requests() {
		if r.Method == http.MethodPut {
			auth = append(auth, r.Header.Get("Authorization"))
		}
	}
	if want := []string{"Bearer old", "Bearer new"}; !slices.Equal(auth, want) {
		t.Fatalf("PUTs carried %q, want %q", auth, want)
	}
	if err := c.Reconfigure(srv.url(), append(opts("new"), etagclient.WithItemsPointer("/items"))...); err == nil {
		t.Fatal("Reconfigure accepted another items pointer")
	}
}

// TestCheckedChangeIsAskedBeforeEachWrite: a change submitted with
// SubmitChecked is asked, right before each write that would carry it,
// whether it is still wanted. A removal whose check fails after its first
// write lost (412) is withdrawn with the check's error and never sent
// again, while the other changes of its batch go on; one whose check
// passes is retried and lands.
func TestCheckedChangeIsAskedBeforeEachWrite(t *testing.T) {
	errUnwanted := errors.New("another holder appeared")
	for _, wanted := range []bool{false, true} {
		name := map[bool]string{false: "withdrawn after the 412", true: "still wanted: retried and committed"}[wanted]
		t.Run(name, func(t *testing.T) {
			var asked atomic.Int32
			var ok atomic.Bool
			ok.Store(true)
			srv := startListServer(t, `["a","x"]`, func(s *listServer, w http.ResponseWriter, r *http.Request, nth int) bool {
				if r.Method != http.MethodPut || nth > 1 {
					return false
				}
				s.otherWriter(nil)
				ok.Store(wanted)
				w.WriteHeader(http.StatusPreconditionFailed)
				return true
			})
			c, _ := ownedClient(t, srv.url(), etagclient.WithConflictPolicy(tinyPolicy(10)), noTransportRetries)
			check := func(*etagclient.CheckRound) error {
				asked.Add(1)
				if !ok.Load() {
					return errUnwanted
				}
				return nil
			}
			removal, err := c.SubmitChecked(etagclient.Change{Remove: []string{"x"}}, nil, check, nil)
			if err != nil {
				t.Fatal(err)
			}
			add, err := c.Submit(etagclient.Change{Add: []string{"b"}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, rerr := waitDone(t, "checked removal", removal)
			if _, err := waitDone(t, "add", add); err != nil {
				t.Fatalf("the add of the same batch failed: %v", err)
			}
			if n := asked.Load(); n < 2 {
				t.Fatalf("the check was asked %d times, want once before each of the 2 writes", n)
			}
			if wanted {
				if rerr != nil {
					t.Fatalf("err = %v, want the removal committed", rerr)
				}
				if got := srv.stored(); got != `["a","b"]` {
					t.Fatalf("stored %s, want [\"a\",\"b\"]", got)
				}
				return
			}
			if !errors.Is(rerr, errUnwanted) {
				t.Fatalf("err = %v, want the check's error", rerr)
			}
			if got := srv.stored(); got != `["a","x","b"]` {
				t.Fatalf("stored %s, want x kept and b added", got)
			}
		})
	}
}

// TestChecksOfABatchShareOneRead: the checks of the changes that ride in
// one batch are asked in one CheckRound, and those that share a read
// through it read once; the next batch's checks read again.
func TestChecksOfABatchShareOneRead(t *testing.T) {
	const n = 20
	firstGet := make(chan struct{})
	release := make(chan struct{})
	var gets atomic.Int32
	srv := startListServer(t, `["a"]`, func(s *listServer, w http.ResponseWriter, r *http.Request, nth int) bool {
		if r.Method == http.MethodGet && gets.Add(1) == 1 {
			close(firstGet)
			<-release
		}
		return false
	})
	c, _ := ownedClient(t, srv.url(), noTransportRetries)
	var mu sync.Mutex
	perRound := map[*etagclient.CheckRound]int{}
	reads := map[*etagclient.CheckRound]int{}
	check := func(round *etagclient.CheckRound) error {
		v, err := round.Share("holders", func() (any, error) {
			mu.Lock()
			defer mu.Unlock()
			reads[round]++
			return round, nil
		})
		if err != nil {
			return err
		}
		if v.(*etagclient.CheckRound) != round {
			return fmt.Errorf("a check got the read of another round")
		}
		mu.Lock()
		defer mu.Unlock()
		perRound[round]++
		return nil
	}
	// The first removal's batch holds the client in its read until the
	// others are queued: they ride in the next batch together.
	first, err := c.SubmitChecked(etagclient.Change{Remove: []string{"id-0"}}, nil, check, nil)
	if err != nil {
		t.Fatal(err)
	}
	<-firstGet
	var rest []*etagclient.Pending
	for i := 1; i < n; i++ {
		p, err := c.SubmitChecked(etagclient.Change{Remove: []string{fmt.Sprintf("id-%d", i)}}, nil, check, nil)
		if err != nil {
			t.Fatal(err)
		}
		rest = append(rest, p)
	}
	close(release)
	for i, p := range append([]*etagclient.Pending{first}, rest...) {
		if _, err := waitDone(t, fmt.Sprintf("removal %d", i), p); err != nil {
			t.Fatalf("removal %d: %v", i, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	checks, most := 0, 0
	for round, k := range perRound {
		checks += k
		most = max(most, k)
		if reads[round] != 1 {
			t.Errorf("a round of %d checks read %d times, want once", k, reads[round])
		}
	}
	if checks < n {
		t.Errorf("%d checks were asked for %d changes, want one at least for each", checks, n)
	}
	if most < n-1 {
		t.Errorf("the largest round asked %d checks, want the %d changes queued behind the first together (rounds: %v)", most, n-1, perRound)
	}
}

// TestCheckRoundShare: Share reads once per key, whoever asks and when,
// gives a failed read's error to every asker, and on a nil round reads
// every time.
func TestCheckRoundShare(t *testing.T) {
	round := &etagclient.CheckRound{}
	var reads atomic.Int32
	gate := make(chan struct{})
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			v, err := round.Share("k", func() (any, error) {
				reads.Add(1)
				<-gate
				return 42, nil
			})
			if err != nil || v.(int) != 42 {
				t.Errorf("Share = %v, %v, want 42", v, err)
			}
		})
	}
	time.Sleep(10 * time.Millisecond)
	close(gate)
	wg.Wait()
	if v, _ := round.Share("k", func() (any, error) { reads.Add(1); return 0, nil }); v.(int) != 42 {
		t.Errorf("a later Share read again: %v", v)
	}
	if n := reads.Load(); n != 1 {
		t.Errorf("10 concurrent Shares and a later one read %d times, want once", n)
	}
	boom := errors.New("boom")
	if _, err := round.Share("other", func() (any, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Errorf("err = %v, want the read's", err)
	}
	if _, err := round.Share("other", func() (any, error) { return 1, nil }); !errors.Is(err, boom) {
		t.Errorf("err = %v, want the shared read's error", err)
	}
	var none *etagclient.CheckRound
	for range 2 {
		if _, err := none.Share("k", func() (any, error) { reads.Add(1); return 1, nil }); err != nil {
			t.Fatal(err)
		}
	}
	if n := reads.Load(); n != 3 {
		t.Errorf("a nil round read %d times in 2 Shares, want 2", n-1)
	}
}
