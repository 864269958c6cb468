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
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// waitTimeout bounds how long a test waits for the operator to act on one
// object; the operator acts in milliseconds, the slack is for -race on two
// cores.
const waitTimeout = 30 * time.Second

// TestEntryLifecycle: an entry's ID goes on the list, the entry and the list
// report it, and deleting the entry takes the ID off and lets it go.
func TestEntryLifecycle(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startManager(t, managerConfig{namespace: ns})
	path := listPath(t, ns)
	setDoc(t, sharedLists, path, map[string]any{"kind": "allow", "items": []string{"keep-me"}})

	xl := newExternalList(ns, "allow", sharedListsURL+path, func(s *v1alpha1.ExternalListSpec) {
		s.ItemsPointer = "/items"
	})
	create(t, xl)
	entry := newListEntry(ns, "tenant-a", "allow", "tenant-a")
	create(t, entry)

	waitOnList(t, sharedLists, path, "/items", "tenant-a", true, waitTimeout)
	c := waitCondition(t, entry, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	if !controllerutil.ContainsFinalizer(entry, v1alpha1.FinalizerName) {
		t.Errorf("entry finalizers = %v, want %s", entry.Finalizers, v1alpha1.FinalizerName)
	}
	if c.ObservedGeneration != entry.Generation || entry.Status.ObservedGeneration != entry.Generation {
		t.Errorf("observedGeneration: condition %d, status %d, want %d", c.ObservedGeneration, entry.Status.ObservedGeneration, entry.Generation)
	}
	if got := mustDocItems(t, sharedLists, path, "/items"); strings.Join(got, ",") != "keep-me,tenant-a" {
		t.Errorf("items = %v, want [keep-me tenant-a] (additions go at the end)", got)
	}
	raw, etag, _ := sharedLists.Get(path)
	if !strings.Contains(string(raw), `"kind":"allow"`) {
		t.Errorf("document outside the items array was not preserved: %s", raw)
	}

	// The list's status: Ready, counts and the ETag. The list controller's
	// first reconcile may have run before the entry's ID was added; the
	// entry's creation does not requeue the list, so the counts are checked
	// against what the list controller last saw, after poking the list
	// (a spec change) to make it look again.
	patch := client.MergeFrom(xl.DeepCopy())
	xl.Spec.ResyncInterval = &metav1.Duration{Duration: 11 * time.Minute}
	if err := k8sClient.Patch(context.Background(), xl, patch); err != nil {
		t.Fatal(err)
	}
	waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	eventually(t, waitTimeout, "ExternalList status to catch up", func() error {
		if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(xl), xl); err != nil {
			return err
		}
		st := xl.Status
		if st.ObservedGeneration != xl.Generation || st.ItemCount != 2 || st.EntryCount != 1 || st.ETag != etag || st.LastSyncTime == nil {
			return fmt.Errorf("status = %+v, want generation %d, 2 items, 1 entry, etag %s", st, xl.Generation, etag)
		}
		return nil
	})

	deleteObj(t, entry)
	waitOnList(t, sharedLists, path, "/items", "tenant-a", false, waitTimeout)
	waitGone(t, entry, waitTimeout)
	if got := mustDocItems(t, sharedLists, path, "/items"); strings.Join(got, ",") != "keep-me" {
		t.Errorf("items after delete = %v, want [keep-me]", got)
	}
}

// TestSharedID: two entries with the same ID; the ID stays until the last
// one is gone.
func TestSharedID(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startManager(t, managerConfig{namespace: ns})
	path := listPath(t, ns)
	setDoc(t, sharedLists, path, []string{})
	create(t, newExternalList(ns, "allow", sharedListsURL+path))

	first := newListEntry(ns, "first", "allow", "shared-id")
	second := newListEntry(ns, "second", "allow", "shared-id")
	create(t, first)
	create(t, second)
	waitCondition(t, first, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	waitCondition(t, second, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	if got := mustDocItems(t, sharedLists, path, ""); strings.Join(got, ",") != "shared-id" {
		t.Fatalf("items = %v, want the ID once", got)
	}

	deleteObj(t, first)
	waitGone(t, first, waitTimeout)
	if got := mustDocItems(t, sharedLists, path, ""); !slices.Contains(got, "shared-id") {
		t.Fatalf("items after deleting one of two entries = %v; the ID must stay", got)
	}

	deleteObj(t, second)
	waitGone(t, second, waitTimeout)
	if got := mustDocItems(t, sharedLists, path, ""); slices.Contains(got, "shared-id") {
		t.Fatalf("items after deleting both entries = %v; the ID must be gone", got)
	}
}

// TestListMissingOnDelete: an entry whose ExternalList is gone is still
// released, with a RemoveSkipped warning.
func TestListMissingOnDelete(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startManager(t, managerConfig{namespace: ns})
	path := listPath(t, ns)
	setDoc(t, sharedLists, path, []string{})
	xl := newExternalList(ns, "allow", sharedListsURL+path)
	create(t, xl)
	entry := newListEntry(ns, "orphan", "allow", "orphan-id")
	create(t, entry)
	waitCondition(t, entry, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)

	deleteObj(t, xl)
	waitGone(t, xl, waitTimeout)
	deleteObj(t, entry)
	waitGone(t, entry, waitTimeout)
	ev := waitEvent(t, ns, "ListEntry", "orphan", corev1.EventTypeWarning, v1alpha1.ReasonRemoveSkipped, waitTimeout)
	if !strings.Contains(ev.Note, "orphan-id") {
		t.Errorf("RemoveSkipped note %q does not name the ID", ev.Note)
	}
	// The operator did not touch the document of a list it no longer knows.
	if got := mustDocItems(t, sharedLists, path, ""); !slices.Contains(got, "orphan-id") {
		t.Errorf("items = %v: the ID was removed from a list whose ExternalList is gone", got)
	}
}

// TestEntryBeforeList: an entry created before its ExternalList reports
// ListNotFound, and syncs when the list appears.
func TestEntryBeforeList(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startManager(t, managerConfig{namespace: ns})
	path := listPath(t, ns)
	setDoc(t, sharedLists, path, []string{})

	entry := newListEntry(ns, "early", "later", "early-id")
	create(t, entry)
	waitCondition(t, entry, v1alpha1.ConditionSynced, metav1.ConditionFalse, v1alpha1.ReasonListNotFound, waitTimeout)
	create(t, newExternalList(ns, "later", sharedListsURL+path))
	waitCondition(t, entry, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	waitOnList(t, sharedLists, path, "", "early-id", true, waitTimeout)
}
