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
	"slices"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/listconfig"
)

// The pure decisions of the controllers. They do no I/O and are tested by
// tables.

// isLive reports whether an entry still wants its ID: it exists and is not
// being deleted.
func isLive(e *v1alpha1.ListEntry) bool {
	return e.DeletionTimestamp.IsZero()
}

// admits reports whether list l lets entries of namespace, whose labels
// are nsLabels, keep IDs on it: an ExternalList its own namespace's (the
// API allows no other), a ClusterExternalList those its namespaceSelector
// selects. why says why not.
func admits(l v1alpha1.List, namespace string, nsLabels map[string]string) (why string, ok bool) {
	cxl, isCluster := l.(*v1alpha1.ClusterExternalList)
	if !isCluster {
		return "", true
	}
	sel, err := metav1.LabelSelectorAsSelector(&cxl.Spec.NamespaceSelector)
	if err != nil {
		return fmt.Sprintf("ClusterExternalList %q has an invalid namespaceSelector: %v", cxl.Name, err), false
	}
	if !sel.Matches(labels.Set(nsLabels)) {
		return fmt.Sprintf("ClusterExternalList %q does not select namespace %q (its namespaceSelector)", cxl.Name, namespace), false
	}
	return "", true
}

// hasFinalizer reports whether e carries listkeeper's finalizer: the
// durable record that its ID may be on its list, and the promise that its
// deletion takes the ID off unless another holder keeps it.
func hasFinalizer(e *v1alpha1.ListEntry) bool {
	return slices.Contains(e.Finalizers, v1alpha1.FinalizerName)
}

// finalized narrows admitted to the entries that carry the finalizer.
func finalized(admitted func(*v1alpha1.ListEntry) bool) func(*v1alpha1.ListEntry) bool {
	return func(e *v1alpha1.ListEntry) bool { return hasFinalizer(e) && admitted(e) }
}

// notRecordedElsewhere narrows admitted to the entries that have not
// recorded their ID under another claim than claim. One that has, whose
// list moved to claim's document, takes its ID off the old claim and only
// then adds it here, recording it; an ID added here for it before that
// would be recorded nowhere, and stay when it is deleted on the way.
func notRecordedElsewhere(claim string, admitted func(*v1alpha1.ListEntry) bool) func(*v1alpha1.ListEntry) bool {
	return func(e *v1alpha1.ListEntry) bool {
		placed := placementOf(e)
		return (placed == "" || placed == claim) && admitted(e)
	}
}

// spellID spells id as a list keeps it (spell; nil keeps it as it is).
func spellID(id string, spell func(string) string) string {
	if spell == nil {
		return id
	}
	return spell(id)
}

// liveIDs returns the sorted, de-duplicated IDs of the live entries, of a
// list's entries, that the list admits, spelled as the list keeps them
// (spell; nil keeps them as they are): an IP set keeps "10.0.0.1" as
// "10.0.0.1/32", and comparing the other spelling with the list would find
// it missing, or foreign, forever.
func liveIDs(entries []v1alpha1.ListEntry, admitted func(*v1alpha1.ListEntry) bool, spell func(string) string) []string {
	seen := make(map[string]struct{}, len(entries))
	ids := make([]string, 0, len(entries))
	for i := range entries {
		e := &entries[i]
		if !isLive(e) || !admitted(e) {
			continue
		}
		id := spellID(e.Spec.ID, spell)
		if _, ok := seen[id]; !ok {
			seen[id] = struct{}{}
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// driftChange returns the change that corrects drift between the IDs on the
// list and the live entries' IDs: the missing IDs of promised are added;
// in Exclusive mode the foreign IDs on the list, those no entry of live
// holds, are removed by name. ok is false when there is no drift.
//
// promised are the IDs of the live entries that carry the finalizer (and
// have not recorded their ID under another claim, see
// notRecordedElsewhere), live those of every live entry. Only an entry
// with the finalizer has promised to take its ID off when it goes: an ID
// added for one without it would stay if that entry were deleted before
// its finalizer landed, and such an entry adds its ID itself once the
// finalizer is on. Its ID is not foreign either: its add may already be
// on its way.
//
// The removal names exactly the foreign IDs of onList, never "every ID but
// live": the client applies a change again to a fresh read after a 412, and
// an ID another writer added meanwhile was never reported (announceRemoval)
// and must stay until a later resync sees it and reports it. A foreign item
// that cannot be named in a change (see carriable: a foreign writer may have
// put an empty ID, or one longer than etagclient.MaxIDLength, on the list)
// stays on the list.
func driftChange(mode v1alpha1.ListMode, onList, promised, live []string) (etagclient.Change, bool) {
	ch := etagclient.Change{Add: missing(promised, onList)}
	if mode == v1alpha1.ListModeExclusive {
		for _, id := range foreignIDs(onList, live) {
			if carriable(id) {
				ch.Remove = append(ch.Remove, id)
			}
		}
	}
	return ch, !etagclient.Holds(onList, ch)
}

// checkID reports an ID that is not printable (an entry stored before the
// API refused such IDs) or that the list client refuses to carry, as an
// InvalidSpec error. The API's limit on spec.id and the client's limit are
// measured differently (characters against bytes), so an ID the API
// accepted could never be written; spec.id is immutable, so such an entry
// can never sync. Asking the client's own validation keeps the two from
// disagreeing.
func checkID(id string) error {
	if !v1alpha1.PrintableID(id) {
		return &listconfig.ConfigError{Reason: v1alpha1.ReasonInvalidSpec, Msg: fmt.Sprintf("spec.id %q has a control, bidirectional formatting or invisible character", id)}
	}
	if err := (etagclient.Change{Add: []string{id}}).Validate(); err != nil {
		return &listconfig.ConfigError{Reason: v1alpha1.ReasonInvalidSpec, Msg: "spec.id cannot be written to a list: " + err.Error()}
	}
	return nil
}

// carriable reports whether the list client can name id in a change; a
// foreign item it cannot name stays on the list.
func carriable(id string) bool {
	return (etagclient.Change{Add: []string{id}}).Validate() == nil
}

// deletionPolicyOf returns a list's deletion policy with the default
// applied: anything but Delete is Orphan, the policy that never changes
// the list.
func deletionPolicyOf(spec *v1alpha1.ExternalListSpec) v1alpha1.DeletionPolicy {
	if spec.DeletionPolicy == v1alpha1.DeletionPolicyDelete {
		return v1alpha1.DeletionPolicyDelete
	}
	return v1alpha1.DeletionPolicyOrphan
}

// wantsListFinalizer reports whether a live list must carry the cleanup
// finalizer: only with deletionPolicy Delete, so that deleting an Orphan
// list never waits for the operator.
func wantsListFinalizer(spec *v1alpha1.ExternalListSpec) bool {
	return deletionPolicyOf(spec) == v1alpha1.DeletionPolicyDelete
}

// skipRemoval reports whether a deleting entry releases its finalizer
// without writing its list l, and says why: l is being deleted with
// deletionPolicy Orphan, which leaves every ID of its entries on the list.
// A list being deleted with Delete takes the IDs off itself; the entry
// still removes its own, so nothing depends on which of the two goes
// first. (A list that is gone is decided with a read from the API server,
// see EntryReconciler.listMissing.)
func skipRemoval(e *v1alpha1.ListEntry, l v1alpha1.List) (string, bool) {
	if l.GetDeletionTimestamp() != nil && deletionPolicyOf(l.ListSpec()) == v1alpha1.DeletionPolicyOrphan {
		return fmt.Sprintf("%s is being deleted with deletionPolicy Orphan, so ID %q stays on its list", entryListRef(e), e.Spec.ID), true
	}
	return "", false
}

// addBlocked reports whether a live entry must not put its ID on its list
// l, and says why: l is being deleted (an add then could undo the list's
// own cleanup, or leave an ID that no object accounts for).
func addBlocked(e *v1alpha1.ListEntry, l v1alpha1.List) (string, bool) {
	if l.GetDeletionTimestamp() != nil {
		return fmt.Sprintf("%s is being deleted", entryListRef(e)), true
	}
	return "", false
}

// cleanupChange is what deleting a list with deletionPolicy Delete writes:
// the removal, in one change, of the IDs of every entry of the list (own:
// live or deleting) that the list admits. IDs the list client cannot carry
// were never written and are left out. Only the claim's holder writes, and
// only its entries count as holders, so no other list's entry keeps an ID.
func cleanupChange(own []v1alpha1.ListEntry, admitted func(*v1alpha1.ListEntry) bool) etagclient.Change {
	seen := make(map[string]struct{}, len(own))
	var remove []string
	for i := range own {
		id := own[i].Spec.ID
		if _, ok := seen[id]; ok || checkID(id) != nil || !admitted(&own[i]) {
			continue
		}
		seen[id] = struct{}{}
		remove = append(remove, id)
	}
	sort.Strings(remove)
	return etagclient.Change{Remove: remove}
}

// resyncDue reports whether a list's drift must be corrected now, from the
// status as it was read (before this reconcile changed it): never synced;
// Ready not True for the current generation (a new spec, or a recovery,
// which may have failed before it could resync); a reconcile-requested-at
// value not handled yet; or the interval is up.
func resyncDue(before *v1alpha1.ExternalListStatus, generation int64, requested string, now time.Time, period time.Duration) bool {
	if before.LastSyncTime == nil {
		return true
	}
	ready := meta.FindStatusCondition(before.Conditions, v1alpha1.ConditionReady)
	if ready == nil || ready.Status != metav1.ConditionTrue || ready.ObservedGeneration != generation {
		return true
	}
	if requested != "" && requested != before.LastHandledReconcileAt {
		return true
	}
	return !now.Before(before.LastSyncTime.Add(period))
}
