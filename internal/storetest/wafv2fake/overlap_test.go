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

package wafv2fake_test

import (
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/wafv2/types"

	"github.com/listkeeper/listkeeper/internal/storetest/wafv2fake"
)

// overlapWait bounds how long the overlap tests wait for the server to
// report what they made happen; it only ends a broken run.
const overlapWait = 10 * time.Second

// TestUpdateOverlap: an update held in flight (UpdateHook) is met by a
// second update of the same set (OverlapHook); the second waits, and when
// the first commits, the second, which carried the same lock token, gets
// WAFOptimisticLockException. The hooks prove the order: nothing here
// depends on timing.
func TestUpdateOverlap(t *testing.T) {
	entered := make(chan struct{}, 2)
	release := make(chan struct{})
	overlapped := make(chan struct{}, 1)
	var once sync.Once
	s := start(t,
		wafv2fake.WithUpdateHook(func(*http.Request) {
			entered <- struct{}{}
			once.Do(func() { <-release })
		}),
		wafv2fake.WithOverlapHook(func(*http.Request) { overlapped <- struct{}{} }))
	id := seed(t, s)
	c := client(t, s)
	token := aws.ToString(get(t, c, id).LockToken)

	errs := make(chan error, 2)
	go func() {
		_, err := update(t.Context(), c, id, token, nil, "203.0.113.1/32")
		errs <- err
	}()
	wait(t, entered, "the first update to reach its hook")
	go func() {
		_, err := update(t.Context(), c, id, token, nil, "203.0.113.2/32")
		errs <- err
	}()
	wait(t, overlapped, "the second update to meet the first")
	close(release)

	var committed, lost int
	for range 2 {
		err := <-errs
		var lock *types.WAFOptimisticLockException
		switch {
		case err == nil:
			committed++
		case errors.As(err, &lock):
			lost++
		default:
			t.Errorf("update: %v", err)
		}
	}
	if committed != 1 || lost != 1 {
		t.Fatalf("committed %d, lost %d: want one of each", committed, lost)
	}
	if set, _ := s.IPSet(wafv2fake.ScopeRegional, id); !equal(set.Addresses, []string{"203.0.113.1/32"}) {
		t.Errorf("addresses = %v, want the first update's", set.Addresses)
	}
}

// TestOverlapFirstUpdates: with the ready-made hook, two writers that
// read the same token and update at once end with one commit and one
// WAFOptimisticLockException, whichever the scheduler favours.
func TestOverlapFirstUpdates(t *testing.T) {
	s := start(t, wafv2fake.WithFaultHook(wafv2fake.OverlapFirstUpdates(overlapWait)))
	id := seed(t, s)
	c := client(t, s)
	token := aws.ToString(get(t, c, id).LockToken)
	errs := make(chan error, 2)
	for _, a := range []string{"203.0.113.1/32", "203.0.113.2/32"} {
		go func() {
			_, err := update(t.Context(), c, id, token, nil, a)
			errs <- err
		}()
	}
	var lost int
	for range 2 {
		var lock *types.WAFOptimisticLockException
		if err := <-errs; errors.As(err, &lock) {
			lost++
		} else if err != nil {
			t.Errorf("update: %v", err)
		}
	}
	if lost != 1 || s.Stats().CountCode("WAFOptimisticLockException") != 1 {
		t.Fatalf("%d updates lost, want 1", lost)
	}
}

func wait(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(overlapWait):
		t.Fatalf("timed out waiting for %s", what)
	}
}
