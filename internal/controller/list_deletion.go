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
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// The ExternalList's deletionPolicy. Orphan (the default): the list carries
// no finalizer, so deleting it never waits for the operator and never
// writes; its entries, deleted after, release their finalizers without a
// write (see skipRemoval). Delete: the list carries FinalizerName, and when
// it is deleted the replica that owns the list takes its entries' IDs off
// the document in one change, then lets the object go. While that write
// fails the finalizer stays, and Ready=False and a Warning event say why.

// cleanupConfirmAfter is how long two cleanup passes that find nothing
// left to remove must be apart before a Delete list lets go.
const cleanupConfirmAfter = 5 * time.Second

// confirmClean decides whether a Delete cleanup may let the list go: only
// after two passes, cleanupConfirmAfter apart, that found none of the
// entries' IDs left to remove (wrote false). One pass is not enough: an add
// that another replica had in flight when the deletion reached it can land
// after it (each replica's entries stop adding once its own cache shows the
// deletion, and queued adds are fenced by it, but caches do not all learn at
// the same instant, and a PUT already sent still commits when its If-Match
// holds). It returns how long to wait before the next pass, 0 to let go.
// The record lives in memory: a replica that restarts, or a new owner,
// starts over, which only waits longer.
func (r *ListReconciler) confirmClean(uid types.UID, wrote bool) time.Duration {
	now := r.now()
	if wrote {
		r.cleanAt.Delete(uid)
		return cleanupConfirmAfter
	}
	first, loaded := r.cleanAt.LoadOrStore(uid, now)
	if !loaded {
		return cleanupConfirmAfter
	}
	if wait := first.(time.Time).Add(cleanupConfirmAfter).Sub(now); wait > 0 {
		return wait
	}
	return 0
}

// reconcileDeletionPolicy keeps the list's finalizer in line with its
// deletionPolicy and, when the list is being deleted, carries the policy
// out. done reports that the reconcile ends here, with res and err.
func (r *ListReconciler) reconcileDeletionPolicy(ctx context.Context, xl *v1alpha1.ExternalList) (res ctrl.Result, done bool, err error) {
	has := controllerutil.ContainsFinalizer(xl, v1alpha1.FinalizerName)
	if xl.DeletionTimestamp.IsZero() {
		want := wantsListFinalizer(xl)
		if want == has {
			return ctrl.Result{}, false, nil
		}
		edit := controllerutil.RemoveFinalizer
		if want {
			edit = controllerutil.AddFinalizer
		}
		if err := r.patchListFinalizer(ctx, xl, edit); err != nil {
			res, err := requeueOnConflict(err)
			return res, true, err
		}
		return ctrl.Result{}, false, nil
	}
	if !has {
		// Orphan: the object goes without the operator; nothing to do.
		return ctrl.Result{}, true, nil
	}
	if deletionPolicyOf(xl) == v1alpha1.DeletionPolicyDelete {
		wrote, err := r.removeEntryIDs(ctx, xl)
		if err != nil {
			res, err := r.cleanupFailed(ctx, xl, err)
			return res, true, err
		}
		if wait := r.confirmClean(xl.UID, wrote); wait > 0 {
			return ctrl.Result{RequeueAfter: wait}, true, nil
		}
	}
	r.cleanAt.Delete(xl.UID)
	// Delete done, or switched to Orphan while being deleted.
	res, err = requeueOnConflict(r.patchListFinalizer(ctx, xl, controllerutil.RemoveFinalizer))
	return res, true, err
}

// removeEntryIDs takes the IDs of xl's entries off its document in one
// change, except those a live entry of another ExternalList naming the same
// document still holds, and reports whether it wrote. The entries are read
// from the API server, not the cache, so an entry created just before the
// deletion is not missed.
//
// Those held IDs are read before the write, which 412s and their backoff
// can delay: an entry of another list created meanwhile finds its ID still
// on the list, so its add changes nothing and it reports Ready, and then
// the write takes the ID off. So after the write the other lists' entries
// are read again from the API server, and any removed ID they hold is put
// back in one change.
func (r *ListReconciler) removeEntryIDs(ctx context.Context, xl *v1alpha1.ExternalList) (bool, error) {
	cl, _, err := r.Lists.For(ctx, xl)
	if err != nil {
		return false, err
	}
	var own v1alpha1.ListEntryList
	if err := r.APIReader.List(ctx, &own, client.InNamespace(xl.Namespace),
		client.MatchingFields{listRefField: xl.Name}); err != nil {
		return false, fmt.Errorf("list entries: %w", err)
	}
	keep, err := r.otherListsIDs(ctx, xl)
	if err != nil {
		return false, err
	}
	ch := cleanupChange(own.Items, keep)
	if ch.IsZero() {
		return false, nil
	}
	res, err := cl.Update(ctx, ch)
	if err != nil {
		return false, fmt.Errorf("remove the IDs of %d entries: %w", len(ch.Remove), err)
	}
	// Re-check even when the write reports nothing written: a write whose
	// answer was lost (a timeout) and that the next read found applied
	// settles as "already held", and may still have removed an ID that a
	// new holder took up meanwhile.
	held, err := r.otherListsIDs(ctx, xl)
	if err != nil {
		return true, fmt.Errorf("re-check the other ExternalLists' entries after removing %d IDs: %w", len(ch.Remove), err)
	}
	removed := res.Written
	restore := etagclient.Change{Add: intersect(ch.Remove, held)}
	if !restore.IsZero() {
		if res, err = cl.Update(ctx, restore); err != nil {
			return true, fmt.Errorf("put back %d IDs that another ExternalList's entries hold: %w", len(restore.Add), err)
		}
		if !res.Written {
			restore = etagclient.Change{} // they were on the list: nothing was put back
		}
	}
	if !removed && restore.IsZero() {
		return false, nil // they were off already: nothing to announce
	}
	msg := fmt.Sprintf("deletionPolicy Delete: %d IDs of this list's entries are off the list (%d items left)",
		len(ch.Remove)-len(restore.Add), res.Items)
	if len(restore.Add) > 0 {
		msg += fmt.Sprintf("; %d put back (%s): an entry of another ExternalList naming the same document holds them",
			len(restore.Add), namedIDs(restore.Add))
	}
	r.Recorder.Eventf(xl, nil, corev1.EventTypeNormal, v1alpha1.ReasonRemoved, "Delete", "%s", msg)
	return true, nil
}

// otherListsIDs returns the IDs of the live entries of every other
// ExternalList that names xl's document, read from the API server:
// reference counts are per document, so deleting one of them must keep
// what the others hold.
func (r *ListReconciler) otherListsIDs(ctx context.Context, xl *v1alpha1.ExternalList) ([]string, error) {
	return r.documentHolders(ctx, r.APIReader, xl, true)
}

// cleanupFailed reports a failed cleanup on Ready and as a Warning event
// with the same reason, and returns err for the workqueue's backoff: the
// finalizer stays until the write succeeds.
func (r *ListReconciler) cleanupFailed(ctx context.Context, xl *v1alpha1.ExternalList, err error) (ctrl.Result, error) {
	before := xl.DeepCopy()
	reason := reasonFor(err)
	msg := "deletionPolicy Delete: the entries' IDs could not be removed, so the ExternalList stays until they are " +
		"(set deletionPolicy to Orphan to let it go and leave them): " + err.Error()
	listConditions(xl).failed(reason, msg)
	r.Recorder.Eventf(xl, nil, corev1.EventTypeWarning, reason, "Delete", "%s", msg)
	return ctrl.Result{}, errors.Join(err, patchStatus(ctx, r.Client, before, xl, before.Status, xl.Status))
}

// patchListFinalizer adds or removes the cleanup finalizer with an
// optimistic lock, so it never drops a finalizer another controller added
// meanwhile (see patchFinalizer).
func (r *ListReconciler) patchListFinalizer(ctx context.Context, xl *v1alpha1.ExternalList, edit func(client.Object, string) bool) error {
	if err := patchFinalizer(ctx, r.Client, xl, edit); err != nil {
		return fmt.Errorf("patch finalizers: %w", err)
	}
	return nil
}
