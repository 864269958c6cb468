package controller

import (
	"context"
	"errors"
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
)

// These tests replay, step by step, interleavings of two replicas that the
// three-replica test can only hit by chance. Replica A is a real manager (or
// nothing); replica B is a reconciler driven by hand, whose list requests a
// fault hook can hold.

type nopRecorder struct{}

func (nopRecorder) Eventf(runtime.Object, runtime.Object, string, string, string, string, ...any) {}

// TestLateAddAfterEntryGone: replica B submits the add of an entry's ID,
// but its request is slow; meanwhile the entry is deleted and replica A
// takes the ID off and releases the entry. B's add then lands. When B next
// looks, the entry is gone from its cache: B must still take the ID off
// again, or it stays on the list forever with no entry holding it.
func TestLateAddAfterEntryGone(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startManager(t, managerConfig{namespace: ns}) // replica A

	hold := newGate()
	var heldB atomic.Int64
	lists := newFakeServer(t, fakeapi.WithFaultHook(func(r *http.Request) fakeapi.Fault {
		if r.Header.Get("X-Replica") == "b" {
			heldB.Add(1)
			hold.wait()
		}
		return fakeapi.Fault{}
	}))
	t.Cleanup(hold.release) // before the server closes (cleanups run last first)
	setDoc(t, lists.srv, "/list", []string{"bystander"})
	listsB := &ListClients{Cached: k8sClient, Live: k8sClient, Options: []etagclient.Option{
		etagclient.WithHeaders(http.Header{"X-Replica": {"b"}}),
		etagclient.WithConflictPolicy(testConflictPolicy),
		etagclient.WithRequestTimeout(time.Minute),
	}}
	t.Cleanup(listsB.Close)
	b := &EntryReconciler{Client: k8sClient, APIReader: k8sClient, Lists: listsB, Recorder: nopRecorder{}}

	create(t, newExternalList(ns, "allow", lists.url+"/list"))
	e := newListEntry(ns, "late", "allow", "late-id")
	create(t, e)
	waitCondition(t, e, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)

	// B sees the entry and submits its add; the request is held.
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(e)}
	if _, err := b.Reconcile(context.Background(), req); err != nil {
		t.Fatalf("B's first reconcile: %v", err)
	}
	eventually(t, waitTimeout, "B's request to reach the server", func() error {
		if heldB.Load() == 0 {
			return errNotYet
		}
		return nil
	})

	// The entry is deleted; A takes the ID off and lets the entry go.
	deleteObj(t, e)
	waitGone(t, e, waitTimeout)
	if items := mustDocItems(t, lists.srv, "/list", ""); contains(items, "late-id") {
		t.Fatalf("A left the ID on the list: %v", items)
	}

	// B's add lands after all.
	hold.release()
	waitOnList(t, lists.srv, "/list", "", "late-id", true, waitTimeout)
	eventually(t, waitTimeout, "B's add to complete", func() error {
		if !b.flights.allDone() {
			return errNotYet
		}
		return nil
	})

	// B's add completion queues the entry again; B finds it gone.
	if _, err := b.Reconcile(context.Background(), req); err != nil {
		t.Fatalf("B's reconcile after the add: %v", err)
	}
	waitOnList(t, lists.srv, "/list", "", "late-id", false, 5*time.Second)
	if got := mustDocItems(t, lists.srv, "/list", ""); strings.Join(got, ",") != "bystander" {
		t.Errorf("items = %v, want [bystander]", got)
	}
	if n := b.flights.len(); n != 0 {
		t.Errorf("B still tracks %d flights for an entry that is gone", n)
	}
}

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
	late := newListEntry("ns", "late", "excl", "late-id")
	late.UID = "late-uid"
	// The cache does not show the new entry yet; the API server does.
	cached := fake.NewClientBuilder().WithScheme(testScheme).
		WithObjects(xl.DeepCopy()).WithStatusSubresource(&v1alpha1.ExternalList{}).
		WithIndex(&v1alpha1.ListEntry{}, listRefField, func(o client.Object) []string {
			return []string{o.(*v1alpha1.ListEntry).Spec.ListRef.Name}
		}).Build()
	// The fake client serves field selectors from indexes; the API server
	// serves this one from the CRD's selectable field.
	live := fake.NewClientBuilder().WithScheme(testScheme).WithObjects(xl.DeepCopy(), late).
		WithIndex(&v1alpha1.ListEntry{}, listRefField, func(o client.Object) []string {
			return []string{o.(*v1alpha1.ListEntry).Spec.ListRef.Name}
		}).Build()
	lc := &ListClients{Cached: cached, Live: live, Options: []etagclient.Option{etagclient.WithConflictPolicy(testConflictPolicy)}}
	t.Cleanup(lc.Close)
	r := &ListReconciler{Client: cached, APIReader: live, Lists: lc, Recorder: nopRecorder{}}

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

// allDone reports whether every tracked flight has completed.
func (f *flights) allDone() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, fl := range f.m {
		if _, err := fl.pending.Result(); errors.Is(err, etagclient.ErrNotDone) {
			return false
		}
	}
	return true
}
