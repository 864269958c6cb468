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
	"github.com/listkeeper/listkeeper/internal/stores"
	"github.com/listkeeper/listkeeper/internal/storetest/wafv2fake"
)

// TestWAFv2ConcurrentReplicas runs three etagclient Clients on the WAFv2
// backend, as three replicas of the operator would, each with 16
// goroutines that add and then remove CIDR blocks of their own in one IP
// set that also holds addresses nobody touches. The first two
// UpdateIPSets are made to overlap (wafv2fake.OverlapFirstUpdates), so a
// WAFOptimisticLockException happens for certain and the engine retries
// from a fresh read. No change may be lost: every Update that returned
// must hold in the set at that moment, the final set must be the
// untouched addresses, in their order, then every block added and not
// removed, and the set's description must never change. Some blocks are
// added as bare addresses, which the backend spells as WAF stores them
// (NormalizeItem); removals name blocks as WAF stores them, as the
// controller submits them (NormalizeCIDR). The run has one deadline,
// stuckAfter.
func TestWAFv2ConcurrentReplicas(t *testing.T) {
	const (
		replicas = 3
		workers  = 16
		blocks   = 6 // per worker; the even ones are removed again
	)
	f := startWAF(t, wafv2fake.WithFaultHook(wafv2fake.OverlapFirstUpdates(overlapPatience)))
	bystanders := []string{wafForeign, "198.51.100.0/24", "203.0.113.128/25"}
	if _, err := f.srv.SetAddresses(wafv2fake.ScopeRegional, f.id, bystanders); err != nil {
		t.Fatal(err)
	}
	stores.SetWAFv2RetryWait(t, time.Millisecond, 5*time.Millisecond)
	factory, _, err := stores.WAFv2Backend(t.Context(), f.spec(), wafAuth, wafKey, stores.Policy{}, true)
	if err != nil {
		t.Fatal(err)
	}
	policy := etagclient.DefaultConflictPolicy
	policy.MaxAttempts = 1000
	policy.MaxElapsedTime = 0
	clients := make([]*etagclient.Client, replicas)
	for i := range clients {
		c, err := etagclient.New("wafv2://"+f.srv.Region()+"/REGIONAL/"+wafSetName+"/"+f.id,
			etagclient.WithBackend(factory),
			etagclient.WithConflictPolicy(policy),
			etagclient.WithBatchInterval(time.Millisecond),
			etagclient.WithTransportRetries(2, time.Millisecond, 5*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		clients[i] = c
	}

	// has reports whether the set holds address right now.
	has := func(address string) bool { return slices.Contains(f.set(t).Addresses, address) }

	var (
		mu       sync.Mutex
		failures []string
		kept     []string // the blocks that must be in the final set
	)
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		failures = append(failures, fmt.Sprintf(format, args...))
	}
	ctx, cancel := context.WithTimeout(t.Context(), stuckAfter)
	defer cancel()
	var wg sync.WaitGroup
	for r := range replicas {
		for w := range workers {
			wg.Go(func() {
				for b := range blocks {
					stored := fmt.Sprintf("10.%d.%d.%d/32", r, w, b)
					id := stored
					if b%3 == 1 {
						id = fmt.Sprintf("10.%d.%d.%d", r, w, b) // a bare address
					}
					if _, err := clients[r].Update(ctx, etagclient.Change{Add: []string{id}}); err != nil {
						fail("add %s: %v", id, err)
						continue
					}
					if !has(stored) {
						fail("add %s returned, and %s is not in the set", id, stored)
					}
					if b%2 == 1 {
						mu.Lock()
						kept = append(kept, stored)
						mu.Unlock()
						continue
					}
					if _, err := clients[r].Update(ctx, etagclient.Change{Remove: []string{stored}}); err != nil {
						fail("remove %s: %v", stored, err)
						continue
					}
					if has(stored) {
						fail("remove %s returned, and it is still in the set", stored)
					}
				}
			})
		}
	}
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatalf("the changes did not finish within %v: the cycle is stuck; %d failed", stuckAfter, len(failures))
	}
	for _, msg := range failures {
		t.Error(msg)
	}

	set := f.set(t)
	if !slices.Equal(set.Addresses[:min(len(bystanders), len(set.Addresses))], bystanders) {
		t.Errorf("the untouched addresses are not first and in order: %v", set.Addresses[:min(5, len(set.Addresses))])
	}
	got := slices.Sorted(slices.Values(set.Addresses[min(len(bystanders), len(set.Addresses)):]))
	slices.Sort(kept)
	if !slices.Equal(got, kept) {
		t.Errorf("the set holds %d blocks besides the untouched ones, want the %d kept ones", len(got), len(kept))
	}
	if set.Description != wafDescription || set.IPAddressVersion != wafv2fake.IPv4 {
		t.Errorf("description %q, version %s: the set's other fields changed", set.Description, set.IPAddressVersion)
	}

	st := f.srv.Stats()
	t.Logf("WAF: %d GetIPSet, %d UpdateIPSet committed, %d WAFOptimisticLockException",
		st.Operations(wafv2fake.OpGetIPSet), st.Succeeded(wafv2fake.OpUpdateIPSet), st.CountCode("WAFOptimisticLockException"))
	if st.CountCode("WAFOptimisticLockException") == 0 {
		t.Error("no UpdateIPSet lost to another: no two writes raced, so the case did not test what it names")
	}
}

// TestWAFv2EngineFence: the engine's fence reaches the SDK's requests. A
// change whose writer's right ends right before its UpdateIPSet goes out
// fails with ErrFenced, and WAF never sees the update: the write's context
// travels through the SDK to the engine's HTTP client, which refuses it,
// and the backend hands the fence's error back as the cause.
func TestWAFv2EngineFence(t *testing.T) {
	f := startWAF(t)
	stores.SetWAFv2RetryWait(t, time.Millisecond, time.Millisecond)
	factory, _, err := stores.WAFv2Backend(t.Context(), f.spec(), wafAuth, wafKey, stores.Policy{}, true)
	if err != nil {
		t.Fatal(err)
	}
	c, err := etagclient.New("wafv2://"+f.srv.Region()+"/REGIONAL/"+wafSetName+"/"+f.id,
		etagclient.WithBackend(factory), etagclient.WithBatchInterval(0),
		etagclient.WithTransportRetries(3, time.Millisecond, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	// The right holds when the engine asks before it computes the write,
	// and has ended when the request is about to leave.
	var asked atomic.Int64
	owns := func() bool { return asked.Add(1) == 1 }
	p, err := c.SubmitFenced(etagclient.Change{Add: []string{"203.0.113.9/32"}}, owns, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), stuckAfter)
	defer cancel()
	select {
	case <-p.Done():
	case <-ctx.Done():
		t.Fatal("the fenced change did not finish")
	}
	if _, err := p.Result(); !errors.Is(err, etagclient.ErrFenced) {
		t.Fatalf("err = %v, want ErrFenced", err)
	}
	if n := f.srv.Stats().Operations(wafv2fake.OpUpdateIPSet); n != 0 {
		t.Errorf("%d UpdateIPSet requests reached WAF after the right ended", n)
	}
	if slices.Contains(f.set(t).Addresses, "203.0.113.9/32") {
		t.Error("the fenced change landed")
	}
}

const (
	// stuckAfter is how long the concurrency test may run before it is
	// failed as stuck. A run takes seconds; the margin is for slow,
	// shared machines.
	stuckAfter = 60 * time.Second
	// overlapPatience is how long wafv2fake.OverlapFirstUpdates holds the
	// first update for a second one: far more than the second needs, and
	// less than the engine's request timeout, so that an update left
	// alone is late but answered.
	overlapPatience = etagclient.DefaultRequestTimeout / 2
)
