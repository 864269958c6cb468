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
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/storetest/iamfake"
)

// TestGCPIAMTorture runs the engine's fault torture on the IAM backend:
// three Clients, as three replicas of the operator, 16 goroutines each,
// on one role's binding, through Google's client libraries against the
// fake, while the fault hook fails tortureFaultRate of the requests with
// 429 RESOURCE_EXHAUSTED, 503 UNAVAILABLE, 500 INTERNAL, a connection
// dropped before the call is served, or one dropped after it was served
// (a setIamPolicy that landed without its client knowing). The libraries
// retry none of these calls: a failed read or a refused write fails the
// changes of the cycle with ErrUnreachable, and their goroutines submit
// them again, as the controller would; a write without an answer is
// settled by the engine with a read. The first two setIamPolicy calls
// race for certain (iamfake.Overlap), and no write is faulted before they
// met, so that one of them is lost to the other.
//
// No acknowledged change may be lost (see tortureRun.run): each holds in
// the policy when it returns, the binding ends as the bystanders, in their
// order, then exactly the members the changes leave, and every other
// binding, the conditional ones of the role included, the audit configs
// and the version are byte for byte what they were. The test fails unless
// every fault kind was injected, a write landed unknown to its client, the
// engine settled an unknown outcome (Counters.Ambiguous) and a change
// failed for a while. The cases are the two APIs: a project's policy
// through Resource Manager (a lost race is 409 ABORTED), a bucket's
// through Cloud Storage (412 conditionNotMet).
func TestGCPIAMTorture(t *testing.T) {
	for _, tc := range []struct {
		name, resource, full string
		policy               func() iamfake.Policy
		bystanders           []string
		lost                 int // the status of a lost race
	}{
		{"project", iamProject, iamProjectRN, iamProjectPolicy,
			[]string{"user:alice@example.com", "group:team@example.com", "user:bob@example.com"}, http.StatusConflict},
		{"bucket", iamBucket, iamBucketRN, iamBucketPolicy,
			[]string{"user:alice@example.com"}, http.StatusPreconditionFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seed := tortureSeed(t)
			t.Logf("seed %d (%s=%d replays its fault plan)", seed, tortureSeedEnv, seed)
			overlap := iamfake.NewOverlap(etagclient.DefaultRequestTimeout / 2)
			faults := &iamFaults{overlap: overlap, dice: newFaultDice(seed, tortureFaultRate,
				faultThrottled, faultUnavailable, faultInternal, faultDropBefore, faultDropAfter)}
			e := startIAM(t, iamfake.WithFaultHook(faults.hook), iamfake.WithWriteHook(overlap.Hold), iamfake.WithOverlapHook(overlap.Meet))
			ids := iamTortureIDs()
			seedIAM(t, e.fake, tc.resource, withLeavers(tc.policy(), ids.leavers))
			before := rawOf(t, e.fake, tc.resource)

			policy := etagclient.DefaultConflictPolicy
			policy.MaxAttempts, policy.MaxElapsedTime = 1000, 0
			run := &tortureRun{ids: ids, holds: func(m string) bool {
				p, _ := e.fake.Policy(tc.resource)
				return slices.ContainsFunc(p.Bindings, func(b iamfake.Binding) bool {
					return b.Role == iamRole && b.Condition == nil && slices.Contains(b.Members, m)
				})
			}}
			obs := make([]*etagclient.Counters, tortureReplicas)
			for i := range tortureReplicas {
				obs[i] = new(etagclient.Counters)
				c, err := etagclient.New("gcpiam:"+tc.full+"?role="+iamRole,
					etagclient.WithBackend(e.factory(t, tc.full)),
					etagclient.WithConflictPolicy(policy),
					etagclient.WithClock(&steppingClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}),
					etagclient.WithBatchInterval(0),
					etagclient.WithObserver(obs[i]))
				if err != nil {
					t.Fatalf("etagclient.New: %v", err)
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

			run.checkFinal(t, iamMembers(t, e.fake, tc.resource), tc.bystanders)
			samePreserved(t, before, rawOf(t, e.fake, tc.resource), iamRole)

			st := e.fake.Stats()
			sum := sumCounters(obs)
			t.Logf("%v: %d requests (%d getIamPolicy, %d setIamPolicy), %d writes landed; %d lost races (%d)",
				elapsed.Round(time.Millisecond), st.Total, iamCalls(st, iamfake.MethodGet), iamCalls(st, iamfake.MethodSet),
				st.Commits, st.Count(iamfake.MethodSet, tc.lost), tc.lost)
			t.Logf("clients: %d writes committed, %d lost, %d unknown then settled by a read, %d failed cycles, %d changes acknowledged, %d resubmitted after ErrUnreachable",
				sum.written, sum.conflicts, sum.ambiguous, sum.errs, sum.committed, run.transient.Load())
			t.Logf("faults: %s", faults.dice.summary())

			for _, code := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable, http.StatusInternalServerError} {
				if st.Count(iamfake.MethodGet, code)+st.Count(iamfake.MethodSet, code) == 0 {
					t.Errorf("the fake answered no %d", code)
				}
			}
			if before, after := faults.dice.count(faultDropBefore, iamfake.MethodSet), faults.dice.count(faultDropAfter, iamfake.MethodSet); st.Count(iamfake.MethodSet, 0) == 0 || before == 0 || after == 0 {
				t.Errorf("the fake dropped %d setIamPolicy connections, %d before and %d after the call was served: want some of each",
					st.Count(iamfake.MethodSet, 0), before, after)
			}
			if !overlap.Met() || st.Count(iamfake.MethodSet, tc.lost) == 0 {
				t.Errorf("overlap met %v, %d setIamPolicy answered %d: the replicas did not race", overlap.Met(), st.Count(iamfake.MethodSet, tc.lost), tc.lost)
			}
			run.checkEngine(t, sum, st.Commits)
		})
	}
}

// iamFaults is the fault hook of the IAM torture. It is safe for
// concurrent use.
type iamFaults struct {
	dice *faultDice
	// overlap makes the first two writes race; writes are not faulted
	// before they met, so that the race is judged and answered.
	overlap *iamfake.Overlap
}

// hook is the iamfake.FaultHook.
func (f *iamFaults) hook(c iamfake.Call) *iamfake.Error {
	if c.Method == iamfake.MethodSet && !f.overlap.Met() {
		return nil
	}
	kind, ok := f.dice.roll(c.Method, false)
	if !ok {
		return nil
	}
	switch kind {
	case faultThrottled:
		return iamfake.ErrResourceExhausted()
	case faultUnavailable:
		return iamfake.ErrUnavailable()
	case faultInternal:
		return iamfake.ErrInternal()
	case faultDropBefore:
		return iamfake.DropConnection()
	case faultDropAfter:
		return iamfake.DropAnswer()
	}
	panic(fmt.Sprintf("unknown fault %q", kind))
}

// iamCalls counts the requests of method, whatever their answer.
func iamCalls(st iamfake.Stats, method string) int64 {
	var n int64
	for _, c := range st.Requests[method] {
		n += c
	}
	return n
}

// iamMembers returns the list as the fake holds it: the members of the
// role's unconditional bindings of resource's policy, in order, each once.
func iamMembers(t *testing.T, fake *iamfake.Server, resource string) []string {
	t.Helper()
	p, ok := fake.Policy(resource)
	if !ok {
		t.Errorf("%s is gone", resource)
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, b := range p.Bindings {
		if b.Role != iamRole || b.Condition != nil {
			continue
		}
		for _, m := range b.Members {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	return out
}

// withLeavers returns p with leavers added to the role's last
// unconditional binding, after the members it has.
func withLeavers(p iamfake.Policy, leavers []string) iamfake.Policy {
	p = p.Clone()
	for i := len(p.Bindings) - 1; i >= 0; i-- {
		if b := &p.Bindings[i]; b.Role == iamRole && b.Condition == nil {
			b.Members = append(b.Members, leavers...)
			return p
		}
	}
	panic("the policy has no unconditional binding of the role")
}

// iamTortureIDs are the members of the IAM torture, of three kinds of
// principal.
func iamTortureIDs() tortureIDs {
	ids := tortureIDs{
		own: func(r, w, k int) (string, string) {
			m := fmt.Sprintf("serviceAccount:r%d-w%02d-m%02d@p-123.iam.gserviceaccount.com", r, w, k)
			return m, m
		},
		relay: func(r, w, end int) string { return fmt.Sprintf("user:relay%d-r%d-w%02d@example.com", end, r, w) },
	}
	for i := range tortureWorkers {
		ids.shared = append(ids.shared, fmt.Sprintf("group:shared-%02d@example.com", i))
		ids.leavers = append(ids.leavers, fmt.Sprintf("user:leaver-%02d@example.com", i))
	}
	return ids
}
