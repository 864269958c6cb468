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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// A list's deletionPolicy. Orphan (the default): the list carries no
// finalizer, so deleting it never waits for the operator and never writes;
// its entries, deleted after, release their finalizers without a write
// (see skipRemoval and EntryReconciler.listMissing). Delete: the list
// carries FinalizerName, and when it is deleted the replica that owns its
// document takes its entries' IDs off the document in one change, then
// lets the object go. While that write fails the finalizer stays, and
// Ready=False and a Warning event say why. A list that does not hold the
// claim on its document lets go at once: it never wrote.

// confirmClean decides whether a Delete cleanup may let the list go: only
// after two passes, LateWriteBound apart, that found none of the entries'
// IDs left to remove (wrote false). Every change to the document goes
// through this replica's one client for it, in order, so an add submitted
// before the cleanup is applied before it, and adds after it are fenced by
// the deletion; but a write of a previous owner of the document (one that
// died, or a request a slow server held) may still land for up to
// LateWriteBound. It returns how long to wait before the next pass, 0 to
// let go. The record lives in memory: a replica that restarts, or a new
// owner, starts over, which only waits longer.
func (r *ListReconciler) confirmClean(uid types.UID, wrote bool) time.Duration {
	now := r.now()
	if wrote {
		r.cleanAt.Delete(uid)
		return r.LateWriteBound
	}
	first, loaded := r.cleanAt.LoadOrStore(uid, now)
	if !loaded {
		return r.LateWriteBound
	}
	if wait := first.(time.Time).Add(r.LateWriteBound).Sub(now); wait > 0 {
		return wait
	}
	return 0
}

// reconcileDeletionPolicy keeps the list's finalizer in line with its
// deletionPolicy and, when the list is being deleted, carries the policy
// out; resolveErr is why the list's configuration could not be resolved,
// if it could not. done reports that the reconcile ends here, with res and
// err.
func (r *ListReconciler) reconcileDeletionPolicy(ctx context.Context, s *listScope, resolveErr error) (res ctrl.Result, done bool, err error) {
	l := s.list
	has := controllerutil.ContainsFinalizer(l, v1alpha1.FinalizerName)
	if l.GetDeletionTimestamp() == nil {
		want := wantsListFinalizer(l.ListSpec())
		if want == has {
			return ctrl.Result{}, false, nil
		}
		edit := removeFinalizer
		if want {
			edit = controllerutil.AddFinalizer
		}
		if err := r.patchListFinalizer(ctx, l, edit); err != nil {
			res, err := requeueOnConflict(client.IgnoreNotFound(err))
			return res, true, err
		}
		s.before = l.DeepCopyObject().(v1alpha1.List)
		return ctrl.Result{}, false, nil
	}
	if !has {
		// Orphan: the object goes without the operator; nothing to do.
		return ctrl.Result{}, true, nil
	}
	if deletionPolicyOf(l.ListSpec()) == v1alpha1.DeletionPolicyDelete {
		if resolveErr != nil {
			res, err := r.cleanupFailed(ctx, s, resolveErr)
			return res, true, err
		}
		wrote, err := r.removeEntryIDs(ctx, s)
		if err != nil {
			res, err := r.cleanupFailed(ctx, s, err)
			return res, true, err
		}
		if wait := r.confirmClean(l.GetUID(), wrote); wait > 0 {
			return ctrl.Result{RequeueAfter: wait}, true, nil
		}
	}
	r.cleanAt.Delete(l.GetUID())
	// Delete done, or switched to Orphan while being deleted.
	res, err = requeueOnConflict(r.patchListFinalizer(ctx, l, removeFinalizer))
	return res, true, err
}

// removeEntryIDs takes the IDs of the list's entries off its document in
// one change, and reports whether it wrote. The entries are read from the
// API server, not the cache, so an entry created just before the deletion
// is not missed.
func (r *ListReconciler) removeEntryIDs(ctx context.Context, s *listScope) (bool, error) {
	cl, err := r.Lists.Client(s.cfg, s.ref)
	if err != nil {
		return false, err
	}
	own, err := r.entries(ctx, r.APIReader, s)
	if err != nil {
		return false, err
	}
	ch := cleanupChange(own, listAdmitter(ctx, r.Client, s.list))
	if ch.IsZero() {
		return false, nil
	}
	res, err := cl.Update(ctx, ch)
	if err != nil {
		return false, fmt.Errorf("remove the IDs of %d entries: %w", len(ch.Remove), err)
	}
	if !res.Written {
		return false, nil // they were off already: nothing to announce
	}
	r.Recorder.Eventf(s.list, nil, corev1.EventTypeNormal, v1alpha1.ReasonRemoved, "Delete", "%s",
		fmt.Sprintf("deletionPolicy Delete: %d IDs of this list's entries are off the list (%d items left)", len(ch.Remove), res.Items))
	return true, nil
}

// cleanupFailed reports a failed cleanup on Ready and as a Warning event
// with the same reason, and returns err for the workqueue's backoff: the
// finalizer stays until the write succeeds.
func (r *ListReconciler) cleanupFailed(ctx context.Context, s *listScope, err error) (ctrl.Result, error) {
	reason := reasonFor(err)
	msg := "deletionPolicy Delete: the entries' IDs could not be removed, so the list stays until they are " +
		"(set deletionPolicy to Orphan to let it go and leave them): " + messageFor(reason, err)
	s.conditions().failed(reason, msg)
	r.Recorder.Eventf(s.list, nil, corev1.EventTypeWarning, reason, "Delete", "%s", msg)
	return ctrl.Result{}, errors.Join(err, r.patchStatus(ctx, s))
}

// removeFinalizer is controllerutil.RemoveFinalizer.
var removeFinalizer = controllerutil.RemoveFinalizer

// patchListFinalizer adds or removes the cleanup finalizer with an
// optimistic lock, so it never drops a finalizer another controller added
// meanwhile (see patchFinalizer). A list that is gone has no finalizer to
// remove.
func (r *ListReconciler) patchListFinalizer(ctx context.Context, l v1alpha1.List, edit func(client.Object, string) bool) error {
	err := patchFinalizer(ctx, r.Client, l, edit)
	if apierrors.IsNotFound(err) && !controllerutil.ContainsFinalizer(l, v1alpha1.FinalizerName) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("patch finalizers: %w", err)
	}
	return nil
}
