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
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
	"github.com/listkeeper/listkeeper/internal/listconfig"
)

// These tests replay, step by step, interleavings that the three-replica
// test can only hit by chance.

type nopRecorder struct{}

func (nopRecorder) Eventf(runtime.Object, runtime.Object, string, string, string, string, ...any) {}

// TestExclusiveResyncRecheck: an Exclusive resync decides from a cache that
// does not show a new entry yet. Between the resync's read and its write,
// the new entry's ID is added (by the entry controller of any replica); the
// write, re-applied to a fresh read after the 412, takes it off again. The
// re-check against the API server must put it back, or the ID of a live,
// Synced entry stays off the list until the next resync.
func TestExclusiveResyncRecheck(t *testing.T) {
	t.Parallel()
	var puts atomic.Int64
	var lists *fakeServer
	lists = newFakeServer(t, fakeapi.WithFaultHook(func(r *http.Request) fakeapi.Fault {
		if r.Method == http.MethodPut && puts.Add(1) == 1 {
			// The entry controller's add lands just before the resync's write.
			if _, err := lists.srv.Set("/list", []byte(`["foreign","late-id"]`)); err != nil {
				t.Error(err)
			}
		}
		return fakeapi.Fault{}
	}))
	setDoc(t, lists.srv, "/list", []string{"foreign"})

	xl := &v1alpha1.ExternalList{
		ObjectMeta: metav1.ObjectMeta{Name: "excl", Namespace: "ns", UID: "xl-uid", Generation: 1},
		Spec:       v1alpha1.ExternalListSpec{URL: lists.url + "/list", Mode: v1alpha1.ListModeExclusive},
	}
	// The list synced this document before and holds its claim: the
	// resync may remove foreign IDs.
	synced := metav1.NewTime(time.Now().Add(-time.Hour))
	xl.Status = v1alpha1.ExternalListStatus{EarnedClaim: listconfig.ClaimID(xl), LastSyncTime: &synced,
		LastSyncDocumentID: listconfig.DocumentIDOfURL(xl.Spec.URL)}
	late := newListEntry("ns", "late", "excl", "late-id")
	late.UID = "late-uid"
	// Its add landed, so its finalizer is on.
	late.Finalizers = []string{v1alpha1.FinalizerName}
	// The cache does not show the new entry yet; the API server does.
	cached := indexedFake(xl.DeepCopy()).WithStatusSubresource(&v1alpha1.ExternalList{}).Build()
	live := indexedFake(xl.DeepCopy(), late).Build()
	lc := newTestListClients(cached, live, SoleOwner{}, etagclient.WithConflictPolicy(testConflictPolicy))
	t.Cleanup(lc.Close)
	r := &ListReconciler{Client: cached, APIReader: live, Lists: lc, Recorder: nopRecorder{}, Owner: SoleOwner{}}

	if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "excl"}}); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	if puts.Load() < 2 {
		t.Fatalf("the scenario did not happen: %d PUTs", puts.Load())
	}
	got := mustDocItems(t, lists.srv, "/list", "")
	if strings.Join(got, ",") != "late-id" {
		t.Errorf("items = %v, want [late-id]: the foreign ID goes, the live entry's ID stays", got)
	}
}

// indexedFake returns a fake client builder with objs and the cache's
// indexes. The fake client serves field selectors from indexes, as the
// API server serves the CRD's selectable fields.
func indexedFake(objs ...client.Object) *fake.ClientBuilder {
	b := fake.NewClientBuilder().WithScheme(testScheme).WithObjects(objs...)
	for _, i := range append(entryIndexes(), listIndexes("default")...) {
		b = b.WithIndex(i.obj, i.field, i.extract)
	}
	return b
}

// newTestListClients wires ListClients as Setup does, on the given readers.
func newTestListClients(cached, live client.Reader, owner Owner, opts ...etagclient.Option) *listconfig.ListClients {
	return &listconfig.ListClients{Options: opts, Owner: owner,
		Resolver: &listconfig.Resolver{Cached: cached, Live: live, ClusterNamespace: "default"}}
}
