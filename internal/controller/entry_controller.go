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
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/listconfig"
)

// EntryReconciler keeps a ListEntry's ID on its list's document while the
// entry lives, and takes it off when the entry is deleted and no other live
// entry of the same list holds the same ID. Only the replica that owns the
// bucket of the entry's document acts on it: it alone writes the entry's
// finalizer, status and events, and submits its changes.
type EntryReconciler struct {
	// Client reads from the manager's cache and writes to the API server.
	Client client.Client
	// APIReader reads from the API server: before an entry whose list the
	// cache does not show lets go of its finalizer, the list's absence is
	// confirmed there.
	APIReader client.Reader
	// Lists hands out the shared ETag clients.
	Lists *listconfig.ListClients
	// Recorder emits events.
	Recorder EventRecorder
	// Owner decides which entries this replica acts on.
	Owner Owner
	// MaxConcurrentReconciles is the number of workers (default 1).
	MaxConcurrentReconciles int
	// NewRateLimiter, when set, makes the work queue's rate limiter (the
	// backoff of failed reconciles). Default: controller-runtime's.
	NewRateLimiter func() workqueue.TypedRateLimiter[reconcile.Request]
	// NamespacedOnly serves no ClusterExternalLists (see
	// Options.NamespacedOnly).
	NamespacedOnly bool
	// ReconcileTimeout is the deadline of one reconcile (see
	// Options.ReconcileTimeout); 0: none.
	ReconcileTimeout time.Duration
	// FinalizerAtBirth reports whether the API server adds the cleanup
	// finalizer to every ListEntry on CREATE (the MutatingAdmissionPolicy
	// shipped with the install is active). nil: it does not.
	FinalizerAtBirth func() bool

	flights flights
	queue   workQueue
}

var _ reconcile.Reconciler = (*EntryReconciler)(nil)

// entryScope is the state of one reconcile of one entry.
type entryScope struct {
	entry     *v1alpha1.ListEntry
	before    *v1alpha1.ListEntry // for the status patch
	ref       listconfig.Ref      // the list the entry names
	list      v1alpha1.List       // as the cache shows it; nil when it does not
	bucket    int
	submitted bool // this reconcile handed a change to the list client
}

// progressGrace is how long a change may be in flight before its entry
// says so (Ready=Unknown, Reconciling=True). Most changes commit well
// within it, and their entry then goes straight to its outcome: one status
// write instead of two.
const progressGrace = time.Second

// listLagRequeue is how soon an entry whose list the API server has but
// the cache does not show yet is looked at again.
const listLagRequeue = time.Second

// +kubebuilder:rbac:groups=listkeeper.dev,resources=listentries,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=listkeeper.dev,resources=listentries/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=listkeeper.dev,resources=listentries/finalizers,verbs=update
// +kubebuilder:rbac:groups=listkeeper.dev,resources=externallists;clusterexternallists,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile ensures the entry's ID is on its list, or off it when the entry
// is being deleted.
func (r *EntryReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	entry := &v1alpha1.ListEntry{}
	err := r.Client.Get(ctx, req.NamespacedName, entry)
	if err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	gone := apierrors.IsNotFound(err)
	// Entries of this name removed by the API server with their finalizer
	// on: first what their finalizers stood for, then (same name, new
	// entry) the new one.
	if done, res, err := r.reconcileVanished(ctx, req.NamespacedName, entry.UID); !done || err != nil {
		return res, err
	}
	if gone {
		// Released by this replica, or deleted before it had a finalizer:
		// nothing of it is on a list.
		r.flights.forget(req.NamespacedName)
		return ctrl.Result{}, nil
	}
	s := &entryScope{entry: entry, before: entry.DeepCopy(), ref: entryListRef(entry)}
	if r.NamespacedOnly && s.ref.Kind == v1alpha1.ListKindClusterExternalList {
		return r.noClusterLists(ctx, s)
	}
	l, err := getList(ctx, r.Client, s.ref)
	if err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	s.list = l
	s.bucket = r.Owner.Bucket(entryBucketKey(entry, l))
	release, ok := r.Owner.Acquire(s.bucket)
	if !ok {
		// Another replica owns it; this one queues it when it takes the
		// bucket over.
		return ctrl.Result{}, nil
	}
	defer release()
	if l == nil {
		return r.listMissing(ctx, s)
	}
	if listconfig.DocumentOf(l) == "" {
		// A namespace the list does not serve learns only that: the
		// list's own state (a Secret of the operator's namespace that
		// is missing, say) is not its to see.
		if reason, why, ok, err := r.namespaceAdmitted(ctx, s); err != nil {
			return ctrl.Result{}, err
		} else if !ok && entry.DeletionTimestamp.IsZero() {
			return r.notAdmitted(ctx, s, reason, why)
		}
		r.documentUnknown(s)
		return requeueOnConflict(r.patchStatus(ctx, s))
	}
	reason, why, ok, err := r.admitted(ctx, s)
	if err != nil {
		return ctrl.Result{}, err
	}
	if waiting, recorded, err := r.earlierAdd(ctx, s, ok); err != nil {
		return requeueOnConflict(err)
	} else if recorded {
		return ctrl.Result{RequeueAfter: conflictRequeue}, nil
	} else if waiting {
		return ctrl.Result{}, nil
	}
	if placementMoved(entry, l) {
		return r.reconcileMoved(ctx, s)
	}
	if !entry.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, s, ok, why)
	}
	if !ok {
		return r.notAdmitted(ctx, s, reason, why)
	}
	return r.reconcileLive(ctx, s)
}

// earlierAdd settles an add of the entry's ID that this replica submitted
// before and that the entry will not wait for as it is: one under a claim
// its list no longer holds or names, or made before the entry stopped
// being admitted. Such an add may land (a write in flight
// when the list moved), and must then be recorded like any other, so that
// the ID comes off again: while it is in flight the entry waits for it
// (waiting; its completion queues the entry), and once it landed its claim
// goes to status.addedTo (recorded; the entry is queued again to take it
// off through the placement's rules).
func (r *EntryReconciler) earlierAdd(ctx context.Context, s *entryScope, admitted bool) (waiting, recorded bool, err error) {
	entry := s.entry
	name := client.ObjectKeyFromObject(entry)
	fl := r.flights.addOf(name, entry.UID, entry.Spec.ID)
	// An admitted entry's add under its list's claim is the reconcile's
	// own: a live entry waits for it (ensureAdded), and a deleting one
	// queues its removal behind it on the same client (reconcileDelete).
	if fl == nil || (admitted && fl.placed.Claim == listconfig.ClaimID(s.list)) {
		return false, false, nil
	}
	_, addErr := fl.pending.Result()
	if errors.Is(addErr, etagclient.ErrNotDone) {
		return true, false, nil
	}
	r.flights.forget(name)
	if landed := addErr == nil; !landed {
		// It failed, or was fenced: nothing of it is on a list.
		return false, false, nil
	}
	switch placed := placementOf(entry); {
	case placed == fl.placed.Claim:
		return false, false, nil
	case placed != "":
		// One entry has one add in flight at a time, and a recorded
		// placement that its list no longer names is taken off before
		// another add is submitted: not expected.
		ctrl.LoggerFrom(ctx).Error(nil, "an earlier add landed under another claim than the one recorded; that copy of the ID is left to the list's resync",
			"id", entry.Spec.ID, "recorded", placed, "landed", fl.placed.Claim)
		return false, false, nil
	}
	entry.Status.AddedTo = fl.placed.DeepCopy()
	return false, true, r.patchStatus(ctx, s)
}

// reconcileMoved takes the entry's ID off the claim it was added under,
// which its list no longer names (its URL, items pointer or role changed),
// through whichever list holds that claim now. Then the entry goes on with
// its list's own claim: the status patch that clears status.addedTo moves
// it to the bucket of that claim's document, whose owner's watch sees it
// (placementCleared). A deleting entry never added its ID to the new
// document (it takes the old one off first), so it lets go of its
// finalizer at once.
func (r *EntryReconciler) reconcileMoved(ctx context.Context, s *entryScope) (ctrl.Result, error) {
	done, removed, err := r.takeOff(ctx, s, placementOf(s.entry))
	if !done {
		return requeueOnConflict(r.patchStatus(ctx, s))
	}
	if err != nil {
		return requeueOnConflict(errors.Join(r.fail(s, "Remove", err), r.patchStatus(ctx, s)))
	}
	if removed {
		r.Recorder.Eventf(s.entry, nil, corev1.EventTypeNormal, v1alpha1.ReasonRemoved, "Remove",
			"ID %q is off the document it was added to: %s names another document now", s.entry.Spec.ID, s.ref)
	}
	s.entry.Status.AddedTo = nil
	if !s.entry.DeletionTimestamp.IsZero() {
		if err := r.patchStatus(ctx, s); err != nil {
			return requeueOnConflict(err)
		}
		return requeueOnConflict(r.releaseFinalizer(ctx, s.entry))
	}
	return requeueOnConflict(r.patchStatus(ctx, s))
}

// reconcileLive makes sure the entry carries the finalizer, then submits
// the add. Where the API server puts the finalizer on at creation (the
// MutatingAdmissionPolicy), every entry carries it already and this is no
// API write; an entry made before the policy was installed, or on a
// cluster without it, gets it with a patch.
func (r *EntryReconciler) reconcileLive(ctx context.Context, s *entryScope) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(s.entry, v1alpha1.FinalizerName) {
		// The finalizer is the durable record that the ID may be on the
		// list: nothing is submitted unless it landed. A 404 means the
		// entry was deleted (before it had a finalizer) since the cache
		// showed it.
		if err := patchFinalizer(ctx, r.Client, s.entry, controllerutil.AddFinalizer); err != nil {
			if apierrors.IsNotFound(err) {
				return ctrl.Result{}, nil
			}
			return requeueOnConflict(err)
		}
		s.before = s.entry.DeepCopy()
	}
	err := r.ensureAdded(ctx, s)
	return requeueOnConflict(errors.Join(err, r.patchStatus(ctx, s)))
}

// noClusterLists handles an entry of a ClusterExternalList in an
// installation that serves one namespace: no replica can write it. A
// deleting one never had its ID written here; a live one says why.
func (r *EntryReconciler) noClusterLists(ctx context.Context, s *entryScope) (ctrl.Result, error) {
	if !s.entry.DeletionTimestamp.IsZero() {
		return requeueOnConflict(r.releaseFinalizer(ctx, s.entry))
	}
	r.refuse(s, v1alpha1.ReasonNamespaceNotAllowed, fmt.Sprintf(
		"this listkeeper installation watches one namespace and serves no ClusterExternalLists, so %s cannot be used", s.ref))
	return requeueOnConflict(r.patchStatus(ctx, s))
}

// documentUnknown reports an entry whose list's document is not known: a
// URL from a Secret that the list's reconcile has not read, or could not
// (the document, and so the replica that writes it, is not known yet).
// The entry says why the list failed, with the list's own reason, or that
// it waits; the list's reconcile, once it has read the Secret, publishes
// the document, which queues the entry.
func (r *EntryReconciler) documentUnknown(s *entryScope) {
	if ready := meta.FindStatusCondition(s.list.ListStatus().Conditions, v1alpha1.ConditionReady); ready != nil && ready.Status == metav1.ConditionFalse && ready.ObservedGeneration == s.list.GetGeneration() {
		r.refuse(s, ready.Reason, fmt.Sprintf("%s cannot be written: %s", s.ref, ready.Message))
		return
	}
	if c := s.conditions(); !c.hasOutcome() {
		c.progressing(fmt.Sprintf("waiting for %s to resolve the document it names", s.ref))
	}
}

// listMissing handles an entry whose list the cache does not show. Only a
// read from the API server may conclude that the list is gone (the cache
// may trail it): then a deleting entry lets go of its finalizer without a
// write, and a live one reports ListNotFound. A list that exists is left to
// the replica that owns its document, once the cache shows it.
func (r *EntryReconciler) listMissing(ctx context.Context, s *entryScope) (ctrl.Result, error) {
	if _, err := getList(ctx, r.APIReader, s.ref); err == nil {
		return ctrl.Result{RequeueAfter: listLagRequeue}, nil
	} else if !apierrors.IsNotFound(err) {
		return ctrl.Result{}, fmt.Errorf("read %s: %w", s.ref, err)
	}
	if !s.entry.DeletionTimestamp.IsZero() {
		if !controllerutil.ContainsFinalizer(s.entry, v1alpha1.FinalizerName) {
			return ctrl.Result{}, nil
		}
		return r.leaveAsIs(ctx, s.entry, fmt.Sprintf("%s does not exist, so ID %q could not be removed from it", s.ref, s.entry.Spec.ID))
	}
	// Not Stalled: an entry applied together with its list is often seen
	// first, and the list's watch queues it when the list appears.
	why := fmt.Sprintf("%s does not exist", s.ref)
	s.setSynced(metav1.ConditionFalse, v1alpha1.ReasonListNotFound, why)
	s.conditions().waiting(v1alpha1.ReasonListNotFound, why)
	return requeueOnConflict(r.patchStatus(ctx, s))
}

// admitted reports whether the entry's list lets it keep its ID there: the
// list holds the claim on its document (else DocumentInUse), and a
// ClusterExternalList selects the entry's namespace (else
// NamespaceNotAllowed).
func (r *EntryReconciler) admitted(ctx context.Context, s *entryScope) (reason, why string, ok bool, err error) {
	if reason, why, ok, err := r.namespaceAdmitted(ctx, s); err != nil || !ok {
		return reason, why, ok, err
	}
	holder, err := holderOf(ctx, r.Client, s.list)
	if err != nil {
		return "", "", false, err
	}
	if holder.GetUID() != s.list.GetUID() {
		if !listconfig.HasStanding(s.list) {
			// The list cannot read its document: that is all its
			// entries learn, not that another list holds it.
			reason := v1alpha1.ReasonListUnreachable
			if ready := meta.FindStatusCondition(s.list.ListStatus().Conditions, v1alpha1.ConditionReady); ready != nil && ready.Status == metav1.ConditionFalse && ready.Reason != v1alpha1.ReasonDocumentInUse {
				reason = ready.Reason
			}
			return reason, fmt.Sprintf("%s has not read its document with its own credentials: see its Ready condition", s.ref), false, nil
		}
		return v1alpha1.ReasonDocumentInUse, fmt.Sprintf("%s does not hold the claim on its document: %s",
			s.ref, inUseMessage(holder, s.entry.Namespace)), false, nil
	}
	return "", "", true, nil
}

// namespaceAdmitted reports whether the entry's list serves the entry's
// namespace: an ExternalList serves its own, a ClusterExternalList those
// its namespaceSelector selects (else NamespaceNotAllowed).
func (r *EntryReconciler) namespaceAdmitted(ctx context.Context, s *entryScope) (reason, why string, ok bool, err error) {
	if s.ref.Kind != v1alpha1.ListKindClusterExternalList {
		return "", "", true, nil
	}
	nsLabels, err := r.namespaceLabels(ctx, s.entry.Namespace)
	if err != nil {
		return "", "", false, err
	}
	if why, ok := admits(s.list, s.entry.Namespace, nsLabels); !ok {
		return v1alpha1.ReasonNamespaceNotAllowed, why, false, nil
	}
	return "", "", true, nil
}

// notAdmitted handles a live entry its list does not admit (see
// admitted): its ID is not written, and when it was (status.addedTo) it is
// taken off, unless another admitted holder keeps it, with a Warning event
// that says why. The entry reports why, as Stalled: the user must change
// something.
func (r *EntryReconciler) notAdmitted(ctx context.Context, s *entryScope, reason, why string) (ctrl.Result, error) {
	if claim := placementOf(s.entry); claim != "" {
		done, removed, err := r.takeOff(ctx, s, claim)
		if !done {
			return requeueOnConflict(r.patchStatus(ctx, s))
		}
		if err != nil {
			return requeueOnConflict(errors.Join(r.fail(s, "Remove", err), r.patchStatus(ctx, s)))
		}
		s.entry.Status.AddedTo = nil
		if removed {
			r.Recorder.Eventf(s.entry, nil, corev1.EventTypeWarning, reason, "Remove",
				"ID %q was taken off the list: %s", s.entry.Spec.ID, why)
		}
	}
	r.refuse(s, reason, why)
	return requeueOnConflict(r.patchStatus(ctx, s))
}

// refuse records that the entry's ID cannot be written for reason: Synced
// and Ready False (with Stalled or Reconciling, see needsUser), and a
// Warning event when the reason is new, not at every reconcile.
func (r *EntryReconciler) refuse(s *entryScope, reason, why string) {
	s.setSynced(metav1.ConditionFalse, reason, why)
	s.conditions().failed(reason, why)
	if prev := meta.FindStatusCondition(s.before.Status.Conditions, v1alpha1.ConditionReady); prev == nil || prev.Reason != reason {
		r.Recorder.Eventf(s.entry, nil, corev1.EventTypeWarning, reason, "Add", "%s", why)
	}
}

// namespaceLabels returns the labels of namespace, as the cache shows it.
func (r *EntryReconciler) namespaceLabels(ctx context.Context, namespace string) (map[string]string, error) {
	ns := &corev1.Namespace{}
	if err := r.Client.Get(ctx, types.NamespacedName{Name: namespace}, ns); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("get namespace %q: %w", namespace, err)
	}
	return ns.Labels, nil
}

// ensureAdded submits the add, or records the outcome of the one submitted
// before.
func (r *EntryReconciler) ensureAdded(ctx context.Context, s *entryScope) error {
	// An ID the list client cannot carry can never work, and spec.id is
	// immutable.
	if err := checkID(s.entry.Spec.ID); err != nil {
		return reconcile.TerminalError(r.fail(s, "Add", err))
	}
	if why, blocked := addBlocked(s.entry, s.list); blocked {
		// Not Stalled: the list watch queues the entry when the list is
		// gone.
		s.setSynced(metav1.ConditionFalse, v1alpha1.ReasonListNotFound, why)
		s.conditions().waiting(v1alpha1.ReasonListNotFound, why)
		return nil
	}
	cl, cfg, err := r.client(ctx, s)
	if err != nil {
		return r.fail(s, "Add", err)
	}
	if err := r.recordPlacement(ctx, s); err != nil {
		return err
	}
	res, done, err := r.change(s, cl, cfg.Claim(), true)
	s.entry.Status.LastHandledReconcileAt = requestedAt(s.entry)
	if !done {
		s.inFlight(fmt.Sprintf("adding ID %q to %s", s.entry.Spec.ID, s.ref))
		return nil
	}
	if errors.Is(err, etagclient.ErrFenced) {
		r.fenced(s)
		return nil
	}
	if err != nil {
		return r.fail(s, "Add", err)
	}
	msg := fmt.Sprintf("ID %q is on %s (%d items)", s.entry.Spec.ID, s.ref, res.Items)
	s.setSynced(metav1.ConditionTrue, v1alpha1.ReasonAdded, msg)
	s.conditions().ready(v1alpha1.ReasonAdded, msg)
	return nil
}

// recordPlacement writes where the entry's ID is about to be added
// (status.addedTo: its list's document and claim) to the API server before
// the add is handed to the list client, unless the status says so already.
// Whatever happens to this replica after the write, the record that the ID
// may be on that document outlives it, as the finalizer does: the entry's
// removal, its list's move to another document and its loss of admission
// all take the ID off by that record, never by what a replica remembers.
// An add that then fails leaves the record in place, which costs a removal
// that finds nothing to remove.
func (r *EntryReconciler) recordPlacement(ctx context.Context, s *entryScope) error {
	if placementOf(s.entry) == listconfig.ClaimID(s.list) {
		return nil
	}
	placeAt(s.entry, s.list)
	if err := r.patchStatus(ctx, s); err != nil {
		return err
	}
	s.before = s.entry.DeepCopy()
	return nil
}

// reconcileDelete takes the entry's ID off the claim it was added under
// (status.addedTo), through whichever list holds that claim now, unless
// another admitted live entry of that claim holds it; then it releases the
// finalizer. An entry records its placement before its add is written
// (recordPlacement), so one that recorded none never wrote; still, one that
// its list admits takes the ID off its list's claim the same way, for an
// entry whose add an older version wrote without the record ahead. One that
// its list does not admit and that recorded nothing never wrote (why says
// why not).
func (r *EntryReconciler) reconcileDelete(ctx context.Context, s *entryScope, admitted bool, why string) (ctrl.Result, error) {
	entry := s.entry
	if !controllerutil.ContainsFinalizer(entry, v1alpha1.FinalizerName) {
		return ctrl.Result{}, nil
	}
	// An ID the list client cannot carry was never written.
	if checkID(entry.Spec.ID) != nil {
		return requeueOnConflict(r.releaseFinalizer(ctx, entry))
	}
	claim := placementOf(entry)
	if claim == "" {
		if !admitted {
			return r.leaveAsIs(ctx, entry, fmt.Sprintf("%s; ID %q was never added, and is left as it is", why, entry.Spec.ID))
		}
		claim = listconfig.ClaimID(s.list)
	}
	done, _, err := r.takeOff(ctx, s, claim)
	if !done {
		return requeueOnConflict(r.patchStatus(ctx, s))
	}
	if errors.Is(err, etagclient.ErrFenced) {
		r.fenced(s)
		return ctrl.Result{}, nil
	}
	if err != nil {
		return requeueOnConflict(errors.Join(r.fail(s, "Remove", err), r.patchStatus(ctx, s)))
	}
	return requeueOnConflict(r.releaseFinalizer(ctx, entry))
}

// leaveAsIs lets a deleted entry go without a removal: a RemoveSkipped
// event says why nothing was written, and the finalizer is released.
func (r *EntryReconciler) leaveAsIs(ctx context.Context, entry *v1alpha1.ListEntry, why string) (ctrl.Result, error) {
	r.Recorder.Eventf(entry, nil, corev1.EventTypeWarning, v1alpha1.ReasonRemoveSkipped, "Remove", "%s", why)
	return requeueOnConflict(r.releaseFinalizer(ctx, entry))
}

// takeOff takes the entry's ID off the claim with the given ID (listconfig.ClaimID),
// through the list that holds that claim now, with that list's
// credentials, unless another entry holds the ID there (heldFresh, asked
// now and again before each write). done is false while the removal is in
// flight, its completion queues the entry again, and while another holder
// has not recorded the ID yet (see holds): the entry says so and looks
// again after holderRecordRequeue. removed reports that
// this entry's removal was written or found done. When no list holds the
// claim any more, or its holder is being deleted with deletionPolicy
// Orphan, nothing is written: the list's deletionPolicy decided, and a
// RemoveSkipped event says so.
func (r *EntryReconciler) takeOff(ctx context.Context, s *entryScope, claim string) (done, removed bool, err error) {
	entry := s.entry
	holder, err := claimHolder(ctx, r.Client, claim)
	if err != nil {
		return true, false, err
	}
	if holder == nil {
		r.Recorder.Eventf(entry, nil, corev1.EventTypeWarning, v1alpha1.ReasonRemoveSkipped, "Remove",
			"no list writes the document ID %q was added to any more, so it is left as it is", entry.Spec.ID)
		return true, false, nil
	}
	if why, skip := skipRemoval(entry, holder); skip {
		r.Recorder.Eventf(entry, nil, corev1.EventTypeWarning, v1alpha1.ReasonRemoveSkipped, "Remove", "%s", why)
		return true, false, nil
	}
	cfg, err := r.Lists.Resolve(ctx, holder)
	if err != nil {
		return true, false, err
	}
	if _, found, done, err := r.flights.take(client.ObjectKeyFromObject(entry), entry.UID, false, entry.Spec.ID, cfg.Claim()); found {
		switch {
		case !done:
			return false, false, nil
		case errors.Is(err, errHeld):
			return true, false, nil
		case errors.Is(err, errHeldUnrecorded):
			r.awaitHolder(s)
			return false, false, nil
		}
		return true, err == nil, err
	}
	// What the cache shows decides nothing on its own, but it says which
	// read to make: a holder it shows is confirmed now, and a removal it
	// finds no holder for is checked before each write that carries it.
	if held, err := r.heldCached(ctx, holder, cfg.Spell(), entry.Spec.ID, entry.UID); err != nil {
		return true, false, err
	} else if held != heldByNone {
		switch held, err := r.heldFresh(ctx, holder, cfg.Spell(), entry.Spec.ID, entry.UID); {
		case err != nil:
			return true, false, err
		case held == heldRecorded:
			return true, false, nil
		case held == heldUnrecorded:
			r.awaitHolder(s)
			return false, false, nil
		}
	}
	cl, err := r.Lists.Client(cfg, listconfig.RefOf(holder))
	if err != nil {
		return true, false, err
	}
	_, done, err = r.submit(s, cl, cfg.Claim(), false, r.heldCheck(holder, cfg.Spell(), entry.Spec.ID, entry.UID))
	if !done {
		return false, false, nil
	}
	return true, false, err
}

// awaitHolder holds a removal back while another entry that holds the ID
// has not recorded it (see holds): the entry says why it waits and is
// looked at again after holderRecordRequeue. Its record (status.addedTo)
// and its finalizer stay, so that the ID comes off if that entry never
// records it.
func (r *EntryReconciler) awaitHolder(s *entryScope) {
	s.conditions().reconciling(v1alpha1.ReasonProgressing, fmt.Sprintf(
		"another entry holds ID %q on the document and has not recorded it there yet; the ID stays, and its removal waits until that entry records it or stops holding it",
		s.entry.Spec.ID))
	r.queue.addAfter(reconcile.Request{NamespacedName: client.ObjectKeyFromObject(s.entry)}, holderRecordRequeue)
}

// fenced handles a change that failed because this replica lost the right
// to write its document (its bucket moved), or an add that its list no
// longer allows (the list went, moved, lost its claim or stopped admitting
// the entry's namespace; see addAllowed): nothing is
// reported, and the entry is looked at again, by whichever replica owns it
// then.
func (r *EntryReconciler) fenced(s *entryScope) {
	r.queue.addAfter(reconcile.Request{NamespacedName: client.ObjectKeyFromObject(s.entry)}, conflictRequeue)
}

// client returns the client of the entry's list's claim, and the list's
// configuration.
func (r *EntryReconciler) client(ctx context.Context, s *entryScope) (*etagclient.Client, *listconfig.Config, error) {
	cfg, err := r.Lists.Resolve(ctx, s.list)
	if err != nil {
		return nil, nil, err
	}
	cl, err := r.Lists.Client(cfg, s.ref)
	if err != nil {
		return nil, nil, err
	}
	return cl, cfg, nil
}

// addAllowed reports whether an add of entry's ID, submitted under the
// claim listconfig.ClaimID calls claim, for an entry of ref, may still be
// written: the list (the same object, uid) is in the cache, is not being
// deleted, still names the document of claim and holds that claim, and
// still admits the entry's namespace. An add queued while its list moved
// to another document, lost the claim or stopped selecting the namespace
// must not land where nothing records it.
// It reads the cache only, so it is cheap enough for the list client to
// ask before every write attempt.
func (r *EntryReconciler) addAllowed(ref listconfig.Ref, uid types.UID, claim string, entry *v1alpha1.ListEntry) bool {
	ctx := context.Background()
	l, err := getList(ctx, r.Client, ref)
	if err != nil || l.GetUID() != uid || l.GetDeletionTimestamp() != nil || listconfig.ClaimID(l) != claim {
		return false
	}
	holder, err := holderOf(ctx, r.Client, l)
	return err == nil && holder.GetUID() == uid && listAdmitter(ctx, r.Client, l)(entry)
}

// change hands the add or removal of the entry's ID to the list's client, or
// returns the outcome of the one handed over before. done is false while it
// is in flight; its completion queues the entry again. The change keeps the
// entry's bucket admitted until it completes, so the bucket cannot move
// while it is in flight; the client's fence stops its writes once this
// replica's right to act on the document ends.
func (r *EntryReconciler) change(s *entryScope, cl *etagclient.Client, claim string, add bool) (etagclient.Result, bool, error) {
	entry := s.entry
	res, found, done, err := r.flights.take(client.ObjectKeyFromObject(entry), entry.UID, add, entry.Spec.ID, claim)
	if found {
		return res, done, err
	}
	return r.submit(s, cl, claim, add, nil)
}

// submit hands the add or removal of the entry's ID to the list's client
// (see change); check, when not nil, is asked before every write that
// would carry it (etagclient.SubmitChecked).
func (r *EntryReconciler) submit(s *entryScope, cl *etagclient.Client, claim string, add bool, check func(*etagclient.CheckRound) error) (etagclient.Result, bool, error) {
	entry := s.entry
	name := client.ObjectKeyFromObject(entry)
	release, ok := r.Owner.Acquire(s.bucket)
	if !ok {
		return etagclient.Result{}, false, nil
	}
	ch := etagclient.Change{Remove: []string{entry.Spec.ID}}
	var owns func() bool
	if add {
		ch = etagclient.Change{Add: []string{entry.Spec.ID}}
		// An add is also fenced by its list: once the list is going, its
		// deletionPolicy decides what happens to the IDs, and an add that
		// waited in the queue or in a backoff must not land after a Delete
		// cleanup took the IDs off; once another list holds the claim,
		// this entry's ID is no longer the list's to add.
		ref, uid, placed, e := s.ref, s.list.GetUID(), listconfig.ClaimID(s.list), entry.DeepCopy()
		owns = func() bool { return r.addAllowed(ref, uid, placed, e) }
	}
	req := reconcile.Request{NamespacedName: name}
	pending, err := cl.SubmitChecked(ch, owns, check, func() {
		release()
		r.queue.add(req)
	})
	if err != nil {
		release()
		return etagclient.Result{}, true, err
	}
	fl := &flight{uid: entry.UID, add: add, id: entry.Spec.ID, key: claim, pending: pending}
	if add {
		fl.placed = &v1alpha1.ListPlacement{DocumentID: listconfig.DocumentOf(s.list), Claim: listconfig.ClaimID(s.list)}
	}
	r.flights.put(name, fl)
	s.submitted = true
	// Still in flight after the grace: queue the entry, so that its status
	// says so. Done by then, the completion has queued it already.
	time.AfterFunc(progressGrace, func() {
		select {
		case <-pending.Done():
		default:
			r.queue.add(req)
		}
	})
	return etagclient.Result{}, false, nil
}

func (r *EntryReconciler) releaseFinalizer(ctx context.Context, entry *v1alpha1.ListEntry) error {
	if err := client.IgnoreNotFound(patchFinalizer(ctx, r.Client, entry, controllerutil.RemoveFinalizer)); err != nil {
		return err
	}
	r.flights.forget(client.ObjectKeyFromObject(entry))
	return nil
}

// fail records err on the Synced and Ready conditions (with Stalled or
// Reconciling, see needsUser) and as a Warning event with the same reason,
// and returns it for the workqueue's backoff.
func (r *EntryReconciler) fail(s *entryScope, action string, err error) error {
	reason := reasonFor(err)
	msg := messageFor(reason, err)
	s.setSynced(metav1.ConditionFalse, reason, msg)
	s.conditions().failed(reason, msg)
	r.Recorder.Eventf(s.entry, nil, corev1.EventTypeWarning, reason, action, "%s ID %q: %s", action, s.entry.Spec.ID, msg)
	return err
}

// setSynced sets Synced, which says whether the ID is on the list.
func (s *entryScope) setSynced(status metav1.ConditionStatus, reason, msg string) {
	s.conditions().set(v1alpha1.ConditionSynced, status, reason, msg)
}

func (s *entryScope) conditions() conditions {
	return conditions{list: &s.entry.Status.Conditions, observed: &s.entry.Status.ObservedGeneration, generation: s.entry.Generation}
}

// inFlight records that the entry's change is in flight: Ready=Unknown and
// Reconciling=True, unless Ready already tells the outcome of an earlier
// attempt for this generation. That outcome stands until the new one is
// known: an entry Ready=True stays so while its ID is confirmed again (a
// resync, a forced reconcile), and a failed one keeps its reason while it
// is retried, so a retry costs no status write.
//
// A change this reconcile just handed over is not reported yet: if it is
// still in flight after progressGrace, the entry is queued again and
// reported then (see change).
func (s *entryScope) inFlight(msg string) {
	if s.submitted {
		return
	}
	if c := s.conditions(); !c.hasOutcome() {
		c.progressing(msg)
	}
}

// patchStatus writes the entry's status when it changed (see patchStatus).
func (r *EntryReconciler) patchStatus(ctx context.Context, s *entryScope) error {
	return patchStatus(ctx, r.Client, s.before, s.entry, s.before.Status, s.entry.Status)
}

// SetupWithManager registers the controller, its field indexes and its
// watches.
func (r *EntryReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Client == nil || r.APIReader == nil || r.Lists == nil || r.Recorder == nil || r.Owner == nil {
		return errors.New("EntryReconciler needs Client, APIReader, Lists, Recorder and Owner")
	}
	if err := addIndexes(context.Background(), mgr.GetFieldIndexer(), entryIndexes()); err != nil {
		return err
	}
	r.Owner.OnGained(r.queueGained)
	b := ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.ListEntry{}, builder.WithPredicates(predicate.Or(specOrDeletionChanged(), reconcileRequested(), placementCleared()))).
		Watches(&v1alpha1.ExternalList{}, handler.EnqueueRequestsFromMapFunc(r.entriesOfList), builder.WithPredicates(listChanged()))
	if !r.NamespacedOnly {
		b = b.Watches(&v1alpha1.ClusterExternalList{}, handler.EnqueueRequestsFromMapFunc(r.entriesOfList), builder.WithPredicates(listChanged())).
			Watches(&corev1.Namespace{}, handler.EnqueueRequestsFromMapFunc(r.entriesOfNamespace), builder.WithPredicates(labelsChanged()))
	}
	return b.Watches(&v1alpha1.ListEntry{}, r.vanishedOnDelete()).
		WatchesRawSource(r.queue.source()).
		WithOptions(controllerOptions(r.MaxConcurrentReconciles, r.ReconcileTimeout, r.NewRateLimiter)).
		Named("listentry").
		Complete(r)
}

// queueGained queues the entries of buckets this replica has just taken.
func (r *EntryReconciler) queueGained(gained []int) {
	if !r.queue.started() {
		return // the controller's initial list queues everything
	}
	ctx := context.Background()
	var entries v1alpha1.ListEntryList
	if err := r.Client.List(ctx, &entries); err != nil {
		return
	}
	lists := map[listconfig.Ref]v1alpha1.List{}
	r.queue.addInBuckets(gained, len(entries.Items), func(i int) (int, reconcile.Request) {
		e := &entries.Items[i]
		ref := entryListRef(e)
		l, ok := lists[ref]
		if !ok {
			l, _ = getList(ctx, r.Client, ref)
			lists[ref] = l
		}
		return r.Owner.Bucket(entryBucketKey(e, l)), reconcile.Request{NamespacedName: client.ObjectKeyFromObject(e)}
	})
	// Entries that vanished with their finalizer on are not in the cache,
	// but recorded on their lists (every list: one whose only entry
	// vanished has no live entry to find it by); they are few, and a
	// reconcile of one outside the gained buckets ends at Acquire.
	all, err := allLists(ctx, r.Client)
	if err != nil {
		return
	}
	for _, l := range all {
		for _, req := range vanishedRequests(l) {
			r.queue.add(req)
		}
	}
}

// entriesOfList maps a list to its entries, when this replica owns them,
// so they are queued at once (without waiting for their backoff) when the
// list appears, goes, changes its spec or document, or turns Ready or not.
func (r *EntryReconciler) entriesOfList(ctx context.Context, obj client.Object) []reconcile.Request {
	l, ok := obj.(v1alpha1.List)
	if !ok {
		return nil
	}
	ref := listconfig.RefOf(l)
	// Entries are keyed as their reconciles will key them (entryBucketKey):
	// by the list's document while the cache shows the list, and without
	// it once it is gone (on a delete event the cache no longer has it);
	// an entry whose ID is still on a document the list no longer names,
	// by that document. Each replica queues those it owns; its owner's
	// own watch queues the others.
	cached := l
	if _, err := getList(ctx, r.Client, ref); apierrors.IsNotFound(err) {
		cached = nil
	}
	var list v1alpha1.ListEntryList
	if err := r.Client.List(ctx, &list, client.MatchingFields{listField: ref.Key()}); err != nil {
		return nil
	}
	reqs := vanishedRequests(l)
	for i := range list.Items {
		e := &list.Items[i]
		if r.Owner.Owns(r.Owner.Bucket(entryBucketKey(e, cached))) {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(e)})
		}
	}
	return reqs
}

// finalizerAtBirth reports whether the API server puts the finalizer on
// every entry at creation (see FinalizerAtBirth).
func (r *EntryReconciler) finalizerAtBirth() bool {
	return r.FinalizerAtBirth != nil && r.FinalizerAtBirth()
}

// entriesOfNamespace maps a namespace whose labels changed to its entries
// of ClusterExternalLists, whose selectors may now admit them or not.
func (r *EntryReconciler) entriesOfNamespace(ctx context.Context, obj client.Object) []reconcile.Request {
	var list v1alpha1.ListEntryList
	if err := r.Client.List(ctx, &list, client.InNamespace(obj.GetName()),
		client.MatchingFields{listKindField: string(v1alpha1.ListKindClusterExternalList)}); err != nil {
		return nil
	}
	var reqs []reconcile.Request
	for i := range list.Items {
		reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
	}
	return reqs
}
