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
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// failureBackoff is the work queues' backoff in these tests: a failed
// reconcile is not retried for an hour, and the resync interval is as long.
// Whatever happens within waitTimeout (30s) after a failure was caused by
// the event under test, not by a retry or a resync.
const failureBackoff = time.Hour

func hourBackoff() workqueue.TypedRateLimiter[reconcile.Request] {
	return workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](failureBackoff, failureBackoff)
}

// annotate sets the reconcile-requested-at annotation of obj to value.
func annotate(t *testing.T, obj client.Object, value string) {
	t.Helper()
	if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(obj.DeepCopyObject().(client.Object))
	ann := obj.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	ann[v1alpha1.ReconcileRequestedAtAnnotation] = value
	obj.SetAnnotations(ann)
	if err := k8sClient.Patch(context.Background(), obj, patch); err != nil {
		t.Fatalf("annotate %s: %v", obj.GetName(), err)
	}
}

// downServer is a fake list server of its own that answers every list
// request 503 until up is called.
type downServer struct {
	*fakeapi.Server
	url string
}

func newDownServer(t *testing.T) *downServer {
	t.Helper()
	fs := newFakeServer(t)
	if err := fs.srv.SetFaults(fakeapi.Faults{Rate503: 1, RetryAfter: time.Second}); err != nil {
		t.Fatal(err)
	}
	return &downServer{Server: fs.srv, url: fs.url}
}

func (d *downServer) up(t *testing.T) {
	t.Helper()
	if err := d.SetFaults(fakeapi.Faults{}); err != nil {
		t.Fatal(err)
	}
}

// TestImmediateReconcile: the work that would otherwise wait for a resync
// interval or a failure backoff (both an hour here) happens at once when
// the user asks for it (reconcile-requested-at), when the spec changes,
// and, for entries, when their list turns Ready again.
func TestImmediateReconcile(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startManager(t, managerConfig{namespace: ns, newRateLimiter: hourBackoff})
	hour := func(s *v1alpha1.ExternalListSpec) { s.ResyncInterval = &metav1.Duration{Duration: failureBackoff} }

	// driftedList returns a synced list with one entry whose ID was then
	// taken off behind the operator's back.
	driftedList := func(t *testing.T, name string) (*v1alpha1.ExternalList, string) {
		t.Helper()
		path := listPath(t, ns)
		setDoc(t, sharedLists, path, []string{"bystander"})
		xl := newExternalList(ns, name, sharedListsURL+path, hour)
		create(t, xl)
		// Ready before the entry exists, so that turning Ready queues no
		// entry that could put the ID back after the drift below.
		waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
		e := newListEntry(ns, name+"-e", name, name+"-id")
		create(t, e)
		waitCondition(t, e, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
		setDoc(t, sharedLists, path, []string{"bystander"})
		return xl, path
	}

	t.Run("list: reconcile-requested-at corrects drift", func(t *testing.T) {
		t.Parallel()
		xl, path := driftedList(t, "requested")
		// As docs/reference.md, "Reconcile now", says to.
		if out, err := kubectl(t, "annotate", "-n", ns, "--overwrite", "xl/requested",
			v1alpha1.ReconcileRequestedAtAnnotation+"=1700000001"); err != nil {
			t.Fatalf("kubectl annotate: %v\n%s", err, out)
		}
		waitOnList(t, sharedLists, path, "", "requested-id", true, waitTimeout)
		eventually(t, waitTimeout, "lastHandledReconcileAt", func() error {
			if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(xl), xl); err != nil {
				return err
			}
			if xl.Status.LastHandledReconcileAt != "1700000001" {
				return fmt.Errorf("lastHandledReconcileAt = %q", xl.Status.LastHandledReconcileAt)
			}
			return nil
		})
		ev := waitEvent(t, ns, "ExternalList", "requested", corev1.EventTypeNormal, v1alpha1.ReasonDriftCorrected, waitTimeout)
		if !strings.Contains(ev.Note, `added 1 IDs ("requested-id")`) {
			t.Errorf("DriftCorrected event = %q, want it to name the ID", ev.Note)
		}

		// A new value is a new request.
		setDoc(t, sharedLists, path, []string{"bystander"})
		annotate(t, xl, "1700000002")
		waitOnList(t, sharedLists, path, "", "requested-id", true, waitTimeout)
	})

	t.Run("list: a spec change corrects drift", func(t *testing.T) {
		t.Parallel()
		xl, path := driftedList(t, "respec")
		patch := client.MergeFrom(xl.DeepCopy())
		xl.Spec.ResyncInterval = &metav1.Duration{Duration: 2 * failureBackoff}
		if err := k8sClient.Patch(context.Background(), xl, patch); err != nil {
			t.Fatal(err)
		}
		waitOnList(t, sharedLists, path, "", "respec-id", true, waitTimeout)
	})

	t.Run("entry: reconcile-requested-at skips its backoff", func(t *testing.T) {
		t.Parallel()
		srv := newDownServer(t)
		setDoc(t, srv.Server, "/list", []string{})
		create(t, newExternalList(ns, "down-entry", srv.url+"/list", hour))
		e := newListEntry(ns, "retried", "down-entry", "retried-id")
		create(t, e)
		// A failed attempt: the next retry is an hour away.
		waitCondition(t, e, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonListUnreachable, waitTimeout)
		srv.up(t)
		annotate(t, e, "now")
		waitCondition(t, e, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
		if e.Status.LastHandledReconcileAt != "now" {
			t.Errorf("lastHandledReconcileAt = %q, want %q", e.Status.LastHandledReconcileAt, "now")
		}
		if !slices.Contains(mustDocItems(t, srv.Server, "/list", ""), "retried-id") {
			t.Error("the ID is not on the list")
		}
	})

	t.Run("entries: their list turning Ready skips their backoff", func(t *testing.T) {
		t.Parallel()
		srv := newDownServer(t)
		setDoc(t, srv.Server, "/list", []string{})
		xl := newExternalList(ns, "comes-back", srv.url+"/list", hour)
		create(t, xl)
		waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonListUnreachable, waitTimeout)
		var entries []*v1alpha1.ListEntry
		for i := range 3 {
			e := newListEntry(ns, fmt.Sprintf("back-%d", i), "comes-back", fmt.Sprintf("back-%d", i))
			create(t, e)
			entries = append(entries, e)
		}
		// Each has failed once: its next retry is an hour away.
		for _, e := range entries {
			waitCondition(t, e, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonListUnreachable, waitTimeout)
		}
		srv.up(t)
		// The list itself is in its own hour of backoff; asking it to look
		// again (not the entries) is what turns it Ready.
		annotate(t, xl, "back")
		waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
		for _, e := range entries {
			waitCondition(t, e, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
			if e.Status.LastHandledReconcileAt != "" {
				t.Errorf("%s was annotated (lastHandledReconcileAt %q); only its list should have been", e.Name, e.Status.LastHandledReconcileAt)
			}
		}
		got := mustDocItems(t, srv.Server, "/list", "")
		slices.Sort(got)
		if strings.Join(got, ",") != "back-0,back-1,back-2" {
			t.Errorf("items = %v, want the 3 entries' IDs", got)
		}
	})
}
