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
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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
	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// An entry leaves through its finalizer: the owner takes its ID off the
// list, then lets the finalizer go. The API server can skip that. When the
// deletion of an entry races with the patch that puts the finalizer on,
// the delete decides on the object it read (no finalizer: remove it at
// once) and removes it with a precondition on its UID alone, so the
// finalizer that landed in between does not stop it. The owner saw the
// finalizer land and submitted the add; no deletion will ever queue the
// entry, and its ID would stay on the list with no holder. The e2e churn
// saw it about once in eight entries deleted within 50 ms of their
// creation.
//
// Every replica's watch reports such an entry as deleted with the
// finalizer still on. Each replica remembers it (vanishedEntries), and the
// owner of its bucket does what the finalizer stood for: it takes the ID
// off unless another live entry of the list holds it. A replica that takes
// the bucket over later does it from its own record. Records expire after
// vanishedTTL; a control plane that restarts every replica inside that
// window loses them, and the list's drift resync heals an Exclusive list
// (a Shared one keeps the ID until someone removes it).

// vanishedTTL is how long a replica remembers an entry that vanished with
// its finalizer on: long enough for its bucket to move after its owner
// died (a lease duration) several times over.
const vanishedTTL = 10 * time.Minute

// vanishedEntries is what a replica remembers of entries that vanished with
// their finalizer on, by name: their last state.
type vanishedEntries struct {
	mu sync.Mutex
	m  map[types.NamespacedName]vanishedEntry
}

type vanishedEntry struct {
	entry *v1alpha1.ListEntry
	seen  time.Time
}

// put remembers e (replacing what it remembered under its name) and forgets
// records older than vanishedTTL.
func (v *vanishedEntries) put(e *v1alpha1.ListEntry, now time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.m == nil {
		v.m = map[types.NamespacedName]vanishedEntry{}
	}
	for name, r := range v.m {
		if now.Sub(r.seen) > vanishedTTL {
			delete(v.m, name)
		}
	}
	v.m[client.ObjectKeyFromObject(e)] = vanishedEntry{entry: e, seen: now}
}

// get returns the last state of the entry named name, if it vanished with
// its finalizer on and is not done with yet.
func (v *vanishedEntries) get(name types.NamespacedName) *v1alpha1.ListEntry {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.m[name].entry
}

// drop forgets the entry named name, if it is the one with uid.
func (v *vanishedEntries) drop(name types.NamespacedName, uid types.UID) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if r, ok := v.m[name]; ok && r.entry.UID == uid {
		delete(v.m, name)
	}
}

// names returns the names of the entries it remembers.
func (v *vanishedEntries) names() []types.NamespacedName {
	v.mu.Lock()
	defer v.mu.Unlock()
	names := make([]types.NamespacedName, 0, len(v.m))
	for name := range v.m {
		names = append(names, name)
	}
	return names
}

// vanishedOnDelete is the handler of entry deletions: one whose last state
// still carries the finalizer is remembered and queued.
func (r *EntryReconciler) vanishedOnDelete() handler.Funcs {
	return handler.Funcs{
		DeleteFunc: func(_ context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			entry, ok := e.Object.(*v1alpha1.ListEntry)
			if !ok || !controllerutil.ContainsFinalizer(entry, v1alpha1.FinalizerName) {
				return
			}
			r.vanished.put(entry.DeepCopy(), time.Now())
			q.Add(reconcile.Request{NamespacedName: client.ObjectKeyFromObject(entry)})
		},
	}
}

// reconcileVanished does for an entry that vanished with its finalizer on
// what its finalizer stood for (see vanishedEntries). done reports whether
// it is done with (and forgotten); when not, the result or error says when
// to look again, or this replica does not own the entry's bucket.
func (r *EntryReconciler) reconcileVanished(ctx context.Context, gone *v1alpha1.ListEntry) (done bool, res ctrl.Result, err error) {
	name := client.ObjectKeyFromObject(gone)
	forget := func() (bool, ctrl.Result, error) {
		r.vanished.drop(name, gone.UID)
		return true, ctrl.Result{}, nil
	}
	s := &entryScope{entry: gone, before: gone.DeepCopy(), ref: entryListRef(gone)}
	if r.NamespacedOnly && s.ref.Kind == v1alpha1.ListKindClusterExternalList {
		return forget() // never written here
	}
	l, err := getList(ctx, r.Client, s.ref)
	if apierrors.IsNotFound(err) {
		// The list is gone: its deletionPolicy decided for its IDs.
		return forget()
	}
	if err != nil {
		return false, ctrl.Result{}, err
	}
	s.list = l
	s.bucket = r.Owner.Bucket(entryBucketKey(gone, l))
	release, ok := r.Owner.Acquire(s.bucket)
	if !ok {
		return false, ctrl.Result{}, nil // its owner does it
	}
	defer release()
	if DocumentOf(l) == "" {
		return false, ctrl.Result{RequeueAfter: listLagRequeue}, nil
	}
	if _, _, admitted, err := r.admitted(ctx, s); err != nil {
		return false, ctrl.Result{}, err
	} else if !admitted {
		return forget() // its ID was never written
	}
	if checkID(gone.Spec.ID) != nil {
		return forget()
	}
	if _, skip := skipRemoval(gone, l); skip {
		return forget()
	}
	cl, cfg, err := r.client(ctx, s)
	if err != nil {
		return false, ctrl.Result{}, err
	}
	held, err := r.othersHolding(ctx, s, cfg)
	if err != nil {
		return false, ctrl.Result{}, err
	}
	if held == heldPending {
		return false, ctrl.Result{RequeueAfter: holderWaitRequeue}, nil
	}
	if held == heldByNone {
		_, changed, err := r.change(s, cl, cfg.claim, false)
		if !changed {
			return false, ctrl.Result{}, nil // its completion queues it
		}
		if errors.Is(err, etagclient.ErrFenced) {
			return false, ctrl.Result{RequeueAfter: conflictRequeue}, nil
		}
		if err != nil {
			return false, ctrl.Result{}, err
		}
		logf.FromContext(ctx).Info("took the ID of an entry off its list: the API server removed the entry with its finalizer on",
			"id", gone.Spec.ID, "list", s.ref.String())
		r.Recorder.Eventf(l, nil, corev1.EventTypeNormal, v1alpha1.ReasonRemoved, "Remove",
			"ID %q is off the list: ListEntry %s/%s was removed by the API server before its finalizer ran, and no other entry holds the ID",
			gone.Spec.ID, gone.Namespace, gone.Name)
	}
	return forget()
}
