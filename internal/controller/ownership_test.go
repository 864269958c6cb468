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

package controller

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// TestFinalizerPatchKeepsOtherFinalizers: listkeeper changes its finalizer
// with an optimistic lock. A patch computed from a copy that predates
// another controller's finalizer is refused (409), never written over it;
// a merge patch without the lock replaced metadata.finalizers wholesale.
// With a manager running, the other finalizer survives the whole life of
// the entry.
func TestFinalizerPatchKeepsOtherFinalizers(t *testing.T) {
	t.Parallel()
	requireEnv(t)
	ns := newNamespace(t)
	ctx := ctxFor(t)
	const other = "example.com/audit"

	e := newListEntry(ns, "stale", "nolist", "x")
	create(t, e)
	stale := e.DeepCopy()
	fresh := &v1alpha1.ListEntry{}
	if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(e), fresh); err != nil {
		t.Fatal(err)
	}
	controllerutil.AddFinalizer(fresh, other)
	if err := k8sClient.Update(ctx, fresh); err != nil {
		t.Fatal(err)
	}
	r := &EntryReconciler{Client: k8sClient, Owner: SoleOwner{}}
	// A patch that changes the finalizers of the stale copy: adding ours,
	// or, where the API server put it on at creation, taking it off.
	change := controllerutil.AddFinalizer
	if controllerutil.ContainsFinalizer(stale, v1alpha1.FinalizerName) {
		change = controllerutil.RemoveFinalizer
	}
	err := patchFinalizer(ctx, r.Client, stale, change)
	if !apierrors.IsConflict(err) {
		t.Fatalf("patch from a stale copy: err = %v, want a conflict", err)
	}
	if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(e), fresh); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(fresh.Finalizers, other) {
		t.Fatalf("finalizers = %v: %s was dropped", fresh.Finalizers, other)
	}

	// End to end: both finalizers while the entry lives, only the other
	// one once listkeeper let it go.
	startManager(t, managerConfig{namespace: ns})
	lists := newFakeServer(t)
	setDoc(t, lists.srv, "/list", []string{})
	create(t, newExternalList(ns, "allow", lists.url+"/list"))
	live := newListEntry(ns, "live", "allow", "tenant-x")
	live.Finalizers = []string{other}
	create(t, live)
	waitCondition(t, live, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	if !slices.Contains(live.Finalizers, other) || !slices.Contains(live.Finalizers, v1alpha1.FinalizerName) {
		t.Fatalf("finalizers = %v, want both", live.Finalizers)
	}
	if err := k8sClient.Delete(ctx, live); err != nil {
		t.Fatal(err)
	}
	waitOnList(t, lists.srv, "/list", "", "tenant-x", false, waitTimeout)
	eventually(t, waitTimeout, "listkeeper's finalizer gone, the other kept", func() error {
		got := &v1alpha1.ListEntry{}
		if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(live), got); err != nil {
			return err
		}
		if slices.Contains(got.Finalizers, v1alpha1.FinalizerName) || !slices.Contains(got.Finalizers, other) {
			return fmt.Errorf("finalizers %v", got.Finalizers)
		}
		return nil
	})
}

// TestStatusPatchIsOptimisticallyLocked: a replica that decided from an
// old copy (partitioned, or its bucket moved) cannot write its status over
// a newer one.
func TestStatusPatchIsOptimisticallyLocked(t *testing.T) {
	t.Parallel()
	requireEnv(t)
	ns := newNamespace(t)
	ctx := ctxFor(t)
	e := newListEntry(ns, "e", "allow", "x")
	create(t, e)
	s := &entryScope{entry: e.DeepCopy(), before: e.DeepCopy()}

	// The owner writes Synced=True meanwhile.
	fresh := e.DeepCopy()
	meta.SetStatusCondition(&fresh.Status.Conditions, metav1.Condition{Type: v1alpha1.ConditionSynced, Status: metav1.ConditionTrue, Reason: v1alpha1.ReasonAdded, Message: "on the list"})
	if err := k8sClient.Status().Update(ctx, fresh); err != nil {
		t.Fatal(err)
	}
	// The stale replica's Synced=False must not land.
	s.setSynced(metav1.ConditionFalse, v1alpha1.ReasonListUnreachable, "partitioned")
	r := &EntryReconciler{Client: k8sClient, Owner: SoleOwner{}}
	if err := r.patchStatus(ctx, s); !apierrors.IsConflict(err) {
		t.Fatalf("status patch from a stale copy: err = %v, want a conflict", err)
	}
	got := &v1alpha1.ListEntry{}
	if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(e), got); err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionSynced); c == nil || c.Status != metav1.ConditionTrue {
		t.Fatalf("Synced = %+v, want the owner's True", c)
	}
}

// countingTransport counts the requests of the managers that use it, by
// verb, leaving out the members' Lease traffic, which does not grow with
// the number of entries. Each client gets its own wrapper (wrap); they
// share the counts.
type countingTransport struct {
	mu     sync.Mutex
	counts map[string]int
	on     atomic.Bool
}

func (c *countingTransport) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if c.on.Load() && !strings.Contains(r.URL.Path, "/leases") {
			verb := r.Method
			if r.Method == http.MethodGet && r.URL.Query().Get("watch") == "true" {
				verb = "WATCH"
			}
			c.mu.Lock()
			c.counts[verb]++
			c.mu.Unlock()
		}
		return next.RoundTrip(r)
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func (c *countingTransport) total() (int, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	var parts []string
	for v, k := range c.counts {
		n += k
		parts = append(parts, fmt.Sprintf("%s=%d", v, k))
	}
	slices.Sort(parts)
	return n, strings.Join(parts, " ")
}

// TestAPIRequestsPerEntry measures the operator's Kubernetes API requests
// per entry, create plus delete, every verb, at 1, 3 and 5 replicas: only
// the owner of an entry writes its finalizer and status, so the figure does
// not grow with the replicas.
func TestAPIRequestsPerEntry(t *testing.T) {
	const entries = 40
	for _, replicas := range []int{1, 3, 5} {
		t.Run(fmt.Sprintf("R=%d", replicas), func(t *testing.T) {
			requireEnv(t)
			ns := newNamespace(t)
			ctx := ctxFor(t)
			counter := &countingTransport{counts: map[string]int{}}
			cfg := rest.CopyConfig(restConfig)
			cfg.WrapTransport = counter.wrap
			reps := make([]*replica, replicas)
			for i := range reps {
				reps[i] = startManager(t, managerConfig{namespace: ns, member: true, maxConcurrent: 8, restConfig: cfg})
			}
			lists := newFakeServer(t)
			setDoc(t, lists.srv, "/list", []string{})
			xl := newExternalList(ns, "allow", lists.url+"/list")
			create(t, xl)
			waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
			waitSplit(t, reps)

			counter.on.Store(true)
			start := time.Now()
			for i := range entries {
				create(t, newListEntry(ns, fmt.Sprintf("e-%02d", i), "allow", fmt.Sprintf("id-%02d", i)))
			}
			eventually(t, time.Minute, "every entry Synced", func() error {
				var list v1alpha1.ListEntryList
				if err := k8sClient.List(ctx, &list, client.InNamespace(ns)); err != nil {
					return err
				}
				for i := range list.Items {
					if c := meta.FindStatusCondition(list.Items[i].Status.Conditions, v1alpha1.ConditionSynced); c == nil || c.Status != metav1.ConditionTrue {
						return fmt.Errorf("%s not Synced", list.Items[i].Name)
					}
				}
				return nil
			})
			for i := range entries {
				if err := k8sClient.Delete(ctx, newListEntry(ns, fmt.Sprintf("e-%02d", i), "allow", "")); err != nil {
					t.Fatal(err)
				}
			}
			eventually(t, time.Minute, "every entry gone", func() error {
				var list v1alpha1.ListEntryList
				if err := k8sClient.List(ctx, &list, client.InNamespace(ns)); err != nil {
					return err
				}
				if len(list.Items) > 0 {
					return fmt.Errorf("%d left", len(list.Items))
				}
				return nil
			})
			took := time.Since(start)
			// Let status writes that raced the deletions finish.
			time.Sleep(time.Second)
			counter.on.Store(false)
			n, verbs := counter.total()
			perEntry := float64(n) / entries
			t.Logf("R=%d: %d entries created and deleted in %s; operator API requests %d (%s) = %.2f per entry",
				replicas, entries, took.Round(time.Millisecond), n, verbs, perEntry)
			if items := mustDocItems(t, lists.srv, "/list", ""); len(items) != 0 {
				t.Errorf("the list still holds %v", items)
			}
			// The target (4) is checked by make bench-e2e at 1,000
			// entries; here a loose bound keeps the test steady on a
			// loaded machine while still catching every replica writing
			// every entry (about 3 x R per entry).
			if perEntry > 5 {
				t.Errorf("%.2f API requests per entry at R=%d; want at most 5 (target 4)", perEntry, replicas)
			}
		})
	}
}

// waitSplit waits until the replicas' memberships hold every bucket between
// them.
func waitSplit(t *testing.T, reps []*replica) {
	t.Helper()
	eventually(t, time.Minute, "the buckets split among the replicas", func() error {
		held := 0
		for _, r := range reps {
			held += len(r.member.Held())
		}
		if n := reps[0].member.Buckets(); held != n {
			return fmt.Errorf("%d of %d buckets held", held, n)
		}
		return nil
	})
}
