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
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/storetest/iamfake"
)

// TestGCPIAMEngineReplicas runs the engine on the IAM backend as three
// replicas of the operator would: three Clients, 16 goroutines each,
// adding and then removing members of their own to one role's binding of
// a project, against the fake through Google's client libraries. The
// first two writes are made to race (iamfake.Overlap), so a 409 ABORTED
// and the engine's retry after it happen for certain. No change may be
// lost: an add that returned must hold at that moment, and so must a
// remove; at the end the binding is exactly the bystanders, in their
// order, and the members that were added and not removed; the rest of the
// policy is byte for byte what it was. The run has its own deadline,
// stuckAfter.
func TestGCPIAMEngineReplicas(t *testing.T) {
	const (
		replicas   = 3
		workers    = 16
		perWorker  = 6
		stuckAfter = 60 * time.Second
	)
	overlap := iamfake.NewOverlap(etagclient.DefaultRequestTimeout / 2)
	e := startIAM(t, iamfake.WithWriteHook(overlap.Hold), iamfake.WithOverlapHook(overlap.Meet))
	seedIAM(t, e.fake, iamProject, iamProjectPolicy())
	before := rawOf(t, e.fake, iamProject)
	bystanders := []string{"user:alice@example.com", "group:team@example.com", "user:bob@example.com"}

	policy := etagclient.DefaultConflictPolicy
	policy.MaxAttempts, policy.MaxElapsedTime = 1000, 0
	obs := make([]*etagclient.Counters, replicas)
	clients := make([]*etagclient.Client, replicas)
	for i := range clients {
		obs[i] = new(etagclient.Counters)
		c, err := etagclient.New("gcpiam://cloudresourcemanager.googleapis.com/"+iamProject+"?role="+iamRole,
			etagclient.WithBackend(e.factory(t, iamProjectRN)),
			etagclient.WithConflictPolicy(policy),
			etagclient.WithClock(&steppingClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}),
			etagclient.WithBatchInterval(0),
			etagclient.WithObserver(obs[i]))
		if err != nil {
			t.Fatalf("etagclient.New: %v", err)
		}
		t.Cleanup(c.Close)
		clients[i] = c
	}

	member := func(r, w, k int) string {
		return fmt.Sprintf("serviceAccount:r%d-w%02d-m%d@p-123.iam.gserviceaccount.com", r, w, k)
	}
	holds := func(m string) bool {
		p, _ := e.fake.Policy(iamProject)
		for _, b := range p.Bindings {
			if b.Role == iamRole && b.Condition == nil && slices.Contains(b.Members, m) {
				return true
			}
		}
		return false
	}

	ctx, cancel := context.WithTimeout(t.Context(), stuckAfter)
	defer cancel()
	var (
		mu       sync.Mutex
		failures []string
		kept     []string
	)
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		failures = append(failures, fmt.Sprintf(format, args...))
	}
	var wg sync.WaitGroup
	for r := range replicas {
		for w := range workers {
			wg.Go(func() {
				for k := range perWorker {
					m := member(r, w, k)
					if _, err := clients[r].Update(ctx, etagclient.Change{Add: []string{m}}); err != nil {
						fail("add %s: %v", m, err)
						return
					}
					if !holds(m) {
						fail("add %s returned, but the binding lacks it", m)
					}
				}
				for k := 0; k < perWorker; k += 2 {
					m := member(r, w, k)
					if _, err := clients[r].Update(ctx, etagclient.Change{Remove: []string{m}}); err != nil {
						fail("remove %s: %v", m, err)
						return
					}
					if holds(m) {
						fail("remove %s returned, but the binding still has it", m)
					}
				}
				mu.Lock()
				for k := 1; k < perWorker; k += 2 {
					kept = append(kept, member(r, w, k))
				}
				mu.Unlock()
			})
		}
	}
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatalf("the changes did not finish within %v: the cycle is stuck (%d failures)", stuckAfter, len(failures))
	}
	for _, f := range failures {
		t.Error(f)
	}

	p, _ := e.fake.Policy(iamProject)
	var got []string
	for _, b := range p.Bindings {
		if b.Role == iamRole && b.Condition == nil {
			got = append(got, b.Members...)
		}
	}
	if len(got) < len(bystanders) || !slices.Equal(got[:len(bystanders)], bystanders) {
		t.Errorf("the bystanders are not first and in order: %.5v", got)
	} else {
		rest := slices.Sorted(slices.Values(got[len(bystanders):]))
		if !slices.Equal(rest, slices.Sorted(slices.Values(kept))) {
			t.Errorf("the binding holds %d added members, want the %d kept ones", len(rest), len(kept))
		}
	}
	samePreserved(t, before, rawOf(t, e.fake, iamProject), iamRole)

	st := e.fake.Stats()
	var conflicts, commits int64
	for _, o := range obs {
		conflicts += o.Conflicts.Load()
		commits += o.Commits.Load()
	}
	t.Logf("fake: %d getIamPolicy, %d setIamPolicy 200, %d setIamPolicy 409; clients: %d commits, %d conflicts",
		st.Count(iamfake.MethodGet, http.StatusOK), st.Count(iamfake.MethodSet, http.StatusOK), st.Count(iamfake.MethodSet, http.StatusConflict), commits, conflicts)
	if !overlap.Met() || st.Count(iamfake.MethodSet, http.StatusConflict) == 0 || conflicts == 0 {
		t.Errorf("overlap met %v, the fake answered %d 409s, the clients counted %d conflicts: no two writes raced, so the test did not test what it names",
			overlap.Met(), st.Count(iamfake.MethodSet, http.StatusConflict), conflicts)
	}
	if want := int64(replicas * workers * (perWorker + perWorker/2)); commits != want {
		t.Errorf("the clients counted %d committed changes, want %d", commits, want)
	}
}

// steppingClock is an etagclient.Clock that never waits: After moves its
// time forward and fires at once, so that conflict backoff costs no real
// time. It is safe for concurrent use.
type steppingClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *steppingClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *steppingClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

// TestGCPIAMEngineFenced: every request of the backend goes through the
// engine's transport, so a setIamPolicy whose writer's right to make the
// change ended after the cycle checked it, right before it went out, is
// not sent, and the change fails with ErrFenced; the read before it,
// which Resource Manager makes with a POST too, is not fenced.
func TestGCPIAMEngineFenced(t *testing.T) {
	e := startIAM(t)
	seedIAM(t, e.fake, iamProject, iamProjectPolicy())
	c, err := etagclient.New("gcpiam://cloudresourcemanager.googleapis.com/"+iamProject+"?role="+iamRole,
		etagclient.WithBackend(e.factory(t, iamProjectRN)),
		etagclient.WithClock(&steppingClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}),
		etagclient.WithBatchInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	// The right holds when the cycle asks before the write, and has ended
	// when the engine's transport asks again as the request goes out.
	var asked atomic.Int32
	owns := func() bool { return asked.Add(1) == 1 }
	p, err := c.SubmitFenced(etagclient.Change{Add: []string{"user:late@example.com"}}, owns, nil)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Done():
	case <-t.Context().Done():
		t.Fatal("the change never completed")
	}
	if _, err := p.Result(); !errors.Is(err, etagclient.ErrFenced) {
		t.Errorf("the change whose right ended: %v, want ErrFenced", err)
	}
	if asked.Load() < 2 {
		t.Errorf("the right was asked %d times: the write never reached the engine's transport", asked.Load())
	}
	st := e.fake.Stats()
	if n := st.Requests[iamfake.MethodSet]; len(n) != 0 {
		t.Errorf("the fake got setIamPolicy calls: %v", n)
	}
	if st.Count(iamfake.MethodGet, http.StatusOK) == 0 {
		t.Error("the policy was never read")
	}
}
