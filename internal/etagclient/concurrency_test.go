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
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// TestConcurrentReplicas runs three independent Clients, as three replicas
// of the operator would, each with 16 goroutines, removing 1,000 IDs from
// one list that also holds 100 bystander IDs nobody touches. No update may
// be lost: every Update that returned success must hold on the server at
// that moment, the final list must be exactly the bystanders in their
// original order, and no committed version may ever bring a removed ID back
// or lose a bystander. The second case injects faults, including writes
// that commit and then lose their answer.
//
// The first two PUTs are made to overlap (see fakeapi.OverlapFirstPuts), so the
// fault-free case meets a 412 and retries after it for certain. The whole
// run has one deadline, stuckAfter: a cycle that livelocks (retrying
// without reading again after a 412) fails there, with a message that
// says so, and not at the package timeout.
func TestConcurrentReplicas(t *testing.T) {
	const (
		replicas   = 3
		workers    = 16
		targets    = 1000
		bystanders = 100
		pointer    = "/items"
	)
	tests := []struct {
		name   string
		faults fakeapi.Faults
	}{
		{name: "no faults"},
		{name: "with faults", faults: fakeapi.Faults{
			Rate503:               0.05,
			RateCommitThenDrop:    0.05,
			RateResetBeforeCommit: 0.02,
			RetryAfter:            time.Second, // capped by WithMaxRetryAfter
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := startFake(t,
				fakeapi.WithLatency(0, time.Millisecond),
				fakeapi.WithSeed(20260102),
				fakeapi.WithFaults(tt.faults),
				fakeapi.WithFaultHook(fakeapi.OverlapFirstPuts(overlapPatience)),
				fakeapi.WithHistory(true))

			targetIDs := ids("t", targets, 4)
			bystanderIDs := ids("b", bystanders, 3)
			var initial []string
			for i, id := range targetIDs {
				initial = append(initial, id)
				if i%10 == 9 {
					initial = append(initial, bystanderIDs[i/10])
				}
			}
			docWith := func(items []string) string {
				return `{"kind":"allow-list","items":` + jsonArray(items) + `,"meta":{"rev":1.50}}`
			}
			e.set(t, docWith(initial))

			policy := etagclient.DefaultConflictPolicy
			policy.MaxAttempts = 1000
			policy.MaxElapsedTime = 0
			obs := make([]*etagclient.Counters, replicas)
			clients := make([]*etagclient.Client, replicas)
			for i := range clients {
				obs[i] = new(etagclient.Counters)
				clients[i] = newClient(t, e.url,
					etagclient.WithItemsPointer(pointer),
					etagclient.WithConflictPolicy(policy),
					etagclient.WithObserver(obs[i]))
			}

			work := make(chan string, targets)
			for _, id := range targetIDs {
				work <- id
			}
			close(work)

			type failure struct {
				id  string
				err error
			}
			var (
				mu       sync.Mutex
				failures []failure
				stillOn  []string // succeeded, but the ID was on the list right after
			)
			ctx, cancel := context.WithTimeout(t.Context(), stuckAfter)
			defer cancel()
			var wg sync.WaitGroup
			for r := range replicas {
				for range workers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for id := range work {
							_, err := clients[r].Update(ctx, etagclient.Change{Remove: []string{id}})
							if err != nil {
								mu.Lock()
								failures = append(failures, failure{id, err})
								mu.Unlock()
								continue
							}
							// Nobody adds IDs, so a committed removal must
							// hold from now on.
							body, _, _ := e.api.Get(listPath)
							if bytes.Contains(body, []byte(`"`+id+`"`)) {
								mu.Lock()
								stillOn = append(stillOn, id)
								mu.Unlock()
							}
						}
					}()
				}
			}
			wg.Wait()
			if ctx.Err() != nil {
				// Every Update left waiting failed with the deadline;
				// the final Read would wait for the same stuck cycle.
				t.Fatalf("the %d removals did not finish within %v: the cycle is stuck (a livelock such as retrying without a re-read after a 412?); %d Updates failed",
					targets, stuckAfter, len(failures))
			}

			if err := e.api.SetFaults(fakeapi.Faults{}); err != nil {
				t.Fatal(err)
			}
			for _, f := range failures {
				checkNoSecrets(t, f.err)
				t.Errorf("Update(remove %s): %v", f.id, f.err)
			}
			if len(stillOn) > 0 {
				t.Errorf("%d removals reported success while the ID was still on the list: %v", len(stillOn), stillOn)
			}

			// The final read, through a client and directly.
			snap, err := clients[0].Read(ctx)
			if err != nil {
				t.Fatalf("final Read: %v", err)
			}
			if !slices.Equal(snap.Items, bystanderIDs) {
				t.Errorf("final Read: %d items, want exactly the %d bystanders in order", len(snap.Items), bystanders)
			}
			if got, want := e.body(t), docWith(bystanderIDs); got != want {
				t.Errorf("final document:\n got %s\nwant %s", got, want)
			}

			checkHistory(t, e.api.History(listPath), pointer, targetIDs, bystanderIDs)

			st := e.api.Stats()
			var sum etagclient.Counters
			for _, o := range obs {
				sum.Puts.Add(o.Puts.Load())
				sum.Conflicts.Add(o.Conflicts.Load())
				sum.Ambiguous.Add(o.Ambiguous.Load())
				sum.Written.Add(o.Written.Load())
				sum.Commits.Add(o.Commits.Load())
				sum.BatchedChanges.Add(o.BatchedChanges.Load())
			}
			t.Logf("server: %d commits, %d PUT 200, %d PUT 412, %d GET 200, %d GET 304, faults %v",
				st.Commits, st.Count(http.MethodPut, 200), st.Count(http.MethodPut, 412),
				st.Count(http.MethodGet, 200), st.Count(http.MethodGet, 304), st.Faults)
			t.Logf("clients: %d PUT attempts, %d written, %d conflicts, %d ambiguous, %d commits",
				sum.Puts.Load(), sum.Written.Load(), sum.Conflicts.Load(), sum.Ambiguous.Load(), sum.Commits.Load())
			if sum.Commits.Load() != targets {
				t.Errorf("observers counted %d commits, want %d", sum.Commits.Load(), targets)
			}
			if tt.faults != (fakeapi.Faults{}) && sum.Ambiguous.Load() == 0 {
				t.Errorf("no ambiguous write happened: the fault case did not test what it should")
			}
			// Without faults the overlapped pair must end in a 412;
			// with them, one of the pair may be dropped before it is
			// judged.
			if tt.faults == (fakeapi.Faults{}) && (st.Count(http.MethodPut, 412) == 0 || sum.Conflicts.Load() == 0) {
				t.Errorf("server answered %d PUTs with 412, clients counted %d conflicts: no two writes raced, so the case did not test what it names",
					st.Count(http.MethodPut, 412), sum.Conflicts.Load())
			}
		})
	}
}

const (
	// stuckAfter is how long a concurrency test may run before it is
	// failed as stuck. A run takes seconds; the margin is for slow,
	// shared machines.
	stuckAfter = 60 * time.Second
	// overlapPatience is how long fakeapi.OverlapFirstPuts holds the first PUT
	// for a second one: far more than the second needs to come, and less
	// than the client's request timeout, so that a PUT left alone is late
	// but not ambiguous.
	overlapPatience = etagclient.DefaultRequestTimeout / 2
)

// checkHistory verifies every committed version: the bystanders are all
// there, in order; the document outside the items is unchanged; and a
// target, once gone, never comes back (which is what a lost update of a
// removal would look like).
func checkHistory(t *testing.T, versions []fakeapi.Version, pointer string, targets, bystanders []string) {
	t.Helper()
	if len(versions) < 2 {
		t.Fatalf("history has %d versions", len(versions))
	}
	isTarget := make(map[string]bool, len(targets))
	for _, id := range targets {
		isTarget[id] = true
	}
	gone := map[string]int{} // target -> version where it went
	for i, v := range versions {
		items := itemsOf(t, v.Body, pointer)
		var by []string
		present := map[string]bool{}
		for _, id := range items {
			if isTarget[id] {
				present[id] = true
			} else {
				by = append(by, id)
			}
		}
		if !slices.Equal(by, bystanders) {
			t.Errorf("version %d (%s): bystanders changed: %d of %d", i, v.ETag, len(by), len(bystanders))
		}
		if !bytes.HasPrefix(v.Body, []byte(`{"kind":"allow-list","items":[`)) || !bytes.HasSuffix(v.Body, []byte(`],"meta":{"rev":1.50}}`)) {
			t.Errorf("version %d (%s): the document outside the items changed: %.80s", i, v.ETag, v.Body)
		}
		for _, id := range targets {
			at, wasGone := gone[id]
			switch {
			case wasGone && present[id]:
				t.Errorf("version %d (%s): %s is back after it was removed in version %d", i, v.ETag, id, at)
			case !wasGone && !present[id]:
				gone[id] = i
			}
		}
	}
	if len(gone) != len(targets) {
		t.Errorf("%d of %d targets were ever removed", len(gone), len(targets))
	}
	t.Logf("history: %d versions, %s", len(versions), fmt.Sprintf("%.1f removals per write", float64(len(targets))/float64(len(versions)-1)))
}
