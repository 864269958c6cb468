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

package main

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// step is one status write of the fake operator, after a pause.
type step struct {
	after time.Duration
	apply func(obj client.Object, value string)
}

// handles sets lastHandledReconcileAt to the request's value and Ready to
// ready.
func handles(after time.Duration, ready metav1.Condition) step {
	return step{after: after, apply: func(obj client.Object, value string) {
		switch o := obj.(type) {
		case *v1alpha1.ListEntry:
			o.Status.LastHandledReconcileAt = value
			meta.SetStatusCondition(&o.Status.Conditions, ready)
		case v1alpha1.List:
			o.ListStatus().LastHandledReconcileAt = value
			meta.SetStatusCondition(&o.ListStatus().Conditions, ready)
		}
	}}
}

// operate runs a fake operator for the object r names until the test
// ends: it polls the object and, for each value of the reconcile
// annotation it has not handled yet, makes the status writes of steps in
// order. It returns the number of requests it has finished.
func operate(t *testing.T, r ref, steps ...step) *atomic.Int32 {
	t.Helper()
	c := kube(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var finished atomic.Int32
	pause := func(d time.Duration) bool {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(d):
			return true
		}
	}
	go func() {
		defer close(done)
		last := ""
		for pause(20 * time.Millisecond) {
			obj := r.object()
			if err := c.Get(ctx, r.key(), obj); err != nil {
				continue
			}
			value := obj.GetAnnotations()[v1alpha1.ReconcileRequestedAtAnnotation]
			if value == "" || value == last {
				continue
			}
			for _, s := range steps {
				if !pause(s.after) {
					return
				}
				for {
					if err := c.Get(ctx, r.key(), obj); err != nil {
						return
					}
					s.apply(obj, value)
					err := c.Status().Update(ctx, obj)
					if err == nil {
						break
					}
					if !apierrors.IsConflict(err) {
						if ctx.Err() == nil {
							t.Errorf("fake operator: status of %s: %v", r, err)
						}
						return
					}
				}
			}
			last = value
			finished.Add(1)
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return &finished
}

// finishedSoon reports whether the fake operator has finished n requests,
// waiting a moment for it: it counts a request after its last status
// write returns, and the plugin may see that write first.
func finishedSoon(finished *atomic.Int32, n int32) bool {
	for range 100 {
		if finished.Load() == n {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// fast are reconcileOptions for tests: a short poll.
func fast(timeout time.Duration) reconcileOptions {
	return reconcileOptions{Timeout: timeout, Interval: 20 * time.Millisecond}
}

func TestReconcileList(t *testing.T) {
	ns := newNamespace(t, "reconcile")
	now := time.Now().Truncate(time.Second)
	createList(t, &v1alpha1.ExternalList{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "allow-list"},
		Spec:       v1alpha1.ExternalListSpec{URL: listURL(ns)},
		Status: v1alpha1.ExternalListStatus{Conditions: []metav1.Condition{
			cond(v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, "53 items", now.Add(-time.Hour))}},
	})
	r := ref{Kind: kindExternalList, Namespace: ns, Name: "allow-list"}
	operate(t, r, handles(100*time.Millisecond, cond(v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, "54 items", now)))
	e, out := testEnvFor(t, ns, now)
	if err := runReconcile(context.Background(), e, r, fast(30*time.Second)); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	value := now.UTC().Format(time.RFC3339Nano)
	got := lines(out.String())
	want := []string{
		"annotated ExternalList " + ns + "/allow-list with listkeeper.dev/reconcile-requested-at=" + value,
		"waiting up to 30s for status.lastHandledReconcileAt",
		"handled after",
		"Ready: True (Ready): 54 items",
	}
	if len(got) != len(want) {
		t.Fatalf("output:\n%s\nwant lines starting with:\n%s", out, strings.Join(want, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("line %d: %q, want it to start with %q", i+1, got[i], want[i])
		}
	}
	var l v1alpha1.ExternalList
	if err := kube(t).Get(context.Background(), r.key(), &l); err != nil {
		t.Fatal(err)
	}
	if a := l.Annotations[v1alpha1.ReconcileRequestedAtAnnotation]; a != value || l.Status.LastHandledReconcileAt != value {
		t.Errorf("annotation %q, lastHandledReconcileAt %q, want both %q", a, l.Status.LastHandledReconcileAt, value)
	}
}

// TestReconcileReadyEntryWaits: an entry that is Ready already is still
// waited for until the operator has handled the request.
func TestReconcileReadyEntryWaits(t *testing.T) {
	ns := newNamespace(t, "reconcile")
	now := time.Now().Truncate(time.Second)
	added := cond(v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonAdded, `ID "tenant-a" is on ExternalList "allow-list" (53 items)`, now.Add(-time.Hour))
	createEntry(t, ns, "tenant-a", v1alpha1.ListReference{Name: "allow-list"}, added)
	r := ref{Kind: kindListEntry, Namespace: ns, Name: "tenant-a"}
	finished := operate(t, r, handles(300*time.Millisecond, added))
	e, out := testEnvFor(t, ns, now)
	start := time.Now()
	if err := runReconcile(context.Background(), e, r, fast(30*time.Second)); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !finishedSoon(finished, 1) || time.Since(start) < 300*time.Millisecond {
		t.Errorf("reconcile returned after %v, before the operator handled the request:\n%s", time.Since(start), out)
	}
	if !strings.Contains(out.String(), "\nReady: True (Added): ") {
		t.Errorf("output does not end with the outcome:\n%s", out)
	}
}

// TestReconcileEntryInFlight: an entry whose change is still in flight
// when the request is handled is waited for until it has an outcome.
func TestReconcileEntryInFlight(t *testing.T) {
	ns := newNamespace(t, "reconcile")
	now := time.Now().Truncate(time.Second)
	createEntry(t, ns, "tenant-a", v1alpha1.ListReference{Name: "allow-list"},
		cond(v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonListUnreachable, "connection refused", now.Add(-time.Hour)))
	r := ref{Kind: kindListEntry, Namespace: ns, Name: "tenant-a"}
	finished := operate(t, r,
		handles(50*time.Millisecond, cond(v1alpha1.ConditionReady, metav1.ConditionUnknown, v1alpha1.ReasonProgressing, "adding", now)),
		handles(300*time.Millisecond, cond(v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonAdded, "on the list", now)))
	e, out := testEnvFor(t, ns, now)
	if err := runReconcile(context.Background(), e, r, fast(30*time.Second)); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !finishedSoon(finished, 1) || !strings.HasSuffix(out.String(), "Ready: True (Added): on the list\n") {
		t.Errorf("reconcile did not wait for the outcome:\n%s", out)
	}
}

// TestReconcileNotReady: the request is handled, and the list is not
// Ready: the outcome is an error, as `flux reconcile` makes it.
func TestReconcileNotReady(t *testing.T) {
	c, ctx := kube(t), context.Background()
	now := time.Now().Truncate(time.Second)
	name := newNamespace(t, "cxl") // a unique name for the cluster-scoped list
	l := &v1alpha1.ClusterExternalList{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       v1alpha1.ClusterExternalListSpec{ExternalListSpec: v1alpha1.ExternalListSpec{URL: listURL(name)}},
	}
	if err := c.Create(ctx, l); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), l) })
	r := ref{Kind: kindClusterExternalList, Name: name}
	operate(t, r, handles(0, cond(v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonUnauthorized, "the server answered 401", now)))
	e, out := testEnvFor(t, "default", now)
	err := runReconcile(ctx, e, r, fast(30*time.Second))
	if err == nil || !strings.Contains(err.Error(), "ClusterExternalList "+name+" is not ready (Unauthorized); kubectl listkeeper why cxl/"+name+" says more") {
		t.Errorf("error %v, want it to say the list is not ready", err)
	}
	if !strings.HasSuffix(out.String(), "Ready: False (Unauthorized): the server answered 401\n") {
		t.Errorf("output does not end with the outcome:\n%s", out)
	}
}

// TestReconcileTimeout: nobody handles the request; the error says what
// was seen last, and why a stalled list never records it.
func TestReconcileTimeout(t *testing.T) {
	ns := newNamespace(t, "reconcile")
	now := time.Now().Truncate(time.Second)
	msg := `host "127.0.0.1" is not in --allowed-hosts`
	createList(t, &v1alpha1.ExternalList{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "allow-list"},
		Spec:       v1alpha1.ExternalListSpec{URL: listURL(ns)},
		Status: v1alpha1.ExternalListStatus{Conditions: []metav1.Condition{
			cond(v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonHostNotAllowed, msg, now),
			cond(v1alpha1.ConditionStalled, metav1.ConditionTrue, v1alpha1.ReasonHostNotAllowed, msg, now)}},
	})
	e, out := testEnvFor(t, ns, now)
	err := runReconcile(context.Background(), e, ref{Kind: kindExternalList, Namespace: ns, Name: "allow-list"}, fast(300*time.Millisecond))
	value := now.UTC().Format(time.RFC3339Nano)
	for _, want := range []string{
		"timed out after 300ms: ExternalList " + ns + `/allow-list has status.lastHandledReconcileAt "", not "` + value + `"`,
		"Ready is False (HostNotAllowed): " + msg,
		"a list records the request only once the resync it asked for succeeds",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v\nwant it to contain %q", err, want)
		}
	}
	if !strings.Contains(out.String(), "note: it is Stalled (HostNotAllowed) and may record the request only once the cause is fixed") {
		t.Errorf("no note that the list is stalled:\n%s", out)
	}

	err = runReconcile(context.Background(), e, ref{Kind: kindListEntry, Namespace: ns, Name: "nobody"}, fast(time.Second))
	if !apierrors.IsNotFound(err) {
		t.Errorf("reconcile of a missing entry: %v, want NotFound", err)
	}
}
