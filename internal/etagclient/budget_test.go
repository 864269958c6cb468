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
	"sync"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// TestBudgetFIFO: a large reservation queued first is served before a
// small one queued after it, even though the small one would fit at once:
// small reads must not starve a large one forever.
func TestBudgetFIFO(t *testing.T) {
	b := etagclient.NewBudget(10)
	if err := b.Acquire(t.Context(), 8); err != nil {
		t.Fatal(err)
	}
	order := make(chan string, 2)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := b.Acquire(t.Context(), 6); err != nil {
			t.Error(err)
		}
		order <- "large"
	}()
	waitUntil(t, func() bool { return etagclient.BudgetWaiters(b) == 1 })
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := b.Acquire(t.Context(), 1); err != nil {
			t.Error(err)
		}
		order <- "small"
	}()
	waitUntil(t, func() bool { return etagclient.BudgetWaiters(b) == 2 })
	select {
	case who := <-order:
		t.Fatalf("%s was served while the budget was full for the large one", who)
	case <-time.After(50 * time.Millisecond):
	}
	// Room for the large one, not for both: the large one goes first.
	b.Release(4)
	if who := <-order; who != "large" {
		t.Fatalf("served %s first, want large", who)
	}
	b.Release(4)
	wg.Wait()
	if who := <-order; who != "small" {
		t.Errorf("served %s second, want small", who)
	}
	if hw := b.HighWater(); hw > b.Limit() {
		t.Errorf("high-water mark %d over the limit %d", hw, b.Limit())
	}
}

// TestBudgetOverWhole: a reservation larger than the whole budget fails at
// once with ErrMemoryBudget instead of waiting forever.
func TestBudgetOverWhole(t *testing.T) {
	b := etagclient.NewBudget(10)
	start := time.Now()
	err := b.Acquire(context.Background(), 11)
	if !errors.Is(err, etagclient.ErrMemoryBudget) {
		t.Fatalf("err = %v, want ErrMemoryBudget", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v to fail", d)
	}
}

// TestBudgetWaitBounded: a reservation that does not get room before its
// context ends fails with ErrMemoryBudget, and leaves the queue, so the
// ones behind it are served.
func TestBudgetWaitBounded(t *testing.T) {
	b := etagclient.NewBudget(10)
	if err := b.Acquire(t.Context(), 5); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	if err := b.Acquire(ctx, 6); !errors.Is(err, etagclient.ErrMemoryBudget) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want ErrMemoryBudget after the deadline", err)
	}
	if err := b.Acquire(t.Context(), 5); err != nil {
		t.Fatalf("after the waiter left: %v", err)
	}
	if got := b.Reserved(); got != 10 {
		t.Errorf("reserved %d, want 10", got)
	}
}

// TestBudgetConcurrentReads: with a budget of about two documents, eight
// clients reading eight lists at the cap at once all get their lists,
// taking turns: the bytes reserved never pass the budget, and idle
// clients' cached documents are evicted to make room.
func TestBudgetConcurrentReads(t *testing.T) {
	const lists = 8
	e := startFake(t)
	doc := idArray(20_000) // about 190 KiB
	size := int64(len(doc))
	for i := range lists {
		if _, err := e.api.Set(fmt.Sprintf("/lists/l%d", i), []byte(doc)); err != nil {
			t.Fatal(err)
		}
	}
	// Room for two reads in flight (3 bytes a byte), not for eight.
	b := etagclient.NewBudget(2*etagclient.ReadCostFactor*size + 4096)
	var wg sync.WaitGroup
	for i := range lists {
		c := newClient(t, fmt.Sprintf("%s/lists/l%d", e.ts.URL, i),
			etagclient.WithBudget(b), etagclient.WithBudgetWait(30*time.Second), etagclient.WithRequestTimeout(time.Minute))
		wg.Add(1)
		go func() {
			defer wg.Done()
			snap, err := c.Read(t.Context())
			if err != nil {
				t.Errorf("list %d: %v", i, err)
				return
			}
			if len(snap.Items) != 20_000 {
				t.Errorf("list %d: %d items", i, len(snap.Items))
			}
		}()
	}
	wg.Wait()
	if hw := b.HighWater(); hw > b.Limit() || hw == 0 {
		t.Errorf("high-water mark %d, budget %d", hw, b.Limit())
	}
	if r := b.Reserved(); r > b.Limit() {
		t.Errorf("still reserved %d, budget %d", r, b.Limit())
	}
	t.Logf("budget %d, high-water mark %d, reserved after %d", b.Limit(), b.HighWater(), b.Reserved())
}

// TestBudgetReadOverWhole: a list whose read needs more than the whole
// budget fails at once with ErrMemoryBudget, which says what to raise,
// and holds nothing after.
func TestBudgetReadOverWhole(t *testing.T) {
	e := startFake(t)
	doc := idArray(20_000)
	e.set(t, doc)
	b := etagclient.NewBudget(int64(len(doc))) // less than the read's cost
	c := newClient(t, e.url, etagclient.WithBudget(b))
	_, err := c.Read(t.Context())
	if !errors.Is(err, etagclient.ErrMemoryBudget) {
		t.Fatalf("err = %v, want ErrMemoryBudget", err)
	}
	checkNoSecrets(t, err)
	if r := b.Reserved(); r != 0 {
		t.Errorf("reserved %d after the failed read, want 0", r)
	}
}

// TestBudgetWaitingReadProceeds: a read that waits for room proceeds when
// the read in flight that filled the budget ends.
func TestBudgetWaitingReadProceeds(t *testing.T) {
	e := startFake(t)
	doc := idArray(20_000)
	for _, p := range []string{"/lists/a", "/lists/b"} {
		if _, err := e.api.Set(p, []byte(doc)); err != nil {
			t.Fatal(err)
		}
	}
	size := int64(len(doc))
	b := etagclient.NewBudget(etagclient.ReadCostFactor*size + 1024)
	// Another read in flight holds the whole budget.
	if err := b.Acquire(t.Context(), b.Limit()); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, e.ts.URL+"/lists/b", etagclient.WithBudget(b), etagclient.WithBudgetWait(30*time.Second), etagclient.WithRequestTimeout(time.Minute))
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(t.Context())
		done <- err
	}()
	waitUntil(t, func() bool { return etagclient.BudgetWaiters(b) == 1 })
	select {
	case err := <-done:
		t.Fatalf("read ended while the budget was full: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	b.Release(b.Limit()) // the read in flight ends
	if err := <-done; err != nil {
		t.Fatalf("read after room was made: %v", err)
	}
}

// waitUntil polls cond for up to five seconds.
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
		time.Sleep(time.Millisecond)
	}
}
