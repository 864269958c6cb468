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
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// ownServer is newFakeServer, as a server and its URL.
func ownServer(t *testing.T, opts ...fakeapi.Option) (*fakeapi.Server, string) {
	t.Helper()
	fs := newFakeServer(t, opts...)
	return fs.srv, fs.url
}

// createSynced creates entries (name = ID) on list and waits until each
// is Synced.
func createSynced(t *testing.T, ns, list string, ids ...string) []*v1alpha1.ListEntry {
	t.Helper()
	var out []*v1alpha1.ListEntry
	for _, id := range ids {
		e := newListEntry(ns, list+"-"+id, list, id)
		create(t, e)
		out = append(out, e)
	}
	for _, e := range out {
		waitCondition(t, e, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	}
	return out
}

// wantItems fails t unless the document at path holds exactly want, in
// any order.
func wantItems(t *testing.T, srv *fakeapi.Server, path string, want ...string) {
	t.Helper()
	got := slices.Clone(mustDocItems(t, srv, path, ""))
	slices.Sort(got)
	want = slices.Clone(want)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("items = %v, want %v", got, want)
	}
}

// finalizers reads obj's finalizers from the API server.
func finalizers(t *testing.T, obj client.Object) []string {
	t.Helper()
	if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
		t.Fatal(err)
	}
	return obj.GetFinalizers()
}

const foreignFinalizer = "example.com/hold"

// TestDeletionPolicyOrphan: with the default policy, deleting the
// ExternalList and its entries, in either order, leaves every ID on the
// list, and writes nothing.
func TestDeletionPolicyOrphan(t *testing.T) {
	t.Parallel()
	ids := []string{"tenant-a", "tenant-b"}

	t.Run("list first", func(t *testing.T) {
		t.Parallel()
		ns := newNamespace(t)
		srv, url := ownServer(t)
		startManager(t, managerConfig{namespace: ns})
		setDoc(t, srv, "/list", []string{"bystander"})
		xl := newExternalList(ns, "allow", url+"/list")
		create(t, xl)
		entries := createSynced(t, ns, "allow", ids...)
		waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
		if xl.Spec.DeletionPolicy != v1alpha1.DeletionPolicyOrphan {
			t.Errorf("deletionPolicy defaulted to %q, want Orphan", xl.Spec.DeletionPolicy)
		}
		if f := finalizers(t, xl); len(f) != 0 {
			t.Errorf("an Orphan ExternalList carries finalizers %v; it must never wait for the operator", f)
		}
		commits := srv.Stats().Commits

		deleteObj(t, xl)
		waitGone(t, xl, waitTimeout)
		for _, e := range entries {
			deleteObj(t, e)
		}
		for _, e := range entries {
			waitGone(t, e, waitTimeout)
			waitEvent(t, ns, "ListEntry", e.Name, corev1.EventTypeWarning, v1alpha1.ReasonRemoveSkipped, waitTimeout)
		}
		wantItems(t, srv, "/list", append([]string{"bystander"}, ids...)...)
		if n := srv.Stats().Commits - commits; n != 0 {
			t.Errorf("%d writes after the deletions began, want none", n)
		}
	})

	t.Run("entries first", func(t *testing.T) {
		t.Parallel()
		ns := newNamespace(t)
		srv, url := ownServer(t)
		rep := startManager(t, managerConfig{namespace: ns})
		setDoc(t, srv, "/list", []string{"bystander"})
		xl := newExternalList(ns, "allow", url+"/list")
		create(t, xl)
		entries := createSynced(t, ns, "allow", ids...)
		commits := srv.Stats().Commits

		// The deletions reach the API server in this order while no
		// operator runs (as when a namespace is deleted, or the operator
		// restarts): the entries first, then their ExternalList.
		rep.stop()
		for _, e := range entries {
			deleteObj(t, e)
		}
		deleteObj(t, xl)
		waitGone(t, xl, waitTimeout)
		startManager(t, managerConfig{namespace: ns})
		for _, e := range entries {
			waitGone(t, e, waitTimeout)
		}
		wantItems(t, srv, "/list", append([]string{"bystander"}, ids...)...)
		if n := srv.Stats().Commits - commits; n != 0 {
			t.Errorf("%d writes after the deletions began, want none", n)
		}
	})

	t.Run("entries while the list is being deleted", func(t *testing.T) {
		t.Parallel()
		ns := newNamespace(t)
		srv, url := ownServer(t)
		startManager(t, managerConfig{namespace: ns})
		setDoc(t, srv, "/list", []string{"bystander"})
		// Another controller's finalizer holds the list while it is
		// being deleted: its entries see it going, not gone.
		xl := newExternalList(ns, "allow", url+"/list")
		xl.Finalizers = []string{foreignFinalizer}
		create(t, xl)
		entries := createSynced(t, ns, "allow", ids...)
		commits := srv.Stats().Commits

		deleteObj(t, xl)
		for _, e := range entries {
			deleteObj(t, e)
		}
		for _, e := range entries {
			waitGone(t, e, waitTimeout)
			ev := waitEvent(t, ns, "ListEntry", e.Name, corev1.EventTypeWarning, v1alpha1.ReasonRemoveSkipped, waitTimeout)
			if !strings.Contains(ev.Note, "Orphan") || !strings.Contains(ev.Note, e.Spec.ID) {
				t.Errorf("RemoveSkipped note %q does not say Orphan and the ID", ev.Note)
			}
		}
		if f := finalizers(t, xl); !slices.Equal(f, []string{foreignFinalizer}) {
			t.Errorf("list finalizers = %v, want only the foreign one", f)
		}
		wantItems(t, srv, "/list", append([]string{"bystander"}, ids...)...)
		if n := srv.Stats().Commits - commits; n != 0 {
			t.Errorf("%d writes after the deletions began, want none", n)
		}
		setFinalizers(t, xl, nil)
		waitGone(t, xl, waitTimeout)
	})
}

// setFinalizers replaces obj's finalizers.
func setFinalizers(t *testing.T, obj client.Object, f []string) {
	t.Helper()
	patch := client.MergeFrom(obj.DeepCopyObject().(client.Object))
	obj.SetFinalizers(f)
	if err := k8sClient.Patch(context.Background(), obj, patch); err != nil {
		t.Fatal(err)
	}
}

// TestDeletionPolicyDelete: deleting an ExternalList with deletionPolicy
// Delete takes exactly its entries' IDs off the list, in one write, and
// keeps the bystanders. Another ExternalList naming the same document
// holds no claim while the first exists (its entries are not written);
// when the first goes it takes the claim and writes its own entries' IDs.
// The deleted list's entries, left behind, write nothing.
func TestDeletionPolicyDelete(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	srv, url := ownServer(t)
	startManager(t, managerConfig{namespace: ns})
	setDoc(t, srv, "/list", []string{"bystander-1", "bystander-2"})

	going := newExternalList(ns, "going", url+"/list", func(s *v1alpha1.ExternalListSpec) {
		s.DeletionPolicy = v1alpha1.DeletionPolicyDelete
	})
	create(t, going)
	waitCondition(t, going, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	nextSecond(t)
	// staying names the same document: it waits for the claim.
	staying := newExternalList(ns, "staying", url+"/list")
	create(t, staying)
	waitCondition(t, staying, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse, waitTimeout)
	mine := createSynced(t, ns, "going", "only-mine", "also-mine", "shared")
	theirs := []*v1alpha1.ListEntry{newListEntry(ns, "staying-shared", "staying", "shared"), newListEntry(ns, "staying-theirs", "staying", "theirs")}
	for _, e := range theirs {
		create(t, e)
		waitCondition(t, e, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse, waitTimeout)
	}
	eventually(t, waitTimeout, "the Delete list to carry the cleanup finalizer", func() error {
		if f := finalizers(t, going); !slices.Equal(f, []string{v1alpha1.FinalizerName}) {
			return fmt.Errorf("finalizers %v", f)
		}
		return nil
	})
	if f := finalizers(t, staying); len(f) != 0 {
		t.Errorf("the Orphan list carries finalizers %v", f)
	}
	wantItems(t, srv, "/list", "bystander-1", "bystander-2", "only-mine", "also-mine", "shared")
	commits := srv.Stats().Commits

	deleteObj(t, going)
	waitGone(t, going, waitTimeout)
	ev := waitEventAction(t, ns, "ExternalList", "going", corev1.EventTypeNormal, v1alpha1.ReasonRemoved, "Delete", waitTimeout)
	if !strings.Contains(ev.Note, "3 IDs") {
		t.Errorf("event note %q does not count the 3 IDs removed", ev.Note)
	}
	// The claim passes on: staying's entries are written.
	for _, e := range theirs {
		waitCondition(t, e, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	}
	wantItems(t, srv, "/list", "bystander-1", "bystander-2", "shared", "theirs")
	if n := srv.Stats().Commits - commits; n != 2 {
		t.Errorf("%d writes, want 2: the cleanup, and the new holder's resync", n)
	}
	commits = srv.Stats().Commits

	// The entries of the deleted list report it and never put their IDs
	// back; deleting them releases them without a write.
	for _, e := range mine {
		waitCondition(t, e, v1alpha1.ConditionSynced, metav1.ConditionFalse, v1alpha1.ReasonListNotFound, waitTimeout)
		deleteObj(t, e)
	}
	for _, e := range mine {
		waitGone(t, e, waitTimeout)
	}
	wantItems(t, srv, "/list", "bystander-1", "bystander-2", "shared", "theirs")
	if n := srv.Stats().Commits - commits; n != 0 {
		t.Errorf("%d writes by the deleted list's entries, want none", n)
	}
}

// TestDeletionPolicyDeleteOutlivesALateAdd: an add that another replica
// had in flight when the deletion reached it can land after the cleanup's
// write (its cache learns of the deletion a moment later, or its PUT was
// already sent). The list lets go only after two passes, some seconds
// apart, found nothing left to remove, so the late add is taken off too.
// Here the late add is written behind the operator's back right after the
// cleanup's write, as the other replica's PUT would land.
func TestDeletionPolicyDeleteOutlivesALateAdd(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	srv, url := ownServer(t)
	startManager(t, managerConfig{namespace: ns})
	setDoc(t, srv, "/list", []string{"bystander"})
	xl := newExternalList(ns, "going", url+"/list", func(s *v1alpha1.ExternalListSpec) {
		s.DeletionPolicy = v1alpha1.DeletionPolicyDelete
	})
	create(t, xl)
	createSynced(t, ns, "going", "late")
	eventually(t, waitTimeout, "the cleanup finalizer", func() error {
		if f := finalizers(t, xl); !slices.Contains(f, v1alpha1.FinalizerName) {
			return fmt.Errorf("finalizers %v", f)
		}
		return nil
	})

	deleteObj(t, xl)
	eventually(t, waitTimeout, "the cleanup's write", func() error {
		if got := mustDocItems(t, srv, "/list", ""); slices.Contains(got, "late") {
			return fmt.Errorf("items %v", got)
		}
		return nil
	})
	setDoc(t, srv, "/list", []string{"bystander", "late"}) // the other replica's add lands
	waitGone(t, xl, waitTimeout)
	wantItems(t, srv, "/list", "bystander")
}

// TestDeletionPolicySwitch: switching Delete to Orphan removes the
// finalizer, and the list then goes without touching the document;
// switching back puts it on again.
func TestDeletionPolicySwitch(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	srv, url := ownServer(t)
	startManager(t, managerConfig{namespace: ns})
	setDoc(t, srv, "/list", []string{})
	xl := newExternalList(ns, "allow", url+"/list", func(s *v1alpha1.ExternalListSpec) {
		s.DeletionPolicy = v1alpha1.DeletionPolicyDelete
	})
	xl.Finalizers = []string{foreignFinalizer}
	create(t, xl)
	createSynced(t, ns, "allow", "tenant-a")
	hasCleanup := func(want bool) func() error {
		return func() error {
			if got := controllerutil.ContainsFinalizer(xl, v1alpha1.FinalizerName); got != want {
				return fmt.Errorf("finalizers %v", finalizers(t, xl))
			}
			return nil
		}
	}
	eventually(t, waitTimeout, "the cleanup finalizer", func() error { finalizers(t, xl); return hasCleanup(true)() })

	setSpec(t, xl, func(s *v1alpha1.ExternalListSpec) { s.DeletionPolicy = v1alpha1.DeletionPolicyOrphan })
	eventually(t, waitTimeout, "the cleanup finalizer to go", func() error { finalizers(t, xl); return hasCleanup(false)() })
	if !controllerutil.ContainsFinalizer(xl, foreignFinalizer) {
		t.Errorf("the foreign finalizer was dropped: %v", xl.Finalizers)
	}
	setSpec(t, xl, func(s *v1alpha1.ExternalListSpec) { s.DeletionPolicy = v1alpha1.DeletionPolicyDelete })
	eventually(t, waitTimeout, "the cleanup finalizer again", func() error { finalizers(t, xl); return hasCleanup(true)() })

	// Being deleted with Delete, held by the foreign finalizer: switching
	// to Orphan now releases it without a write.
	commits := srv.Stats().Commits
	// Hold the cleanup: the list server refuses everything for now.
	srv.SetFaultHook(func(*http.Request) fakeapi.Fault { return fakeapi.Fault{Kind: fakeapi.FaultServiceUnavailable} })
	deleteObj(t, xl)
	waitEventAction(t, ns, "ExternalList", "allow", corev1.EventTypeWarning, v1alpha1.ReasonListUnreachable, "Delete", waitTimeout)
	setSpec(t, xl, func(s *v1alpha1.ExternalListSpec) { s.DeletionPolicy = v1alpha1.DeletionPolicyOrphan })
	eventually(t, waitTimeout, "the cleanup finalizer to go", func() error { finalizers(t, xl); return hasCleanup(false)() })
	srv.SetFaultHook(nil)
	setFinalizers(t, xl, nil)
	waitGone(t, xl, waitTimeout)
	wantItems(t, srv, "/list", "tenant-a")
	if n := srv.Stats().Commits - commits; n != 0 {
		t.Errorf("%d writes, want none: Orphan leaves the list alone", n)
	}
}

// TestDeletionPolicyDeleteServerDown: while the list server fails, the
// cleanup finalizer stays, and Ready=False and a Warning event say why;
// when the server recovers, the IDs come off and the ExternalList goes.
func TestDeletionPolicyDeleteServerDown(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	var down atomic.Bool
	srv, url := ownServer(t, fakeapi.WithFaultHook(func(*http.Request) fakeapi.Fault {
		if down.Load() {
			return fakeapi.Fault{Kind: fakeapi.FaultServiceUnavailable}
		}
		return fakeapi.Fault{}
	}))
	startManager(t, managerConfig{namespace: ns})
	setDoc(t, srv, "/list", []string{"bystander"})
	xl := newExternalList(ns, "allow", url+"/list", func(s *v1alpha1.ExternalListSpec) {
		s.DeletionPolicy = v1alpha1.DeletionPolicyDelete
	})
	create(t, xl)
	createSynced(t, ns, "allow", "tenant-a", "tenant-b")
	eventually(t, waitTimeout, "the cleanup finalizer", func() error {
		if !slices.Contains(finalizers(t, xl), v1alpha1.FinalizerName) {
			return fmt.Errorf("finalizers %v", xl.Finalizers)
		}
		return nil
	})

	down.Store(true)
	deleteObj(t, xl)
	c := waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonListUnreachable, waitTimeout)
	if !strings.Contains(c.Message, "deletionPolicy Delete") {
		t.Errorf("Ready message %q does not say the cleanup failed", c.Message)
	}
	waitEventAction(t, ns, "ExternalList", "allow", corev1.EventTypeWarning, v1alpha1.ReasonListUnreachable, "Delete", waitTimeout)
	if xl.DeletionTimestamp.IsZero() || !slices.Contains(xl.Finalizers, v1alpha1.FinalizerName) {
		t.Fatalf("while the server fails the list must be held by its finalizer: deletion %v, finalizers %v", xl.DeletionTimestamp, xl.Finalizers)
	}
	wantItems(t, srv, "/list", "bystander", "tenant-a", "tenant-b")

	down.Store(false)
	waitGone(t, xl, waitTimeout)
	wantItems(t, srv, "/list", "bystander")
}
