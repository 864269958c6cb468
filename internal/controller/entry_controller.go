package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crcontroller "sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// EventRecorder is the part of the events API the controllers use; the
// manager's GetEventRecorder satisfies it.
type EventRecorder interface {
	Eventf(regarding runtime.Object, related runtime.Object, eventtype, reason, action, note string, args ...any)
}

// conflictRequeue is how soon an object whose write met a newer version (an
// optimistic-lock conflict) is reconciled again, from a fresher cache.
const conflictRequeue = 200 * time.Millisecond

// EntryReconciler keeps a ListEntry's ID on its ExternalList's document
// while the entry lives, and takes it off when the entry is deleted and no
// other live entry holds the same ID in the same document. Only the replica
// that owns the entry's bucket acts on it: it alone writes the entry's
// finalizer, status and events, and submits its changes.
type EntryReconciler struct {
	// Client reads from the manager's cache and writes to the API server.
	Client client.Client
	// Lists hands out the shared ETag clients.
	Lists *ListClients
	// Recorder emits events.
	Recorder EventRecorder
	// Owner decides which entries this replica acts on.
	Owner Owner
	// MaxConcurrentReconciles is the number of workers (default 1).
	MaxConcurrentReconciles int
	// NewRateLimiter, when set, makes the work queue's rate limiter (the
	// backoff of failed reconciles). Default: controller-runtime's.
	NewRateLimiter func() workqueue.TypedRateLimiter[reconcile.Request]

	flights flights
	queue   workQueue
}

var _ reconcile.Reconciler = (*EntryReconciler)(nil)

// entryScope is the state of one reconcile of one entry.
type entryScope struct {
	entry     *v1alpha1.ListEntry
	before    *v1alpha1.ListEntry // for the status patch
	list      *v1alpha1.ExternalList
	bucket    int
	submitted bool // this reconcile handed a change to the list client
}

// progressGrace is how long a change may be in flight before its entry
// says so (Ready=Unknown, Reconciling=True). Most changes commit well
// within it, and their entry then goes straight to its outcome: one status
// write instead of two.
const progressGrace = time.Second

// +kubebuilder:rbac:groups=listkeeper.dev,resources=listentries,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=listkeeper.dev,resources=listentries/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=listkeeper.dev,resources=listentries/finalizers,verbs=update
// +kubebuilder:rbac:groups=listkeeper.dev,resources=externallists,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile ensures the entry's ID is on its list, or off it when the entry
// is being deleted.
func (r *EntryReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	entry := &v1alpha1.ListEntry{}
	if err := r.Client.Get(ctx, req.NamespacedName, entry); err != nil {
		if apierrors.IsNotFound(err) {
			// Released by this replica, or deleted before it had a
			// finalizer: nothing of it is on a list.
			r.flights.forget(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	s := &entryScope{entry: entry, before: entry.DeepCopy()}
	xl, err := r.getList(ctx, entry)
	if err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	s.list = xl
	s.bucket = r.Owner.Bucket(entryKey(entry, xl))
	release, ok := r.Owner.Acquire(s.bucket)
	if !ok {
		// Another replica owns it; this one queues it when it takes the
		// bucket over.
		return ctrl.Result{}, nil
	}
	defer release()
	if !entry.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, s)
	}
	if !controllerutil.ContainsFinalizer(entry, v1alpha1.FinalizerName) {
		if err := patchFinalizer(ctx, r.Client, entry, controllerutil.AddFinalizer); err != nil {
			return requeueOnConflict(err)
		}
		s.before = entry.DeepCopy()
	}
	err = r.ensureAdded(ctx, s)
	return requeueOnConflict(errors.Join(err, r.patchStatus(ctx, s)))
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
		// Not Stalled: an entry applied together with its ExternalList is
		// often seen first, and the ExternalList watch queues it when the
		// list appears (or, for a list being deleted, when it is gone).
		s.setSynced(metav1.ConditionFalse, v1alpha1.ReasonListNotFound, why)
		s.conditions().waiting(v1alpha1.ReasonListNotFound, why)
		return nil
	}
	cl, key, err := r.Lists.For(ctx, s.list)
	if err != nil {
		return r.fail(s, "Add", err)
	}
	res, done, err := r.change(s, cl, key, true)
	s.entry.Status.LastHandledReconcileAt = requestedAt(s.entry)
	if !done {
		s.inFlight(fmt.Sprintf("adding ID %q to list %s", s.entry.Spec.ID, s.entry.Spec.ListRef.Name))
		return nil
	}
	if err != nil {
		return r.fail(s, "Add", err)
	}
	msg := fmt.Sprintf("ID %q is on list %s (%d items)", s.entry.Spec.ID, s.entry.Spec.ListRef.Name, res.Items)
	s.setSynced(metav1.ConditionTrue, v1alpha1.ReasonAdded, msg)
	s.conditions().ready(v1alpha1.ReasonAdded, msg)
	return nil
}

// reconcileDelete takes the ID off the list unless another live entry holds
// it in the same document, then releases the finalizer.
func (r *EntryReconciler) reconcileDelete(ctx context.Context, s *entryScope) (ctrl.Result, error) {
	entry := s.entry
	if !controllerutil.ContainsFinalizer(entry, v1alpha1.FinalizerName) {
		return ctrl.Result{}, nil
	}
	// An ID the list client cannot carry was never written.
	if checkID(entry.Spec.ID) != nil {
		return requeueOnConflict(r.releaseFinalizer(ctx, entry))
	}
	if why, skip := skipRemoval(entry, s.list); skip {
		r.Recorder.Eventf(entry, nil, corev1.EventTypeWarning, v1alpha1.ReasonRemoveSkipped, "Remove", "%s", why)
		return requeueOnConflict(r.releaseFinalizer(ctx, entry))
	}
	cl, key, err := r.Lists.For(ctx, s.list)
	if err != nil {
		return requeueOnConflict(errors.Join(r.fail(s, "Remove", err), r.patchStatus(ctx, s)))
	}
	held, err := r.heldByOthers(ctx, s)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !held {
		_, done, err := r.change(s, cl, key, false)
		if !done {
			return ctrl.Result{}, nil
		}
		if err != nil {
			return requeueOnConflict(errors.Join(r.fail(s, "Remove", err), r.patchStatus(ctx, s)))
		}
	}
	return requeueOnConflict(r.releaseFinalizer(ctx, entry))
}

// listGoing reports whether the cached ExternalList is gone or being
// deleted. It reads the informer cache only, so it is cheap enough for the
// list client to ask before every write.
func (r *EntryReconciler) listGoing(key client.ObjectKey) bool {
	var xl v1alpha1.ExternalList
	if err := r.Client.Get(context.Background(), key, &xl); err != nil {
		return apierrors.IsNotFound(err)
	}
	return !xl.DeletionTimestamp.IsZero()
}

// change hands the add or removal of the entry's ID to the list's client, or
// returns the outcome of the one handed over before. done is false while it
// is in flight; its completion queues the entry again. The change keeps the
// entry's bucket admitted until it completes, so the bucket cannot move
// while it is in flight, and it is fenced: after a lost write it is applied
// again only while this replica still owns the bucket.
func (r *EntryReconciler) change(s *entryScope, cl *etagclient.Client, key string, add bool) (etagclient.Result, bool, error) {
	entry := s.entry
	name := client.ObjectKeyFromObject(entry)
	res, found, done, err := r.flights.take(name, entry.UID, add, entry.Spec.ID, key)
	if found {
		return res, done, err
	}
	release, ok := r.Owner.Acquire(s.bucket)
	if !ok {
		return etagclient.Result{}, false, nil
	}
	ch := etagclient.Change{Remove: []string{entry.Spec.ID}}
	if add {
		ch = etagclient.Change{Add: []string{entry.Spec.ID}}
	}
	req := reconcile.Request{NamespacedName: name}
	bucket := s.bucket
	owns := func() bool { return r.Owner.Owns(bucket) }
	if add {
		// An add is also fenced by its list's deletion: once the
		// ExternalList is going, its deletionPolicy decides what happens to
		// the IDs, and an add that waited in the queue or in a backoff
		// must not land after a Delete cleanup took the IDs off.
		listKey := client.ObjectKey{Namespace: entry.Namespace, Name: entry.Spec.ListRef.Name}
		owns = func() bool { return r.Owner.Owns(bucket) && !r.listGoing(listKey) }
	}
	pending, err := cl.SubmitFenced(ch, owns, func() {
		release()
		r.queue.add(req)
	})
	if err != nil {
		release()
		return etagclient.Result{}, true, err
	}
	r.flights.put(name, &flight{uid: entry.UID, add: add, id: entry.Spec.ID, key: key, pending: pending})
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

// heldByOthers reports whether another live entry holds the entry's ID in
// the same document, through any ExternalList in any namespace this
// replica watches. The cache decides: every holder of the ID in this
// document falls in the same bucket, so this replica has seen each of their
// deletions before it processes them, and the last holder to go always
// sees that the others are gone.
func (r *EntryReconciler) heldByOthers(ctx context.Context, s *entryScope) (bool, error) {
	var same v1alpha1.ListEntryList
	if err := r.Client.List(ctx, &same, client.MatchingFields{idField: s.entry.Spec.ID}); err != nil {
		return false, fmt.Errorf("list entries with ID %q: %w", s.entry.Spec.ID, err)
	}
	docs := map[types.NamespacedName]string{}
	for i := range same.Items {
		k := same.Items[i].ListKey()
		if _, seen := docs[k]; seen || same.Items[i].UID == s.entry.UID {
			continue
		}
		xl := &v1alpha1.ExternalList{}
		if err := r.Client.Get(ctx, k, xl); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return false, err
		}
		docs[k] = documentKey(xl)
	}
	return heldByOthers(s.entry, documentKey(s.list), same.Items, docs), nil
}

func (r *EntryReconciler) getList(ctx context.Context, entry *v1alpha1.ListEntry) (*v1alpha1.ExternalList, error) {
	xl := &v1alpha1.ExternalList{}
	if err := r.Client.Get(ctx, entry.ListKey(), xl); err != nil {
		return nil, err
	}
	return xl, nil
}

// patchFinalizer adds or removes listkeeper's finalizer on obj (a ListEntry
// or an ExternalList) with an optimistic lock: the patch carries the
// resourceVersion it was computed from, so it can never drop a finalizer
// that another controller added meanwhile.
func patchFinalizer(ctx context.Context, c client.Client, obj client.Object, edit func(client.Object, string) bool) error {
	patch := client.MergeFromWithOptions(obj.DeepCopyObject().(client.Object), client.MergeFromWithOptimisticLock{})
	if !edit(obj, v1alpha1.FinalizerName) {
		return nil
	}
	return client.IgnoreNotFound(c.Patch(ctx, obj, patch))
}

func (r *EntryReconciler) releaseFinalizer(ctx context.Context, entry *v1alpha1.ListEntry) error {
	if err := patchFinalizer(ctx, r.Client, entry, controllerutil.RemoveFinalizer); err != nil {
		return err
	}
	r.flights.forget(client.ObjectKeyFromObject(entry))
	return nil
}

// requeueOnConflict turns an optimistic-lock conflict into a prompt retry
// from a fresher cache instead of an error.
func requeueOnConflict(err error) (ctrl.Result, error) {
	if err != nil && apierrors.IsConflict(err) {
		return ctrl.Result{RequeueAfter: conflictRequeue}, nil
	}
	return ctrl.Result{}, err
}

// fail records err on the Synced and Ready conditions (with Stalled or
// Reconciling, see needsUser) and as a Warning event with the same reason,
// and returns it for the workqueue's backoff.
func (r *EntryReconciler) fail(s *entryScope, action string, err error) error {
	reason := reasonFor(err)
	s.setSynced(metav1.ConditionFalse, reason, err.Error())
	s.conditions().failed(reason, err.Error())
	r.Recorder.Eventf(s.entry, nil, corev1.EventTypeWarning, reason, action, "%s ID %q: %s", action, s.entry.Spec.ID, err.Error())
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
	if r.Client == nil || r.Lists == nil || r.Recorder == nil || r.Owner == nil {
		return errors.New("EntryReconciler needs Client, Lists, Recorder and Owner")
	}
	if err := indexEntries(context.Background(), mgr.GetFieldIndexer()); err != nil {
		return err
	}
	r.Owner.OnGained(r.queueGained)
	return ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.ListEntry{}, builder.WithPredicates(predicate.Or(specOrDeletionChanged(), reconcileRequested()))).
		Watches(&v1alpha1.ExternalList{}, handler.EnqueueRequestsFromMapFunc(r.entriesOfList),
			builder.WithPredicates(predicate.Or[client.Object](predicate.GenerationChangedPredicate{}, listBecameReady()))).
		WatchesRawSource(r.queue.source()).
		WithOptions(controllerOptions(r.MaxConcurrentReconciles, r.NewRateLimiter)).
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
	lists := map[types.NamespacedName]*v1alpha1.ExternalList{}
	r.queue.addInBuckets(gained, len(entries.Items), func(i int) (int, reconcile.Request) {
		e := &entries.Items[i]
		xl, ok := lists[e.ListKey()]
		if !ok {
			xl = &v1alpha1.ExternalList{}
			if err := r.Client.Get(ctx, e.ListKey(), xl); err != nil {
				xl = nil
			}
			lists[e.ListKey()] = xl
		}
		return r.Owner.Bucket(entryKey(e, xl)), reconcile.Request{NamespacedName: client.ObjectKeyFromObject(e)}
	})
}

// entriesOfList maps an ExternalList to those of its entries that this
// replica owns, so they are queued at once (without waiting for their
// backoff) when the list appears, its spec changes or it turns Ready.
func (r *EntryReconciler) entriesOfList(ctx context.Context, obj client.Object) []reconcile.Request {
	xl, _ := obj.(*v1alpha1.ExternalList)
	if xl == nil {
		return nil
	}
	// An entry's bucket is hashed from its list's document while the list
	// is in the cache, and without it once it is gone (see entryKey). On a
	// delete event the cache no longer has the list, so the entries are
	// keyed as their reconciles will key them: without it. Keyed by the
	// deleted list, they would be queued only by a replica that then finds
	// it does not own them, and a deleting entry would stay Terminating.
	keyedBy := xl
	if err := r.Client.Get(ctx, client.ObjectKeyFromObject(xl), &v1alpha1.ExternalList{}); apierrors.IsNotFound(err) {
		keyedBy = nil
	}
	var list v1alpha1.ListEntryList
	if err := r.Client.List(ctx, &list, client.InNamespace(obj.GetNamespace()),
		client.MatchingFields{listRefField: obj.GetName()}); err != nil {
		return nil
	}
	reqs := make([]reconcile.Request, 0, len(list.Items))
	for i := range list.Items {
		e := &list.Items[i]
		if !r.Owner.Owns(r.Owner.Bucket(entryKey(e, keyedBy))) {
			continue // its owner's own watch queues it
		}
		reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: e.Namespace, Name: e.Name}})
	}
	return reqs
}

// controllerOptions are a controller's options: workers (at least one) and
// the work queue's rate limiter, when newRateLimiter is set.
func controllerOptions(workers int, newRateLimiter func() workqueue.TypedRateLimiter[reconcile.Request]) crcontroller.Options {
	o := crcontroller.Options{MaxConcurrentReconciles: max(1, workers)}
	if newRateLimiter != nil {
		o.RateLimiter = newRateLimiter()
	}
	return o
}
