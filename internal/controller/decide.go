package controller

import (
	"errors"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/types"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// The pure decisions of the controllers. They do no I/O and are tested by
// tables.

// isLive reports whether an entry still wants its ID: it exists and is not
// being deleted.
func isLive(e *v1alpha1.ListEntry) bool {
	return e.DeletionTimestamp.IsZero()
}

// heldByOthers reports whether another live entry holds self's ID in the
// document doc, through any ExternalList. docs maps an entry's list (its
// ListKey) to the document that list names; a list that does not exist is
// missing from it. self is skipped by UID.
func heldByOthers(self *v1alpha1.ListEntry, doc string, entries []v1alpha1.ListEntry, docs map[types.NamespacedName]string) bool {
	for i := range entries {
		e := &entries[i]
		if e.UID == self.UID || !isLive(e) || e.Spec.ID != self.Spec.ID {
			continue
		}
		if d, ok := docs[e.ListKey()]; ok && d == doc {
			return true
		}
	}
	return false
}

// liveIDs returns the sorted, de-duplicated IDs of the live entries that
// point at list.
func liveIDs(list string, entries []v1alpha1.ListEntry) []string {
	seen := make(map[string]struct{}, len(entries))
	ids := make([]string, 0, len(entries))
	for i := range entries {
		e := &entries[i]
		if e.Spec.ListRef.Name != list || !isLive(e) {
			continue
		}
		if _, ok := seen[e.Spec.ID]; !ok {
			seen[e.Spec.ID] = struct{}{}
			ids = append(ids, e.Spec.ID)
		}
	}
	sort.Strings(ids)
	return ids
}

// driftChange returns the change that corrects drift between the IDs on the
// list and the live entries' IDs: the missing IDs of this list's own
// entries (live) are added; in Exclusive mode the foreign IDs on the list,
// those that no entry of any ExternalList naming the same document holds
// (keep, a superset of live), are removed by name. A list adds only its own
// entries' IDs: another list of the same document may use other
// credentials, which may not work. ok is false when there is no drift.
//
// The removal names exactly the foreign IDs of onList, never "every ID but
// keep": the client applies a change again to a fresh read after a 412, and
// an ID another writer added meanwhile was never reported (announceRemoval)
// and must stay until a later resync sees it and reports it. A foreign item
// that cannot be named in a change (see checkID: a foreign writer may have
// put an empty ID, or one longer than etagclient.MaxIDLength, on the list)
// stays on the list.
func driftChange(mode v1alpha1.ListMode, onList, live, keep []string) (etagclient.Change, bool) {
	ch := etagclient.Change{Add: missing(live, onList)}
	if mode == v1alpha1.ListModeExclusive {
		for _, id := range missing(foreignIDs(onList, keep), live) {
			if checkID(id) == nil {
				ch.Remove = append(ch.Remove, id)
			}
		}
	}
	return ch, !etagclient.Holds(onList, ch)
}

// missing returns the IDs of want that are not in have, in want's order.
func missing(want, have []string) []string {
	h := make(map[string]struct{}, len(have))
	for _, id := range have {
		h[id] = struct{}{}
	}
	var out []string
	for _, id := range want {
		if _, ok := h[id]; !ok {
			out = append(out, id)
		}
	}
	return out
}

// checkID reports an ID that the list client refuses to carry, as an
// InvalidSpec error. The API's limit on spec.id and the client's limit have
// been measured differently (characters against bytes), so an ID the API
// accepted could never be written; spec.id is immutable, so such an entry
// can never sync. Asking the client's own validation keeps the two from
// disagreeing. (Added with the fix for such IDs; see EntryReconciler.)
func checkID(id string) error {
	if err := (etagclient.Change{Add: []string{id}}).Validate(); err != nil {
		return &configError{reason: v1alpha1.ReasonInvalidSpec, msg: "spec.id cannot be written to a list: " + err.Error()}
	}
	return nil
}

// reasonFor maps an error from the ETag client, or from resolving a list's
// configuration, to a condition reason.
func reasonFor(err error) string {
	var cfgErr *configError
	switch {
	case errors.As(err, &cfgErr):
		return cfgErr.reason
	case errors.Is(err, etagclient.ErrNotFound):
		return v1alpha1.ReasonListNotFound
	case errors.Is(err, etagclient.ErrUnsafeServer):
		return v1alpha1.ReasonUnsafeServer
	case errors.Is(err, etagclient.ErrInvalidDocument):
		return v1alpha1.ReasonInvalidDocument
	case errors.Is(err, etagclient.ErrConflictRetriesExhausted):
		return v1alpha1.ReasonConflictRetriesExhausted
	case errors.Is(err, etagclient.ErrUnauthorized):
		return v1alpha1.ReasonUnauthorized
	case errors.Is(err, etagclient.ErrRejected):
		return v1alpha1.ReasonRejected
	default:
		return v1alpha1.ReasonListUnreachable
	}
}

// deletionPolicyOf returns xl's deletion policy with the default applied:
// anything but Delete is Orphan, the policy that never changes the list.
func deletionPolicyOf(xl *v1alpha1.ExternalList) v1alpha1.DeletionPolicy {
	if xl.Spec.DeletionPolicy == v1alpha1.DeletionPolicyDelete {
		return v1alpha1.DeletionPolicyDelete
	}
	return v1alpha1.DeletionPolicyOrphan
}

// wantsListFinalizer reports whether a live ExternalList must carry the
// cleanup finalizer: only with deletionPolicy Delete, so that deleting an
// Orphan list never waits for the operator.
func wantsListFinalizer(xl *v1alpha1.ExternalList) bool {
	return deletionPolicyOf(xl) == v1alpha1.DeletionPolicyDelete
}

// skipRemoval reports whether a deleting entry releases its finalizer
// without writing its list, and says why: its ExternalList (xl, nil when it
// does not exist) is gone, or is being deleted with deletionPolicy Orphan,
// which leaves every ID of its entries on the list. An ExternalList being
// deleted with Delete takes the IDs off itself; the entry still removes its
// own, so nothing depends on which of the two goes first.
func skipRemoval(e *v1alpha1.ListEntry, xl *v1alpha1.ExternalList) (string, bool) {
	switch {
	case xl == nil:
		return fmt.Sprintf("ExternalList %q does not exist, so ID %q could not be removed from it", e.Spec.ListRef.Name, e.Spec.ID), true
	case !xl.DeletionTimestamp.IsZero() && deletionPolicyOf(xl) == v1alpha1.DeletionPolicyOrphan:
		return fmt.Sprintf("ExternalList %q is being deleted with deletionPolicy Orphan, so ID %q stays on its list", e.Spec.ListRef.Name, e.Spec.ID), true
	}
	return "", false
}

// addBlocked reports whether a live entry must not put its ID on its list,
// and says why: the ExternalList does not exist, or it is being deleted
// (an add then could undo the list's own cleanup, or leave an ID that no
// object accounts for).
func addBlocked(e *v1alpha1.ListEntry, xl *v1alpha1.ExternalList) (string, bool) {
	switch {
	case xl == nil:
		return fmt.Sprintf("ExternalList %q does not exist", e.Spec.ListRef.Name), true
	case !xl.DeletionTimestamp.IsZero():
		return fmt.Sprintf("ExternalList %q is being deleted", e.Spec.ListRef.Name), true
	}
	return "", false
}

// cleanupChange is what deleting an ExternalList with deletionPolicy Delete
// writes: the removal, in one change, of the IDs of every entry of the list
// (own: live or deleting), except the IDs that a live entry of another
// ExternalList naming the same document holds (keep). IDs the list client
// cannot carry were never written and are left out.
func cleanupChange(own []v1alpha1.ListEntry, keep []string) etagclient.Change {
	kept := make(map[string]struct{}, len(keep))
	for _, id := range keep {
		kept[id] = struct{}{}
	}
	var remove []string
	for i := range own {
		id := own[i].Spec.ID
		if _, ok := kept[id]; ok || checkID(id) != nil {
			continue
		}
		kept[id] = struct{}{} // once is enough
		remove = append(remove, id)
	}
	sort.Strings(remove)
	return etagclient.Change{Remove: remove}
}
