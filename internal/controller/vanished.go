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
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/listconfig"
)

// An entry leaves through its finalizer: the owner takes its ID off the
// list, then lets the finalizer go. Where the API server puts the
// finalizer on at creation (the MutatingAdmissionPolicy shipped with the
// install), nothing else can happen. Where it does not, the operator puts
// it on with a patch, and the API server can skip it: when the deletion
// of an entry races with that patch, the delete decides on the object it
// read (no finalizer: remove it at once) and removes it with a
// precondition on its UID alone, so the finalizer that landed in between
// does not stop it. The owner saw the finalizer land and submitted the
// add; no deletion will ever queue the entry, and its ID would stay on
// the list with no holder.
//
// Every replica's watch reports such an entry as deleted with the
// finalizer still on. Each records it in its list's status
// (status.vanishedEntries): in the API server, so that neither a restart
// nor a handover loses it. The owner of the entry's bucket does what the
// finalizer stood for, from the record: it takes the ID off unless another
// entry holds it (see takeOff), then drops the record. Records are queued
// from every event of their list (entriesOfList), so a replica that starts
// or takes the bucket over finds them.

// maxVanished is the most records a list keeps (its CRD's limit): past
// it, the oldest is dropped, and a Warning event says so.
const maxVanished = 256

// recordTimeout bounds the API calls that record one vanished entry.
const recordTimeout = 30 * time.Second

// vanishedOnDelete is the handler of entry deletions: one whose last state
// still carries the finalizer is recorded in its list's status and queued.
// Where the finalizer comes at creation no entry can vanish so, and the
// handler does nothing.
func (r *EntryReconciler) vanishedOnDelete() handler.Funcs {
	return handler.Funcs{
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			entry, ok := e.Object.(*v1alpha1.ListEntry)
			if !ok || !vanished(entry) || r.finalizerAtBirth() {
				return
			}
			entry = entry.DeepCopy()
			log := logf.FromContext(ctx).WithValues("ListEntry", client.ObjectKeyFromObject(entry))
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
				defer cancel()
				if err := r.recordVanished(ctx, entry); err != nil {
					log.Error(err, "could not record an entry that the API server removed with its finalizer on; its ID stays on the list until it is removed by hand or by an Exclusive resync")
				}
				q.Add(reconcile.Request{NamespacedName: client.ObjectKeyFromObject(entry)})
			}()
		},
	}
}

// vanished reports whether e, as a delete event last showed it, was
// removed with the finalizer on: an entry that was deleted the usual way
// shows its deletionTimestamp (the API server sets it, then removes the
// object when the last finalizer goes, with the finalizer still in its
// last stored state); one removed at once never had one.
func vanished(e *v1alpha1.ListEntry) bool {
	return e.DeletionTimestamp.IsZero() && controllerutil.ContainsFinalizer(e, v1alpha1.FinalizerName)
}

// recordVanished adds entry to its list's status.vanishedEntries, read
// from the API server and written with its resourceVersion as a
// precondition (a conflict reads again). A list that is gone needs no
// record: its deletionPolicy decided for its IDs.
func (r *EntryReconciler) recordVanished(ctx context.Context, entry *v1alpha1.ListEntry) error {
	ref := entryListRef(entry)
	rec := v1alpha1.VanishedEntry{Namespace: entry.Namespace, Name: entry.Name, UID: string(entry.UID),
		ID: entry.Spec.ID, AddedTo: entry.Status.AddedTo}
	for {
		l, err := getList(ctx, r.APIReader, ref)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		st := l.ListStatus()
		if slices.ContainsFunc(st.VanishedEntries, func(v v1alpha1.VanishedEntry) bool { return v.UID == rec.UID }) {
			return nil
		}
		if len(st.VanishedEntries) >= maxVanished {
			dropped := st.VanishedEntries[0]
			st.VanishedEntries = st.VanishedEntries[1:]
			r.Recorder.Eventf(l, nil, corev1.EventTypeWarning, v1alpha1.ReasonRemoveSkipped, "Remove",
				"more than %d entries vanished with their finalizer on before their IDs could be taken off; ID %q of ListEntry %s/%s is left as it is",
				maxVanished, dropped.ID, dropped.Namespace, dropped.Name)
		}
		st.VanishedEntries = append(st.VanishedEntries, rec)
		err = r.Client.Status().Update(ctx, l)
		if !apierrors.IsConflict(err) {
			return client.IgnoreNotFound(err)
		}
	}
}

// vanishedNamed returns the records of vanished entries named name, with
// the list each is recorded on, as the cache shows them.
func (r *EntryReconciler) vanishedNamed(ctx context.Context, name types.NamespacedName) ([]v1alpha1.List, []v1alpha1.VanishedEntry, error) {
	lists, err := allLists(ctx, r.Client, client.MatchingFields{vanishedField: name.String()})
	if err != nil {
		return nil, nil, err
	}
	var on []v1alpha1.List
	var recs []v1alpha1.VanishedEntry
	for _, l := range lists {
		for _, v := range l.ListStatus().VanishedEntries {
			if v.Namespace == name.Namespace && v.Name == name.Name {
				on, recs = append(on, l), append(recs, v)
			}
		}
	}
	return on, recs, nil
}

// reconcileVanished does, for the entries named like req that vanished
// with their finalizer on (not the one that lives under that name now,
// uid), what their finalizers stood for. done reports that none is left
// to handle first; when not, res or err says when to look again, or this
// replica does not own the entry's bucket.
func (r *EntryReconciler) reconcileVanished(ctx context.Context, name types.NamespacedName, uid types.UID) (done bool, res ctrl.Result, err error) {
	lists, recs, err := r.vanishedNamed(ctx, name)
	if err != nil {
		return false, ctrl.Result{}, err
	}
	for i, v := range recs {
		if types.UID(v.UID) == uid {
			continue // it lives: the record is stale, and goes once handled
		}
		if done, res, err := r.handleVanished(ctx, lists[i], v); !done || err != nil {
			return false, res, err
		}
	}
	return true, ctrl.Result{}, nil
}

// handleVanished takes the ID of the vanished entry v off the claim it was
// added under, or its list's claim when it recorded none, unless another
// entry holds it there, then drops the record.
func (r *EntryReconciler) handleVanished(ctx context.Context, l v1alpha1.List, v v1alpha1.VanishedEntry) (done bool, res ctrl.Result, err error) {
	gone := &v1alpha1.ListEntry{
		ObjectMeta: metav1.ObjectMeta{Namespace: v.Namespace, Name: v.Name, UID: types.UID(v.UID), Finalizers: []string{v1alpha1.FinalizerName}},
		Spec:       v1alpha1.ListEntrySpec{ID: v.ID, ListRef: v1alpha1.ListReference{Kind: l.ListKind(), Name: l.GetName()}},
		Status:     v1alpha1.ListEntryStatus{AddedTo: v.AddedTo},
	}
	s := &entryScope{entry: gone, before: gone.DeepCopy(), ref: entryListRef(gone), list: l}
	s.bucket = r.Owner.Bucket(entryBucketKey(gone, l))
	release, ok := r.Owner.Acquire(s.bucket)
	if !ok {
		return false, ctrl.Result{}, nil // its owner does it
	}
	defer release()
	if listconfig.DocumentOf(l) == "" {
		return false, ctrl.Result{RequeueAfter: listLagRequeue}, nil
	}
	claim := placementOf(gone)
	if claim == "" && checkID(v.ID) == nil {
		if _, _, admitted, err := r.admitted(ctx, s); err != nil {
			return false, ctrl.Result{}, err
		} else if admitted {
			claim = listconfig.ClaimID(l)
		}
	}
	if claim != "" && checkID(v.ID) == nil {
		done, removed, err := r.takeOff(ctx, s, claim)
		if !done {
			return false, ctrl.Result{}, nil // its completion queues it
		}
		if err != nil {
			return false, ctrl.Result{}, err
		}
		if removed {
			logf.FromContext(ctx).Info("took the ID of an entry off its list: the API server removed the entry with its finalizer on",
				"id", v.ID, "list", s.ref.String())
			r.Recorder.Eventf(l, nil, corev1.EventTypeNormal, v1alpha1.ReasonRemoved, "Remove",
				"ID %q is off the list: ListEntry %s/%s was removed by the API server before its finalizer ran, and no other entry holds the ID",
				v.ID, v.Namespace, v.Name)
		}
	}
	r.flights.forget(types.NamespacedName{Namespace: v.Namespace, Name: v.Name})
	return true, ctrl.Result{}, r.dropVanished(ctx, listconfig.RefOf(l), v.UID)
}

// dropVanished removes the record of the vanished entry uid from the
// list's status.
func (r *EntryReconciler) dropVanished(ctx context.Context, ref listconfig.Ref, uid string) error {
	for {
		l, err := getList(ctx, r.APIReader, ref)
		if err != nil {
			return client.IgnoreNotFound(err)
		}
		st := l.ListStatus()
		i := slices.IndexFunc(st.VanishedEntries, func(v v1alpha1.VanishedEntry) bool { return v.UID == uid })
		if i < 0 {
			return nil
		}
		st.VanishedEntries = slices.Delete(st.VanishedEntries, i, i+1)
		err = r.Client.Status().Update(ctx, l)
		switch {
		case apierrors.IsConflict(err):
			continue
		case err != nil && !apierrors.IsNotFound(err):
			return fmt.Errorf("drop the record of vanished entry %s: %w", uid, err)
		}
		return nil
	}
}

// vanishedRequests are the names of the entries recorded as vanished on l.
func vanishedRequests(l v1alpha1.List) []reconcile.Request {
	var reqs []reconcile.Request
	for _, v := range l.ListStatus().VanishedEntries {
		reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: v.Namespace, Name: v.Name}})
	}
	return reqs
}
