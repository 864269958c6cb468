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
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// gatedServer is a fake list server behind a gate: while the gate is held,
// every PUT waits until it is released (or its client gives up), so a test
// can look at the cluster while a write is in flight.
type gatedServer struct {
	*fakeapi.Server
	url string

	mu   sync.Mutex
	wait chan struct{} // nil when open
	held atomic.Int64  // PUTs that waited at the gate
}

// newGatedServer starts a fake list server behind an open gate, closed when
// the test ends (after the gate is released).
func newGatedServer(t *testing.T) *gatedServer {
	t.Helper()
	srv, err := fakeapi.New()
	if err != nil {
		t.Fatal(err)
	}
	g := &gatedServer{Server: srv}
	hs := httptest.NewServer(g)
	g.url = hs.URL
	t.Cleanup(hs.Close)
	t.Cleanup(g.release) // runs first: Close waits for held requests
	return g
}

// hold closes the gate: PUTs from now on wait.
func (g *gatedServer) hold() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.wait == nil {
		g.wait = make(chan struct{})
	}
}

// release opens the gate and lets the waiting PUTs through.
func (g *gatedServer) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.wait != nil {
		close(g.wait)
		g.wait = nil
	}
}

func (g *gatedServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPut {
		g.mu.Lock()
		wait := g.wait
		g.mu.Unlock()
		if wait != nil {
			g.held.Add(1)
			select {
			case <-wait:
			case <-r.Context().Done():
				return // the client gave up; nothing was processed
			}
		}
	}
	g.Server.ServeHTTP(w, r)
}

// kstatusOf reads obj from the API server and returns what kstatus (the
// library kubectl wait's successors, Flux and Argo CD's health checks
// build on) computes for it.
func kstatusOf(obj client.Object) (*status.Result, error) {
	if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
		return nil, err
	}
	raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: raw}
	gvks, _, err := testScheme.ObjectKinds(obj)
	if err != nil {
		return nil, err
	}
	u.SetGroupVersionKind(gvks[0])
	return status.Compute(u)
}

// waitKstatus waits until kstatus computes want for obj.
func waitKstatus(t *testing.T, obj client.Object, want status.Status) {
	t.Helper()
	eventually(t, waitTimeout, fmt.Sprintf("%T %s kstatus %s", obj, obj.GetName(), want), func() error {
		res, err := kstatusOf(obj)
		if err != nil {
			return err
		}
		if res.Status != want {
			return fmt.Errorf("kstatus is %s: %s (conditions %+v)", res.Status, res.Message, conditionsOf(obj))
		}
		return nil
	})
}

// requireConditions checks obj's Ready, Reconciling and Stalled conditions
// ("" = absent, else Status/Reason) and that each describes the current
// generation.
func requireConditions(t *testing.T, obj client.Object, ready, reconciling, stalled string) {
	t.Helper()
	if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
		t.Fatal(err)
	}
	for typ, want := range map[string]string{
		v1alpha1.ConditionReady: ready, v1alpha1.ConditionReconciling: reconciling, v1alpha1.ConditionStalled: stalled,
	} {
		got := ""
		if c := meta.FindStatusCondition(conditionsOf(obj), typ); c != nil {
			got = fmt.Sprintf("%s/%s", c.Status, c.Reason)
			if c.ObservedGeneration != obj.GetGeneration() {
				t.Errorf("%s %s: condition %s observedGeneration %d, want %d", obj.GetObjectKind(), obj.GetName(), typ, c.ObservedGeneration, obj.GetGeneration())
			}
		}
		if got != want {
			t.Errorf("%T %s: %s = %q, want %q", obj, obj.GetName(), typ, got, want)
		}
	}
}

// TestKstatus: kstatus itself reads both kinds as Current when synced,
// InProgress while a change is in flight or a transient failure is retried,
// and Failed when only the user can fix it.
func TestKstatus(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startManager(t, managerConfig{namespace: ns})

	t.Run("in flight, then current", func(t *testing.T) {
		t.Parallel()
		srv := newGatedServer(t)
		setDoc(t, srv.Server, "/list", []string{})
		xl := newExternalList(ns, "gated", srv.url+"/list")
		create(t, xl)
		waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
		waitKstatus(t, xl, status.CurrentStatus)
		requireConditions(t, xl, "True/Ready", "", "")

		srv.hold()
		e := newListEntry(ns, "gated-a", "gated", "gated-a")
		create(t, e)
		eventually(t, waitTimeout, "the entry's PUT to reach the gate", func() error {
			if srv.held.Load() == 0 {
				return errors.New("no PUT yet")
			}
			return nil
		})
		waitKstatus(t, e, status.InProgressStatus)
		requireConditions(t, e, "Unknown/Progressing", "True/Progressing", "")
		if slices.Contains(mustDocItems(t, srv.Server, "/list", ""), "gated-a") {
			t.Fatal("the ID is on the list while its write is held")
		}

		srv.release()
		waitCondition(t, e, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
		waitKstatus(t, e, status.CurrentStatus)
		requireConditions(t, e, "True/Added", "", "")
		waitCondition(t, e, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
		if e.Status.ObservedGeneration != e.Generation {
			t.Errorf("observedGeneration = %d, want %d", e.Status.ObservedGeneration, e.Generation)
		}
	})

	t.Run("stalled", func(t *testing.T) {
		t.Parallel()
		path := listPath(t, ns)
		setDoc(t, sharedLists, path, map[string]any{"not": "a list"})
		xl := newExternalList(ns, "not-a-list", sharedListsURL+path)
		create(t, xl)
		e := newListEntry(ns, "on-bad-doc", "not-a-list", "x")
		create(t, e)
		waitKstatus(t, xl, status.FailedStatus)
		requireConditions(t, xl, "False/InvalidDocument", "", "True/InvalidDocument")
		waitKstatus(t, e, status.FailedStatus)
		requireConditions(t, e, "False/InvalidDocument", "", "True/InvalidDocument")
		waitCondition(t, e, v1alpha1.ConditionSynced, metav1.ConditionFalse, v1alpha1.ReasonInvalidDocument, waitTimeout)

		missingDoc := newExternalList(ns, "no-doc", sharedListsURL+listPath(t, ns)+"-absent")
		create(t, missingDoc)
		waitKstatus(t, missingDoc, status.FailedStatus)
		requireConditions(t, missingDoc, "False/ListNotFound", "", "True/ListNotFound")
	})

	t.Run("transient failure is in progress", func(t *testing.T) {
		t.Parallel()
		down := httptest.NewServer(http.NotFoundHandler())
		downURL := down.URL
		down.Close() // nothing listens there any more
		xl := newExternalList(ns, "down", downURL+"/list")
		create(t, xl)
		e := newListEntry(ns, "on-down", "down", "y")
		create(t, e)
		waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonListUnreachable, waitTimeout)
		waitKstatus(t, xl, status.InProgressStatus)
		requireConditions(t, xl, "False/ListUnreachable", "True/ListUnreachable", "")
		waitCondition(t, e, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonListUnreachable, waitTimeout)
		waitKstatus(t, e, status.InProgressStatus)
		requireConditions(t, e, "False/ListUnreachable", "True/ListUnreachable", "")
	})

	t.Run("entry without its list waits", func(t *testing.T) {
		t.Parallel()
		e := newListEntry(ns, "orphan", "not-created-yet", "z")
		create(t, e)
		waitCondition(t, e, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonListNotFound, waitTimeout)
		waitKstatus(t, e, status.InProgressStatus)
		requireConditions(t, e, "False/ListNotFound", "True/ListNotFound", "")

		path := listPath(t, ns)
		setDoc(t, sharedLists, path, []string{})
		create(t, newExternalList(ns, "not-created-yet", sharedListsURL+path))
		waitKstatus(t, e, status.CurrentStatus)
		requireConditions(t, e, "True/Added", "", "")
	})
}

// TestExclusiveReportsForeignIDsBeforeRemoving: switching a list to
// Exclusive corrects drift at once (a spec change), and the foreign IDs it
// is about to remove show in status.foreignItemCount, a Reconciling
// condition and a Normal event while the removing write is still held;
// once it lands, foreignItemCount is 0 and the DriftCorrected event names
// them.
func TestExclusiveReportsForeignIDsBeforeRemoving(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startManager(t, managerConfig{namespace: ns})
	srv := newGatedServer(t)
	setDoc(t, srv.Server, "/list", map[string]any{"items": []string{}})
	xl := newExternalList(ns, "excl", srv.url+"/list", func(s *v1alpha1.ExternalListSpec) {
		s.ItemsPointer = "/items"
		s.ResyncInterval = &metav1.Duration{Duration: 1e9 * 3600} // 1h: only the spec change resyncs
	})
	create(t, xl)
	e := newListEntry(ns, "a", "excl", "a")
	create(t, e)
	waitCondition(t, e, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	// The list has synced its document once: foreign IDs that turn up
	// after that are named (a first sight only counts them).
	eventually(t, waitTimeout, "the list's first resync", func() error {
		if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(xl), xl); err != nil {
			return err
		}
		if xl.Status.LastSyncTime == nil {
			return errors.New("not synced yet")
		}
		return nil
	})

	setDoc(t, srv.Server, "/list", map[string]any{"items": []string{"a", "f1", "f2"}})
	srv.hold()
	setSpec(t, xl, func(s *v1alpha1.ExternalListSpec) { s.Mode = v1alpha1.ListModeExclusive })

	eventually(t, waitTimeout, "the removing PUT to reach the gate", func() error {
		if srv.held.Load() == 0 {
			return errors.New("no PUT yet")
		}
		return nil
	})
	eventually(t, waitTimeout, "foreign IDs reported before the removal", func() error {
		if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(xl), xl); err != nil {
			return err
		}
		rc := meta.FindStatusCondition(xl.Status.Conditions, v1alpha1.ConditionReconciling)
		if xl.Status.ForeignItemCount != 2 || rc == nil || rc.Status != metav1.ConditionTrue || rc.Reason != v1alpha1.ReasonProgressing {
			return fmt.Errorf("foreignItemCount %d, Reconciling %+v", xl.Status.ForeignItemCount, rc)
		}
		return nil
	})
	ev := waitEventAction(t, ns, "ExternalList", "excl", corev1.EventTypeNormal, v1alpha1.ReasonProgressing, "Resync", waitTimeout)
	if !strings.Contains(ev.Note, `removing 2 foreign IDs ("f1", "f2")`) {
		t.Errorf("announcement event = %q, want it to name the 2 foreign IDs", ev.Note)
	}
	if res, err := kstatusOf(xl); err != nil || res.Status != status.InProgressStatus {
		t.Errorf("kstatus while removing = %+v, %v; want InProgress", res, err)
	}
	if got := mustDocItems(t, srv.Server, "/list", "/items"); strings.Join(got, ",") != "a,f1,f2" {
		t.Fatalf("items = %v while the write is held; the report must come first", got)
	}

	srv.release()
	eventually(t, waitTimeout, "foreign IDs removed", func() error {
		if got := mustDocItems(t, srv.Server, "/list", "/items"); strings.Join(got, ",") != "a" {
			return fmt.Errorf("items = %v", got)
		}
		return nil
	})
	eventually(t, waitTimeout, "foreignItemCount back to 0", func() error {
		if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(xl), xl); err != nil {
			return err
		}
		if xl.Status.ForeignItemCount != 0 || xl.Status.ItemCount != 1 || !meta.IsStatusConditionTrue(xl.Status.Conditions, v1alpha1.ConditionReady) {
			return fmt.Errorf("status = %+v", xl.Status)
		}
		return nil
	})
	requireConditions(t, xl, "True/Ready", "", "")
	// The list's first resync may have raced the entry's own add and put
	// "a" on the list itself (an earlier DriftCorrected event), so look
	// for the one of this removal.
	eventually(t, waitTimeout, "a DriftCorrected event naming the removed IDs", func() error {
		var notes []string
		for _, e := range events(t, ns) {
			if e.Regarding.Name == "excl" && e.Reason == v1alpha1.ReasonDriftCorrected {
				if strings.Contains(e.Note, `removed 2 ("f1", "f2")`) {
					return nil
				}
				notes = append(notes, e.Note)
			}
		}
		return fmt.Errorf("DriftCorrected events so far: %q", notes)
	})
}
