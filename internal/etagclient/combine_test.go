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
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// TestCombining checks that concurrent Updates on one Client share
// read-modify-write cycles: many changes, few PUTs, every change committed.
func TestCombining(t *testing.T) {
	tests := []struct {
		name       string
		goroutines int
		latency    time.Duration
		bystanders int
		maxPuts    int64
		submit     bool // use Submit instead of Update
	}{
		{name: "50 concurrent Updates, 2ms latency", goroutines: 50, latency: 2 * time.Millisecond, bystanders: 20, maxPuts: 10},
		{name: "200 concurrent Updates, 2ms latency", goroutines: 200, latency: 2 * time.Millisecond, bystanders: 20, maxPuts: 10},
		{name: "50 Submits, 2ms latency", goroutines: 50, latency: 2 * time.Millisecond, bystanders: 20, maxPuts: 10, submit: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := startFake(t, fakeapi.WithLatency(tt.latency, 0))
			targets := ids("t", tt.goroutines, 3)
			bystanders := ids("b", tt.bystanders, 3)
			// Interleave the bystanders with the targets, so that keeping
			// their order means something.
			var initial []string
			for i, id := range targets {
				initial = append(initial, id)
				if i%3 == 0 && i/3 < len(bystanders) {
					initial = append(initial, bystanders[i/3])
				}
			}
			initial = append(initial, bystanders[min(len(bystanders), (len(targets)+2)/3):]...)
			wantFinal := slices.DeleteFunc(slices.Clone(initial), func(s string) bool { return s[0] == 't' })
			e.set(t, `{"items":`+jsonArray(initial)+`,"n":1.50}`)

			var obs etagclient.Counters
			c := newClient(t, e.url, etagclient.WithItemsPointer("/items"), etagclient.WithObserver(&obs))

			start := make(chan struct{})
			errs := make([]error, len(targets))
			var wg sync.WaitGroup
			for i, id := range targets {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					ch := etagclient.Change{Remove: []string{id}}
					if !tt.submit {
						_, errs[i] = c.Update(context.Background(), ch)
						return
					}
					p, err := c.Submit(ch, nil)
					if err != nil {
						errs[i] = err
						return
					}
					<-p.Done()
					_, errs[i] = p.Result()
				}()
			}
			close(start)
			wg.Wait()

			for i, err := range errs {
				if err != nil {
					t.Errorf("change %d: %v", i, err)
				}
			}
			st := e.api.Stats()
			puts := st.Count(http.MethodPut, http.StatusOK)
			t.Logf("%d changes: %d PUTs, %d GETs, batches of %d changes in %d PUTs", len(targets), puts, e.gets(), obs.BatchedChanges.Load(), obs.Batches.Load())
			if puts > tt.maxPuts || e.puts() != puts {
				t.Errorf("%d PUTs (%d committed), want at most %d, all committed", e.puts(), puts, tt.maxPuts)
			}
			if obs.BatchedChanges.Load() != int64(len(targets)) {
				t.Errorf("PUTs carried %d changes, want each of the %d exactly once", obs.BatchedChanges.Load(), len(targets))
			}
			if obs.Commits.Load() != int64(len(targets)) {
				t.Errorf("observer saw %d commits, want %d", obs.Commits.Load(), len(targets))
			}
			if got, want := e.body(t), `{"items":`+jsonArray(wantFinal)+`,"n":1.50}`; got != want {
				t.Errorf("final document:\n got %s\nwant %s", got, want)
			}
		})
	}
}
