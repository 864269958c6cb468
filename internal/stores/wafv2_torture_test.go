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
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/stores"
	"github.com/listkeeper/listkeeper/internal/storetest/wafv2fake"
)

// TestWAFv2Torture runs the engine's fault torture on the WAFv2 backend:
// three Clients, as three replicas of the operator, 16 goroutines each,
// on one IP set, through aws-sdk-go-v2's wafv2 client against the fake,
// while the fault hook fails tortureFaultRate of the requests with
// ThrottlingException, WAFUnavailableEntityException, 503
// ServiceUnavailable, 500 InternalFailure, a connection dropped before
// the operation runs, or one dropped after it ran (an update that landed
// without its client knowing). A quarter of the calls that meet a fault
// meet one at every attempt, so that some faults outlast the SDK's
// retries: a write's outcome stays unknown to the engine, which must
// settle it with a read, or a change fails with ErrUnreachable, and its
// goroutine submits it again, as the controller would. The first two
// UpdateIPSets are held until both have arrived and are spared the
// faults, so that one is lost to the other (WAFOptimisticLockException)
// for certain.
//
// No acknowledged change may be lost (see tortureRun.run): each holds in
// the set when it returns, the set ends as the untouched addresses, in
// their order, then exactly the blocks the changes leave, and the set's
// description and address version never change. The test fails unless
// every fault kind was injected, a write landed unknown to its client, the
// engine settled an unknown outcome (Counters.Ambiguous) and a change
// failed for a while. The cases differ in the SDK's retries: none, where
// every fault reaches the engine, and two, the engine's default.
func TestWAFv2Torture(t *testing.T) {
	for _, tc := range []struct {
		name    string
		retries int
	}{
		{"no SDK retries", 0},
		{"two SDK retries", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seed := tortureSeed(t)
			t.Logf("seed %d (%s=%d replays its fault plan)", seed, tortureSeedEnv, seed)
			faults := newWAFFaults(seed)
			f := startWAF(t, wafv2fake.WithFaultHook(faults.hook), wafv2fake.WithUpdateHook(faults.updated))
			ids := wafTortureIDs()
			bystanders := []string{wafForeign, "198.51.100.0/24", "203.0.113.128/25"}
			if _, err := f.srv.SetAddresses(wafv2fake.ScopeRegional, f.id, append(slices.Clone(bystanders), ids.leavers...)); err != nil {
				t.Fatal(err)
			}
			stores.SetWAFv2RetryWait(t, time.Millisecond, 5*time.Millisecond)
			factory, _, err := stores.WAFv2Backend(t.Context(), f.spec(), wafAuth, wafKey, stores.Policy{}, true)
			if err != nil {
				t.Fatal(err)
			}
			policy := etagclient.DefaultConflictPolicy
			policy.MaxAttempts, policy.MaxElapsedTime = 1000, 0
			run := &tortureRun{ids: ids, holds: func(id string) bool {
				set, _ := f.srv.IPSet(wafv2fake.ScopeRegional, f.id) // not f.set: t.Fatal is for the test's goroutine
				return slices.Contains(set.Addresses, id)
			}}
			obs := make([]*etagclient.Counters, tortureReplicas)
			for i := range tortureReplicas {
				obs[i] = new(etagclient.Counters)
				c, err := etagclient.New("wafv2://"+f.srv.Region()+"/REGIONAL/"+wafSetName+"/"+f.id,
					etagclient.WithBackend(factory),
					etagclient.WithConflictPolicy(policy),
					etagclient.WithBatchInterval(time.Millisecond),
					etagclient.WithTransportRetries(tc.retries, time.Millisecond, 5*time.Millisecond),
					etagclient.WithObserver(obs[i]))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(c.Close)
				run.clients = append(run.clients, c)
			}

			ctx, cancel := context.WithTimeout(t.Context(), tortureDeadline)
			defer cancel()
			began := time.Now()
			if !run.run(ctx, t) {
				return
			}
			elapsed := time.Since(began)

			set := f.set(t)
			run.checkFinal(t, set.Addresses, bystanders)
			if set.Description != wafDescription || set.IPAddressVersion != wafv2fake.IPv4 {
				t.Errorf("description %q, version %s: the set's other fields changed", set.Description, set.IPAddressVersion)
			}

			st := f.srv.Stats()
			sum := sumCounters(obs)
			landed := faults.landed.Load()
			t.Logf("%v: %d requests (%d GetIPSet, %d UpdateIPSet), %d updates landed, %d of them unanswered; %d WAFOptimisticLockException",
				elapsed.Round(time.Millisecond), st.Total, st.Operations(wafv2fake.OpGetIPSet), st.Operations(wafv2fake.OpUpdateIPSet),
				landed, faults.landedUnanswered.Load(), st.CountCode("WAFOptimisticLockException"))
			t.Logf("clients: %d writes committed, %d lost, %d unknown then settled by a read, %d failed cycles, %d changes acknowledged, %d resubmitted after ErrUnreachable",
				sum.written, sum.conflicts, sum.ambiguous, sum.errs, sum.committed, run.transient.Load())
			t.Logf("faults: %s; %d calls failed at every attempt", faults.dice.summary(), faults.outages.Load())

			for _, code := range []string{"ThrottlingException", "WAFUnavailableEntityException", "ServiceUnavailable", "InternalFailure"} {
				if st.CountCode(code) == 0 {
					t.Errorf("the fake answered no %s", code)
				}
			}
			if st.Count(wafv2fake.OpUpdateIPSet, 0) == 0 || faults.dice.count(faultDropBefore, wafv2fake.OpUpdateIPSet) == 0 {
				t.Errorf("the fake dropped %d UpdateIPSet connections, %d of them before the update ran: want some",
					st.Count(wafv2fake.OpUpdateIPSet, 0), faults.dice.count(faultDropBefore, wafv2fake.OpUpdateIPSet))
			}
			if faults.landedUnanswered.Load() == 0 {
				t.Error("no UpdateIPSet landed with its answer dropped")
			}
			if st.CountCode("WAFOptimisticLockException") == 0 {
				t.Error("no UpdateIPSet lost to another: the replicas did not race")
			}
			run.checkEngine(t, sum, landed)
		})
	}
}

// wafOutageRate is the share of the SDK calls meeting a fault that meet
// one at every attempt.
const wafOutageRate = 0.25

// wafFaults is the fault hook and the update hook of the WAFv2 torture. It
// is safe for concurrent use.
type wafFaults struct {
	dice *faultDice
	// overlap holds the first of the first two UpdateIPSets until the
	// second has arrived.
	overlap wafv2fake.FaultHook
	updates atomic.Int32

	mu sync.Mutex
	// failing are the SDK calls (by Amz-Sdk-Invocation-Id, which every
	// attempt of one call carries) whose every attempt fails.
	failing map[string]bool
	outages atomic.Int64

	// dropped are the requests whose answer is dropped after they ran.
	dropped sync.Map // *http.Request -> struct{}
	// landed counts the updates that committed, landedUnanswered those of
	// them whose answer was dropped.
	landed, landedUnanswered atomic.Int64
}

func newWAFFaults(seed uint64) *wafFaults {
	return &wafFaults{
		dice: newFaultDice(seed, tortureFaultRate,
			faultThrottled, faultPropagating, faultUnavailable, faultInternal, faultDropBefore, faultDropAfter),
		overlap: wafv2fake.OverlapFirstUpdates(overlapPatience),
		failing: map[string]bool{},
	}
}

// hook is the wafv2fake.FaultHook.
func (w *wafFaults) hook(op string, r *http.Request) *wafv2fake.Error {
	if op == wafv2fake.OpUpdateIPSet && w.updates.Add(1) <= 2 {
		return w.overlap(op, r)
	}
	call := r.Header.Get("Amz-Sdk-Invocation-Id")
	w.mu.Lock()
	must := w.failing[call]
	w.mu.Unlock()
	kind, ok := w.dice.roll(op, must)
	if !ok {
		return nil
	}
	if !must && call != "" && w.dice.chance(wafOutageRate) {
		w.mu.Lock()
		w.failing[call] = true
		w.mu.Unlock()
		w.outages.Add(1)
	}
	switch kind {
	case faultThrottled:
		return wafv2fake.Throttling()
	case faultPropagating:
		return wafv2fake.UnavailableEntity()
	case faultUnavailable:
		return wafv2fake.ServiceUnavailable()
	case faultInternal:
		return wafv2fake.InternalFailure()
	case faultDropBefore:
		return wafv2fake.DropConnection()
	case faultDropAfter:
		w.dropped.Store(r, struct{}{})
		return wafv2fake.DropAnswer()
	}
	panic(fmt.Sprintf("unknown fault %q", kind))
}

// updated is the wafv2fake.UpdateHook: it runs for an update whose lock
// token matched, which is about to commit.
func (w *wafFaults) updated(r *http.Request) {
	w.landed.Add(1)
	if _, ok := w.dropped.Load(r); ok {
		w.landedUnanswered.Add(1)
	}
}

// wafTortureIDs are the blocks of the WAFv2 torture. A third of a
// goroutine's own blocks are submitted as bare addresses, which the
// engine spells as WAF stores them; relays, shared blocks and leavers are
// submitted as stored.
func wafTortureIDs() tortureIDs {
	ids := tortureIDs{
		own: func(r, w, k int) (string, string) {
			stored := fmt.Sprintf("10.%d.%d.%d/32", r, w, k)
			if k%3 == 1 {
				return fmt.Sprintf("10.%d.%d.%d", r, w, k), stored
			}
			return stored, stored
		},
		relay: func(r, w, end int) string { return fmt.Sprintf("172.%d.%d.%d/32", 16+end, r, w) },
	}
	for i := range tortureWorkers {
		ids.shared = append(ids.shared, fmt.Sprintf("100.64.%d.0/24", i))
		ids.leavers = append(ids.leavers, fmt.Sprintf("198.18.%d.0/24", i))
	}
	return ids
}
