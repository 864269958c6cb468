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
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// finalizerPatch reports whether a Patch call adds or removes a ListEntry's
// finalizer (rather than writing its status).
func finalizerPatch(obj client.Object) bool {
	_, ok := obj.(*v1alpha1.ListEntry)
	return ok
}

// requirePatchedFinalizer skips a test of the path on which the operator
// patches the finalizer on: where the API server puts it on at creation
// (the MutatingAdmissionPolicy, installed on 1.36 and later) no entry
// lacks it. make test-compat (Kubernetes 1.31) runs these tests.
func requirePatchedFinalizer(t *testing.T) {
	t.Helper()
	requireEnv(t)
	if testEnv.FinalizerPolicy() {
		t.Skip("the API server puts the finalizer on at creation; make test-compat runs the path without the policy")
	}
}

// TestFinalizerFromBirthNeedsNoPatch: where the API server puts the
// finalizer on at creation, the operator makes no finalizer patch for a
// new entry, and every entry carries the finalizer from its first state.
func TestFinalizerFromBirthNeedsNoPatch(t *testing.T) {
	t.Parallel()
	requireEnv(t)
	if !testEnv.FinalizerPolicy() {
		t.Skip("no MutatingAdmissionPolicy on this kube-apiserver (before 1.36): the operator patches the finalizer on")
	}
	ns := newNamespace(t)
	lists := newFakeServer(t)
	setDoc(t, lists.srv, "/list", []string{"bystander"})
	var adds atomic.Int64
	startManager(t, managerConfig{namespace: ns, interceptor: &interceptor.Funcs{
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			if finalizerPatch(obj) && controllerutil.ContainsFinalizer(obj, v1alpha1.FinalizerName) {
				adds.Add(1)
			}
			return c.Patch(ctx, obj, patch, opts...)
		},
	}})
	xl := newExternalList(ns, "allow", lists.url+"/list")
	create(t, xl)
	waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	var entries []*v1alpha1.ListEntry
	for i := range 5 {
		e := newListEntry(ns, fmt.Sprintf("born-%d", i), "allow", fmt.Sprintf("id-%d", i))
		create(t, e)
		if !controllerutil.ContainsFinalizer(e, v1alpha1.FinalizerName) {
			t.Fatalf("entry %s as created has finalizers %v, want %s from the policy", e.Name, e.Finalizers, v1alpha1.FinalizerName)
		}
		entries = append(entries, e)
	}
	for _, e := range entries {
		waitCondition(t, e, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	}
	if n := adds.Load(); n != 0 {
		t.Fatalf("%d finalizer patches for entries born with the finalizer, want none", n)
	}
}

// TestFinalizerThatDidNotLandStopsTheAdd: an entry created and deleted
// before its finalizer (within ~40 ms) is still live in the owner's cache;
// adding the finalizer answers 404. Before, patchFinalizer swallowed the
// 404 and the add was submitted anyway: the ID landed with no holder and
// stayed. Now a finalizer patch that did not land stops the reconcile, and
// the list server sees no request at all for the entry.
func TestFinalizerThatDidNotLandStopsTheAdd(t *testing.T) {
	t.Parallel()
	requirePatchedFinalizer(t)
	ns := newNamespace(t)
	var requests atomic.Int64
	lists := newFakeServer(t, fakeapi.WithFaultHook(func(r *http.Request) fakeapi.Fault {
		requests.Add(1)
		return fakeapi.Fault{}
	}))
	setDoc(t, lists.srv, "/list", []string{"bystander"})
	var refused atomic.Int64
	startManager(t, managerConfig{namespace: ns, interceptor: &interceptor.Funcs{
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			if finalizerPatch(obj) && obj.GetNamespace() == ns && controllerutil.ContainsFinalizer(obj, v1alpha1.FinalizerName) {
				// The entry is gone by the time the patch arrives.
				refused.Add(1)
				return apierrors.NewNotFound(schema.GroupResource{Group: "listkeeper.dev", Resource: "listentries"}, obj.GetName())
			}
			return c.Patch(ctx, obj, patch, opts...)
		},
	}})
	xl := newExternalList(ns, "allow", lists.url+"/list")
	create(t, xl)
	waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	before := requests.Load()
	e := newListEntry(ns, "ghost", "allow", "ghost-id")
	create(t, e)
	eventually(t, waitTimeout, "the finalizer patch to be refused", func() error {
		if refused.Load() == 0 {
			return errors.New("not refused yet")
		}
		return nil
	})
	// Give a wrongly submitted add every chance to go out (a batch
	// interval and more).
	time.Sleep(1500 * time.Millisecond)
	if n := requests.Load() - before; n != 0 {
		t.Fatalf("the list server saw %d requests after a finalizer patch that did not land; want none", n)
	}
	if got := mustDocItems(t, lists.srv, "/list", ""); len(got) != 1 {
		t.Fatalf("the document holds %v, want only the bystander", got)
	}
}

// TestFinalizerLandsBeforeTheAdd: the finalizer is the durable record that
// an ID may be on the list, so it must be on the entry before the ID is
// submitted. The finalizer patch is slowed down; no list request may reach
// the server before it returned. (Deferring the patch until after the
// submit passed every other test.)
func TestFinalizerLandsBeforeTheAdd(t *testing.T) {
	t.Parallel()
	requirePatchedFinalizer(t)
	ns := newNamespace(t)
	var patched atomic.Bool
	var early atomic.Int64
	lists := newFakeServer(t, fakeapi.WithFaultHook(func(r *http.Request) fakeapi.Fault {
		if !patched.Load() {
			early.Add(1)
		}
		return fakeapi.Fault{}
	}))
	setDoc(t, lists.srv, "/list", []string{})
	startManager(t, managerConfig{namespace: ns, interceptor: &interceptor.Funcs{
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			adding := finalizerPatch(obj) && obj.GetNamespace() == ns && controllerutil.ContainsFinalizer(obj, v1alpha1.FinalizerName)
			if adding {
				time.Sleep(500 * time.Millisecond)
			}
			err := c.Patch(ctx, obj, patch, opts...)
			if adding && err == nil {
				patched.Store(true)
			}
			return err
		},
	}})
	xl := newExternalList(ns, "allow", lists.url+"/list", func(s *v1alpha1.ExternalListSpec) {
		s.ResyncInterval = &metav1.Duration{Duration: time.Hour}
	})
	create(t, xl)
	waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	early.Store(0)
	e := newListEntry(ns, "e", "allow", "id-1")
	create(t, e)
	waitCondition(t, e, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	if n := early.Load(); n != 0 {
		t.Fatalf("%d list requests reached the server before the entry's finalizer landed", n)
	}
}

// TestListMissingFromTheCacheKeepsTheFinalizer: a replica whose cache does
// not show a deleting entry's list must not release the finalizer without
// a write while the list exists; only a read from the API server that
// finds the list gone lets it go. Before, the entry fell into a fallback
// bucket and was released at once. The fake clients stand in for a cache
// that trails the API server.
func TestListMissingFromTheCacheKeepsTheFinalizer(t *testing.T) {
	t.Parallel()
	xl := &v1alpha1.ExternalList{ObjectMeta: metav1.ObjectMeta{Name: "allow", Namespace: "ns", UID: "xl"},
		Spec: v1alpha1.ExternalListSpec{URL: "http://127.0.0.1:1/list"}}
	e := newListEntry("ns", "e", "allow", "id-1")
	e.Finalizers = []string{v1alpha1.FinalizerName}
	now := metav1.Now()
	e.DeletionTimestamp = &now
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(e)}

	for _, tt := range []struct {
		name        string
		listOnAPI   bool
		wantRelease bool
	}{
		{"the API server still has the list: the finalizer stays", true, false},
		{"the API server confirms the list is gone: released without a write", false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cached := indexedFake(e.DeepCopy()).Build()
			liveObjs := []client.Object{e.DeepCopy()}
			if tt.listOnAPI {
				liveObjs = append(liveObjs, xl.DeepCopy())
			}
			live := indexedFake(liveObjs...).Build()
			r := &EntryReconciler{Client: cached, APIReader: live, Recorder: nopRecorder{}, Owner: SoleOwner{},
				Lists: newTestListClients(cached, live, SoleOwner{})}
			if _, err := r.Reconcile(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			got := &v1alpha1.ListEntry{}
			err := cached.Get(context.Background(), req.NamespacedName, got)
			released := apierrors.IsNotFound(err) || (err == nil && !controllerutil.ContainsFinalizer(got, v1alpha1.FinalizerName))
			if released != tt.wantRelease {
				t.Fatalf("finalizer released = %t, want %t", released, tt.wantRelease)
			}
		})
	}
}
