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
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// realClock paces cycles in real time, which is what the batch interval is
// about; the fake clock of the other tests would fire at once.
type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// TestBatchInterval: changes that trickle in faster than the interval share
// writes, so the number of PUTs is bounded by elapsed time / interval, not by
// the number of changes; and every change still commits.
func TestBatchInterval(t *testing.T) {
	e := startFake(t)
	e.set(t, `[]`)
	const interval = 100 * time.Millisecond
	c := newClient(t, e.url, etagclient.WithBatchInterval(interval), etagclient.WithClock(realClock{}))

	const n = 40
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Update(context.Background(), etagclient.Change{Add: []string{fmt.Sprintf("id-%02d", i)}})
			errs <- err
		}()
		time.Sleep(5 * time.Millisecond) // a trickle: one change every 5 ms
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Update: %v", err)
		}
	}
	elapsed := time.Since(start)
	if got := len(e.items(t, "")); got != n {
		t.Fatalf("%d IDs on the list, want %d", got, n)
	}
	// At most one cycle per interval (plus the first, which goes at once,
	// and one for rounding); without the interval this trickle costs ~40.
	maxPuts := int64(elapsed/interval) + 2
	if puts := e.puts(); puts > maxPuts || puts >= n/4 {
		t.Fatalf("%d PUTs for %d changes over %v, want at most %d", puts, n, elapsed, maxPuts)
	}
}
