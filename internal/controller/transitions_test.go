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
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
	"github.com/listkeeper/listkeeper/internal/listconfig"
)

// The transitions of an entry's ID: every way an entry can stop holding
// its ID must take the ID off the document it was added to, unless
// another holder keeps it, whatever a replica missed.

// clusterList returns a ClusterExternalList at url that selects the
// namespaces labelled team=team.
func clusterList(name, url, team string) *v1alpha1.ClusterExternalList {
	return &v1alpha1.ClusterExternalList{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1alpha1.ClusterExternalListSpec{
			ExternalListSpec:  v1alpha1.ExternalListSpec{URL: url},
			NamespaceSelector: metav1.LabelSelector{MatchLabels: map[string]string{"listkeeper-test/team": team}},
		}}
}

// TestClaimTakenByClusterListTakesOldIDsOff (issue scenario 1): an
// ExternalList holds the claim and its entry put "x" on the document; a
// ClusterExternalList naming the same document takes the claim. The old
// entry is no longer admitted: its ID comes off (the new holder, Additive,
// never would), while an ID that an entry of the new holder also holds
// stays; deleting the old entries writes nothing more. Before, the entry
// lost admission silently and its deletion let the finalizer go with no
// write (RemoveSkipped): "x" stayed with no holder.
func TestClaimTakenByClusterListTakesOldIDsOff(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	label(t, ns, map[string]string{"listkeeper-test/team": ns})
	startManager(t, managerConfig{namespace: ns})
	lists := newFakeServer(t)
	setDoc(t, lists.srv, "/doc", []string{"foreign"})

	xl := newExternalList(ns, "l1", lists.url+"/doc")
	create(t, xl)
	waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	e1 := newListEntry(ns, "e1", "l1", "x")
	kept := newListEntry(ns, "kept", "l1", "shared")
	for _, e := range []*v1alpha1.ListEntry{e1, kept} {
		create(t, e)
		waitCondition(t, e, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	}
	if got := getEntry(t, e1).Status.AddedTo; got == nil || got.DocumentID != listconfig.DocumentIDOfURL(xl.Spec.URL) {
		t.Fatalf("status.addedTo of e1 = %+v, want the document of %s", got, xl.Name)
	}

	cxl := clusterList("takes-"+ns, lists.url+"/doc", ns)
	create(t, cxl)
	t.Cleanup(func() { deleteObj(t, cxl) })
	c1 := clusterEntry(ns, "c1", cxl.Name, "shared")
	create(t, c1)
	waitCondition(t, cxl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	waitCondition(t, c1, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	waitCondition(t, e1, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse, waitTimeout)
	waitOnList(t, lists.srv, "/doc", "", "x", false, waitTimeout)
	waitEventAction(t, ns, "ListEntry", e1.Name, corev1.EventTypeWarning, v1alpha1.ReasonDocumentInUse, "Remove", waitTimeout)
	waitCondition(t, kept, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse, waitTimeout)

	deleteObj(t, e1)
	deleteObj(t, kept)
	waitGone(t, e1, waitTimeout)
	waitGone(t, kept, waitTimeout)
	if got := mustDocItems(t, lists.srv, "/doc", ""); !slices.Equal(got, []string{"foreign", "shared"}) {
		t.Fatalf("the document holds %v, want [foreign shared]: x has no holder, shared is held by %s", got, c1.Name)
	}
}

// TestNamespaceLeavingSelectorTakesItsIDsOff (issue scenario 2): a
// namespace loses the label a ClusterExternalList selects; its entry goes
// NamespaceNotAllowed and its ID comes off, with a Warning event that says
// why, unless an entry of a namespace still selected holds it. Before, the
// ID stayed, and deleting the entry let the finalizer go without a write.
func TestNamespaceLeavingSelectorTakesItsIDsOff(t *testing.T) {
	t.Parallel()
	ns, other := newNamespace(t), newNamespace(t)
	label(t, ns, map[string]string{"listkeeper-test/team": ns})
	label(t, other, map[string]string{"listkeeper-test/team": ns})
	startManager(t, managerConfig{namespace: ns, extraNamespaces: []string{other}})
	lists := newFakeServer(t)
	setDoc(t, lists.srv, "/doc", []string{"foreign"})
	cxl := clusterList("tenants-"+ns, lists.url+"/doc", ns)
	create(t, cxl)
	t.Cleanup(func() { deleteObj(t, cxl) })
	waitCondition(t, cxl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)

	leaving := clusterEntry(ns, "x", cxl.Name, "x")
	sharedHere := clusterEntry(ns, "shared", cxl.Name, "shared")
	sharedThere := clusterEntry(other, "shared", cxl.Name, "shared")
	for _, e := range []*v1alpha1.ListEntry{leaving, sharedHere, sharedThere} {
		create(t, e)
		waitCondition(t, e, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	}

	label(t, ns, map[string]string{"listkeeper-test/team": "someone-else"})
	waitCondition(t, leaving, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonNamespaceNotAllowed, waitTimeout)
	waitOnList(t, lists.srv, "/doc", "", "x", false, waitTimeout)
	waitEventAction(t, ns, "ListEntry", leaving.Name, corev1.EventTypeWarning, v1alpha1.ReasonNamespaceNotAllowed, "Remove", waitTimeout)
	waitCondition(t, sharedHere, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonNamespaceNotAllowed, waitTimeout)
	if got := getEntry(t, leaving).Status.AddedTo; got != nil {
		t.Errorf("status.addedTo of an entry whose ID came off = %+v, want none", got)
	}
	if got := mustDocItems(t, lists.srv, "/doc", ""); !slices.Equal(got, []string{"foreign", "shared"}) {
		t.Fatalf("the document holds %v, want [foreign shared]: shared is held in %s", got, other)
	}

	// Labelled again, it is admitted again and its ID comes back.
	label(t, ns, map[string]string{"listkeeper-test/team": ns})
	waitCondition(t, leaving, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	waitOnList(t, lists.srv, "/doc", "", "x", true, waitTimeout)
}

// TestRemovalDecidedOnFreshState (issue scenario 3): the cache of the
// replica that decides a removal trails the API server: it does not show
// the finalizer of a live entry that holds the same ID (a patch it has not
// seen yet, or a bucket it just took over). The removal must not take the
// ID off under that entry. Before, an entry without the finalizer in the
// cache was waited for up to 30 s from its creation and then not counted:
// the ID went while the other entry said Synced=True.
func TestRemovalDecidedOnFreshState(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	lists := newFakeServer(t)
	setDoc(t, lists.srv, "/list", []string{"bystander"})
	var stale atomic.Bool
	// While stale is set, the cache shows entry "e2" without its
	// finalizer, as a cache that has not seen its patch would.
	strip := func(obj client.Object) {
		if e, ok := obj.(*v1alpha1.ListEntry); ok && e.Namespace == ns && e.Name == "e2" {
			e.Finalizers = nil
		}
	}
	startManager(t, managerConfig{namespace: ns, interceptor: &interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			err := c.Get(ctx, key, obj, opts...)
			if err == nil && stale.Load() {
				strip(obj)
			}
			return err
		},
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			err := c.List(ctx, list, opts...)
			if l, ok := list.(*v1alpha1.ListEntryList); ok && err == nil && stale.Load() {
				for i := range l.Items {
					strip(&l.Items[i])
				}
			}
			return err
		},
	}})
	xl := newExternalList(ns, "allow", lists.url+"/list", func(s *v1alpha1.ExternalListSpec) {
		s.ResyncInterval = &metav1.Duration{Duration: time.Hour}
	})
	create(t, xl)
	waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	e1 := newListEntry(ns, "e1", "allow", "x")
	e2 := newListEntry(ns, "e2", "allow", "x")
	for _, e := range []*v1alpha1.ListEntry{e1, e2} {
		create(t, e)
		waitCondition(t, e, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	}

	stale.Store(true)
	deleteObj(t, e1)
	// Before the fix e1 waited until e2 was 30 s old, then took x off.
	waitGone(t, e1, time.Minute)
	stale.Store(false)
	if got := mustDocItems(t, lists.srv, "/list", ""); !slices.Contains(got, "x") {
		t.Fatalf("the list holds %v: x was taken off while %s, live with its finalizer, holds it", got, e2.Name)
	}
	waitCondition(t, e2, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
}

// TestVanishedEntrySurvivesHandover (issue scenario 4): an entry that the
// API server removed with its finalizer on (possible only where the
// finalizer is patched on, not put on at creation) is recorded in its
// list's status. The replica that owned it could not take its ID off (the
// list answered 503) and stopped; a replica started after the deletion,
// which never saw it, takes the ID off from the record. Before, the record
// lived in the first replica's memory and went with it: the ID stayed with
// no holder.
func TestVanishedEntrySurvivesHandover(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	lists := newFakeServer(t)
	setDoc(t, lists.srv, "/list", []string{"bystander"})
	first := startManager(t, managerConfig{namespace: ns, member: true, finalizerAtBirth: never})
	xl := newExternalList(ns, "allow", lists.url+"/list", func(s *v1alpha1.ExternalListSpec) {
		s.ResyncInterval = &metav1.Duration{Duration: time.Hour}
	})
	create(t, xl)
	waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	gone := newListEntry(ns, "gone", "allow", "x")
	create(t, gone)
	waitCondition(t, gone, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)

	if err := lists.srv.SetFaults(fakeapi.Faults{Rate503: 1}); err != nil {
		t.Fatal(err)
	}
	removeFromEtcd(t, gone)
	eventually(t, waitTimeout, "the vanished entry recorded on its list", func() error {
		if n := len(getExternalList(t, xl).Status.VanishedEntries); n != 1 {
			return fmt.Errorf("%d records", n)
		}
		return nil
	})
	first.stop()
	if err := lists.srv.SetFaults(fakeapi.Faults{}); err != nil {
		t.Fatal(err)
	}
	if got := mustDocItems(t, lists.srv, "/list", ""); !slices.Contains(got, "x") {
		t.Fatalf("the list holds %v: the first replica took x off after all, the test proves nothing", got)
	}

	startManager(t, managerConfig{namespace: ns, member: true, finalizerAtBirth: never})
	waitOnList(t, lists.srv, "/list", "", "x", false, waitTimeout)
	eventually(t, waitTimeout, "the record dropped once done", func() error {
		if n := len(getExternalList(t, xl).Status.VanishedEntries); n != 0 {
			return fmt.Errorf("%d records left", n)
		}
		return nil
	})
}

func getEntry(t *testing.T, e *v1alpha1.ListEntry) *v1alpha1.ListEntry {
	t.Helper()
	got := &v1alpha1.ListEntry{}
	if err := k8sClient.Get(ctxFor(t), client.ObjectKeyFromObject(e), got); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestRemovalWaitsForUnrecordedHolder replays the leak
// TestChurnThroughTransitions found (e2e, run 2 of 3 after issue 24): an
// entry that recorded its ID on the document is deleted while a second
// entry of the same list holds the same ID but has not recorded it yet
// (here its status writes fail; in the e2e its document's replica had just
// been killed). Before, the first entry counted the second as the holder
// and let go of its finalizer with no write; the second then lost its
// admission (its namespace unlabelled; in the e2e also its list moved to
// another document) before it recorded anything, so its own deletion
// found nothing to take off: the ID stayed on the document with no entry
// holding it, and the Additive list never removes it. Only an entry that
// recorded the ID takes it off, so the first entry keeps its record and
// its finalizer, and says why, until the second records the ID or stops
// holding it.
func TestRemovalWaitsForUnrecordedHolder(t *testing.T) {
	t.Parallel()
	ns, other := newNamespace(t), newNamespace(t)
	label(t, ns, map[string]string{"listkeeper-test/team": ns})
	label(t, other, map[string]string{"listkeeper-test/team": ns})
	var refuse atomic.Bool
	startManager(t, managerConfig{namespace: ns, extraNamespaces: []string{other}, interceptor: &interceptor.Funcs{
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			if refuse.Load() && sub == "status" && obj.GetNamespace() == other && obj.GetName() == "late" {
				return errors.New("test: the status write of the late holder fails")
			}
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
	}})
	lists := newFakeServer(t)
	setDoc(t, lists.srv, "/doc", []string{"bystander"})
	cxl := clusterList("unrecorded-"+ns, lists.url+"/doc", ns)
	create(t, cxl)
	t.Cleanup(func() { deleteObj(t, cxl) })
	waitCondition(t, cxl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	first := clusterEntry(ns, "first", cxl.Name, "x")
	create(t, first)
	waitCondition(t, first, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)

	// The late holder: live, admitted, with the finalizer, its add made
	// (the ID is there already), but never recorded.
	refuse.Store(true)
	late := clusterEntry(other, "late", cxl.Name, "x")
	create(t, late)
	eventually(t, waitTimeout, "the late holder's finalizer", func() error {
		if e := getEntry(t, late); !controllerutil.ContainsFinalizer(e, v1alpha1.FinalizerName) {
			return errors.New("no finalizer yet")
		}
		return nil
	})

	deleteObj(t, first)
	// The first entry either lets go (it did before) or says that it
	// waits for the late holder.
	eventually(t, waitTimeout, "the first entry gone, or waiting for the late holder", func() error {
		e := &v1alpha1.ListEntry{}
		err := k8sClient.Get(ctxFor(t), client.ObjectKeyFromObject(first), e)
		if apierrors.IsNotFound(err) {
			return nil
		} else if err != nil {
			return err
		}
		if c := meta.FindStatusCondition(e.Status.Conditions, v1alpha1.ConditionReconciling); c != nil &&
			c.Status == metav1.ConditionTrue && strings.Contains(c.Message, "has not recorded it there yet") {
			if e.Status.AddedTo == nil {
				return errors.New("it waits, but dropped its record")
			}
			return nil
		}
		return fmt.Errorf("finalizers %v, conditions %v", e.Finalizers, e.Status.Conditions)
	})
	if got := mustDocItems(t, lists.srv, "/doc", ""); !slices.Contains(got, "x") {
		t.Fatalf("the document holds %v: x came off while the late holder, admitted, holds it", got)
	}

	// The late holder loses its admission before it recorded anything,
	// and goes.
	label(t, other, map[string]string{"listkeeper-test/team": "someone-else"})
	waitGone(t, first, waitTimeout)
	deleteObj(t, late)
	waitGone(t, late, waitTimeout)
	if got := mustDocItems(t, lists.srv, "/doc", ""); !slices.Equal(got, []string{"bystander"}) {
		t.Fatalf("every holder of x is gone, and the document holds %v, want [bystander]", got)
	}
}

// TestHolderMovedHereKeepsNothing replays the other shape of the leak
// TestChurnThroughTransitions found (e2e, run 3 of 3 after issue 24): a
// ClusterExternalList is re-pointed from document A to document C and
// takes C's claim from an ExternalList. The ExternalList's entry loses its
// admission and takes its ID off C, unless an entry of the new holder
// holds it; the ClusterExternalList's entry holds the same ID, but
// recorded on A: it takes it off A first (here A answers 503 meanwhile)
// and adds it to C only then. Before, it counted as the holder on C, so
// the ID stayed on C with nothing recording it there; the entry was then
// deleted on its way, took its ID off A only, and C kept the ID with no
// holder. It holds nothing on C until it has recorded the ID there; nor
// does C's resync add its ID for it before that.
func TestHolderMovedHereKeepsNothing(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	label(t, ns, map[string]string{"listkeeper-test/team": ns})
	startManager(t, managerConfig{namespace: ns})
	docA, docC := newFakeServer(t), newFakeServer(t)
	setDoc(t, docA.srv, "/a", []string{"bystander"})
	setDoc(t, docC.srv, "/c", []string{"bystander"})
	hour := func(s *v1alpha1.ExternalListSpec) { s.ResyncInterval = &metav1.Duration{Duration: time.Hour} }
	la := newExternalList(ns, "la", docA.url+"/a", hour)
	lc := newExternalList(ns, "lc", docC.url+"/c", hour)
	for _, l := range []*v1alpha1.ExternalList{la, lc} {
		create(t, l)
		waitCondition(t, l, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	}
	cxl := clusterList("moves-"+ns, docA.url+"/a", ns)
	cxl.Spec.ResyncInterval = &metav1.Duration{Duration: time.Hour}
	create(t, cxl)
	t.Cleanup(func() { deleteObj(t, cxl) })
	waitCondition(t, cxl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	onC := newListEntry(ns, "on-c", lc.Name, "x")
	onA := clusterEntry(ns, "on-a", cxl.Name, "x")
	for _, e := range []*v1alpha1.ListEntry{onC, onA} {
		create(t, e)
		waitCondition(t, e, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	}

	// A answers 503: the ClusterExternalList's entry cannot take its ID
	// off A, and stays on its way.
	if err := docA.srv.SetFaults(fakeapi.Faults{Rate503: 1}); err != nil {
		t.Fatal(err)
	}
	if err := k8sClient.Get(ctxFor(t), client.ObjectKeyFromObject(cxl), cxl); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(cxl.DeepCopy())
	cxl.Spec.URL = docC.url + "/c"
	if err := k8sClient.Patch(ctxFor(t), cxl, patch); err != nil {
		t.Fatal(err)
	}
	waitCondition(t, cxl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	waitCondition(t, onC, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse, waitTimeout)
	if got := getEntry(t, onC).Status.AddedTo; got != nil {
		t.Fatalf("status.addedTo of %s = %+v after it lost the claim, want none", onC.Name, got)
	}
	if got := getEntry(t, onA).Status.AddedTo; got == nil || got.DocumentID != listconfig.DocumentIDOfURL(docA.url+"/a") {
		t.Fatalf("status.addedTo of %s = %+v, want document A: the test needs it on its way", onA.Name, got)
	}

	// Deleted on its way: it takes x off A once A answers again, and no
	// entry holds x on C any more.
	deleteObj(t, onA)
	if err := docA.srv.SetFaults(fakeapi.Faults{}); err != nil {
		t.Fatal(err)
	}
	waitGone(t, onA, waitTimeout)
	deleteObj(t, onC)
	waitGone(t, onC, waitTimeout)
	if got := mustDocItems(t, docA.srv, "/a", ""); !slices.Equal(got, []string{"bystander"}) {
		t.Errorf("document A holds %v, want [bystander]", got)
	}
	if got := mustDocItems(t, docC.srv, "/c", ""); !slices.Equal(got, []string{"bystander"}) {
		t.Errorf("document C holds %v, want [bystander]: x has no holder there", got)
	}
}
