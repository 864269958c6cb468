package controller

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
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
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// EventRecorder is the part of the events API the controllers use; the
// manager's GetEventRecorder satisfies it.
type EventRecorder interface {
	Eventf(regarding runtime.Object, related runtime.Object, eventtype, reason, action, note string, args ...any)
}

// EntryReconciler keeps a ListEntry's ID on its ExternalList while the entry
// lives, and takes it off when the entry is deleted and no other live entry
// of the same list holds the same ID.
type EntryReconciler struct {
	// Client reads from the manager's cache and writes to the API server.
	Client client.Client
	// APIReader reads from the API server directly, for the checks that a
	// stale cache must not decide.
	APIReader client.Reader
	// Lists hands out the shared ETag clients.
	Lists *ListClients
	// Recorder emits events.
	Recorder EventRecorder
	// MaxConcurrentReconciles is the number of workers (default 1).
	MaxConcurrentReconciles int

	flights flights
	queue   atomic.Pointer[workqueue.TypedRateLimitingInterface[reconcile.Request]]
}

var _ reconcile.Reconciler = (*EntryReconciler)(nil)

// entryScope is the state of one reconcile of one entry.
type entryScope struct {
	entry  *v1alpha1.ListEntry
	before *v1alpha1.ListEntry // for the status patch
}

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
		if !apierrors.IsNotFound(err) {
			return ctrl.Result{}, err
		}
		// Fix: the reconcile queued by a change's completion may find the
		// entry gone (another replica removed the ID and released it). Its
		// flight used to be left behind (a leak), and an add that landed
		// after that removal stayed on the list for good.
		return ctrl.Result{}, r.settleOrphan(ctx, req.NamespacedName, "")
	}
	if err := r.settleOrphan(ctx, req.NamespacedName, entry.UID); err != nil {
		return ctrl.Result{}, err
	}
	if !entry.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, entry)
	}
	if !controllerutil.ContainsFinalizer(entry, v1alpha1.FinalizerName) {
		patch := client.MergeFrom(entry.DeepCopy())
		controllerutil.AddFinalizer(entry, v1alpha1.FinalizerName)
		if err := r.Client.Patch(ctx, entry, patch); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
	}
	s := &entryScope{entry: entry, before: entry.DeepCopy()}
	err := r.ensureAdded(ctx, s)
	return ctrl.Result{}, errors.Join(err, r.patchStatus(ctx, s))
}

// ensureAdded submits the add, or records the outcome of the one submitted
// before.
func (r *EntryReconciler) ensureAdded(ctx context.Context, s *entryScope) error {
	// Fix: an ID the list client cannot carry used to be retried forever
	// as ListUnreachable. It can never work and spec.id is immutable.
	if err := checkID(s.entry.Spec.ID); err != nil {
		return reconcile.TerminalError(r.fail(s, "Add", err))
	}
	xl, err := r.getList(ctx, s.entry)
	if apierrors.IsNotFound(err) {
		s.setSynced(metav1.ConditionFalse, v1alpha1.ReasonListNotFound,
			fmt.Sprintf("ExternalList %q does not exist", s.entry.Spec.ListRef.Name))
		return nil // the ExternalList watch queues the entry when it appears
	}
	if err != nil {
		return err
	}
	cl, key, err := r.Lists.For(ctx, xl)
	if err != nil {
		return r.fail(s, "Add", err)
	}
	res, done, err := r.change(s.entry, cl, key, true)
	if !done {
		return nil
	}
	if err != nil {
		return r.fail(s, "Add", err)
	}
	// A replica whose cache lagged may have added the ID after the entry's
	// deletion took it off: only the API server can tell.
	if gone, err := r.deletedMeanwhile(ctx, s.entry); err != nil || gone {
		return err
	}
	s.setSynced(metav1.ConditionTrue, v1alpha1.ReasonAdded,
		fmt.Sprintf("ID %q is on list %s (%d items)", s.entry.Spec.ID, s.entry.Spec.ListRef.Name, res.Items))
	return nil
}

// reconcileDelete takes the ID off the list unless another live entry holds
// it, then releases the finalizer.
func (r *EntryReconciler) reconcileDelete(ctx context.Context, entry *v1alpha1.ListEntry) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(entry, v1alpha1.FinalizerName) {
		return ctrl.Result{}, nil
	}
	// Fix: an ID the list client cannot carry was never written, so there
	// is nothing to take off; the removal used to fail forever and hold the
	// entry.
	if checkID(entry.Spec.ID) != nil {
		return ctrl.Result{}, r.releaseFinalizer(ctx, entry)
	}
	s := &entryScope{entry: entry, before: entry.DeepCopy()}
	xl, err := r.getList(ctx, entry)
	switch {
	case apierrors.IsNotFound(err):
		r.Recorder.Eventf(entry, nil, corev1.EventTypeWarning, v1alpha1.ReasonRemoveSkipped, "Remove",
			"ExternalList %q does not exist, so ID %q could not be removed from it", entry.Spec.ListRef.Name, entry.Spec.ID)
		return ctrl.Result{}, r.releaseFinalizer(ctx, entry)
	case err != nil:
		return ctrl.Result{}, err
	}
	cl, key, err := r.Lists.For(ctx, xl)
	if err != nil {
		return ctrl.Result{}, errors.Join(r.fail(s, "Remove", err), r.patchStatus(ctx, s))
	}
	held, err := r.heldByOthersNow(ctx, entry)
	if err != nil {
		return ctrl.Result{}, err
	}
	if held {
		// Another live entry holds the ID. A removal this entry submitted
		// earlier may have taken it off meanwhile: put it back.
		if r.flights.forget(client.ObjectKeyFromObject(entry)) {
			if err := repair(ctx, cl, entry.Spec.ID, true); err != nil {
				return ctrl.Result{}, err
			}
		}
	} else {
		_, done, err := r.change(entry, cl, key, false)
		if !done {
			return ctrl.Result{}, nil
		}
		if err != nil {
			return ctrl.Result{}, errors.Join(r.fail(s, "Remove", err), r.patchStatus(ctx, s))
		}
		// Another entry with the same ID may have appeared since the check.
		if err := r.restoreIfHeld(ctx, entry, cl); err != nil {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{}, r.releaseFinalizer(ctx, entry)
}

// change hands the add or removal of the entry's ID to the list's client, or
// returns the outcome of the one handed over before. done is false while it
// is in flight; its completion queues the entry again.
func (r *EntryReconciler) change(entry *v1alpha1.ListEntry, cl *etagclient.Client, key string, add bool) (etagclient.Result, bool, error) {
	name := client.ObjectKeyFromObject(entry)
	res, found, done, err := r.flights.take(name, entry.UID, add, entry.Spec.ID, key)
	if found {
		return res, done, err
	}
	ch := etagclient.Change{Remove: []string{entry.Spec.ID}}
	if add {
		ch = etagclient.Change{Add: []string{entry.Spec.ID}}
	}
	req := reconcile.Request{NamespacedName: name}
	pending, err := cl.Submit(ch, func() { r.requeue(req) })
	if err != nil {
		return etagclient.Result{}, true, err
	}
	r.flights.put(name, &flight{uid: entry.UID, add: add, id: entry.Spec.ID, list: entry.Spec.ListRef.Name, key: key, pending: pending})
	return etagclient.Result{}, false, nil
}

func (r *EntryReconciler) requeue(req reconcile.Request) {
	if q := r.queue.Load(); q != nil {
		(*q).Add(req)
	}
}

// deletedMeanwhile checks with the API server whether the entry is being
// deleted or gone after its ID was added; if so it takes the ID off again
// (unless held by another entry) and reports true.
func (r *EntryReconciler) deletedMeanwhile(ctx context.Context, entry *v1alpha1.ListEntry) (bool, error) {
	live := &v1alpha1.ListEntry{}
	err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(entry), live)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return false, fmt.Errorf("re-check entry: %w", err)
	case live.UID == entry.UID && live.DeletionTimestamp.IsZero():
		return false, nil
	}
	xl, err := r.getList(ctx, entry)
	if err != nil {
		return true, client.IgnoreNotFound(err)
	}
	held, err := r.heldLive(ctx, entry)
	if err != nil || held {
		return true, err
	}
	cl, _, err := r.Lists.For(ctx, xl)
	if err != nil {
		return true, err
	}
	r.flights.forget(client.ObjectKeyFromObject(entry))
	return true, repair(ctx, cl, entry.Spec.ID, false)
}

// settleOrphan drops the flight that an entry no longer under name (uid is
// the entry now there, "" when none is) left behind. When it was an add, the
// add may have landed after another replica took the ID off and released
// the entry, so the ID is taken off again unless another live entry holds
// it. The add, if still pending, is in the same client and so applies
// before the removal.
func (r *EntryReconciler) settleOrphan(ctx context.Context, name types.NamespacedName, uid types.UID) error {
	fl := r.flights.orphan(name, uid)
	if fl == nil || !fl.add {
		return nil
	}
	gone := &v1alpha1.ListEntry{
		ObjectMeta: metav1.ObjectMeta{Namespace: name.Namespace, Name: name.Name, UID: fl.uid},
		Spec:       v1alpha1.ListEntrySpec{ListRef: v1alpha1.ListReference{Name: fl.list}, ID: fl.id},
	}
	if _, err := r.deletedMeanwhile(ctx, gone); err != nil {
		r.flights.put(name, fl) // the retry settles it again
		return fmt.Errorf("settle add of ID %q left by a deleted entry: %w", fl.id, err)
	}
	return nil
}

// restoreIfHeld puts the ID back when, after it was removed, the API server
// shows a live entry that holds it.
func (r *EntryReconciler) restoreIfHeld(ctx context.Context, entry *v1alpha1.ListEntry, cl *etagclient.Client) error {
	held, err := r.heldLive(ctx, entry)
	if err != nil || !held {
		return err
	}
	return repair(ctx, cl, entry.Spec.ID, true)
}

// repair puts id back on the list (present) or takes it off, waiting for the
// write: the corrections that follow a race between replicas are rare and
// must be done before the entry's finalizer or status moves on.
func repair(ctx context.Context, cl *etagclient.Client, id string, present bool) error {
	ch, what := etagclient.Change{Remove: []string{id}}, "take back ID %q of a deleted entry: %w"
	if present {
		ch, what = etagclient.Change{Add: []string{id}}, "restore ID %q held by another entry: %w"
	}
	if _, err := cl.Update(ctx, ch); err != nil {
		return fmt.Errorf(what, id, err)
	}
	return nil
}

// heldByOthersNow decides whether another live entry holds the ID before a
// removal. "No" may come from the cache: if the cache missed a new holder,
// restoreIfHeld finds it on the API server after the removal. "Yes" must
// come from the API server: two replicas whose caches each still showed the
// other's entry as live would otherwise both skip the removal and leak the
// ID. So the common case (a unique ID) costs no API call here.
func (r *EntryReconciler) heldByOthersNow(ctx context.Context, entry *v1alpha1.ListEntry) (bool, error) {
	var cached v1alpha1.ListEntryList
	if err := r.Client.List(ctx, &cached, client.InNamespace(entry.Namespace),
		client.MatchingFields{idField: entry.Spec.ID}); err != nil {
		return false, fmt.Errorf("list cached entries with ID %q: %w", entry.Spec.ID, err)
	}
	if !heldByOthers(entry, cached.Items) {
		return false, nil
	}
	return r.heldLive(ctx, entry)
}

// heldLive asks the API server (not the cache) whether another live entry of
// the same list holds the entry's ID.
func (r *EntryReconciler) heldLive(ctx context.Context, entry *v1alpha1.ListEntry) (bool, error) {
	var list v1alpha1.ListEntryList
	if err := r.APIReader.List(ctx, &list, client.InNamespace(entry.Namespace),
		client.MatchingFields{idField: entry.Spec.ID}); err != nil {
		return false, fmt.Errorf("list entries with ID %q: %w", entry.Spec.ID, err)
	}
	return heldByOthers(entry, list.Items), nil
}

func (r *EntryReconciler) getList(ctx context.Context, entry *v1alpha1.ListEntry) (*v1alpha1.ExternalList, error) {
	xl := &v1alpha1.ExternalList{}
	if err := r.Client.Get(ctx, entry.ListKey(), xl); err != nil {
		return nil, err
	}
	return xl, nil
}

func (r *EntryReconciler) releaseFinalizer(ctx context.Context, entry *v1alpha1.ListEntry) error {
	patch := client.MergeFrom(entry.DeepCopy())
	controllerutil.RemoveFinalizer(entry, v1alpha1.FinalizerName)
	r.flights.forget(client.ObjectKeyFromObject(entry))
	return client.IgnoreNotFound(r.Client.Patch(ctx, entry, patch))
}

// fail records err on the Synced condition and as a Warning event with the
// same reason, and returns it for the workqueue's backoff.
func (r *EntryReconciler) fail(s *entryScope, action string, err error) error {
	reason := reasonFor(err)
	s.setSynced(metav1.ConditionFalse, reason, err.Error())
	r.Recorder.Eventf(s.entry, nil, corev1.EventTypeWarning, reason, action, "%s ID %q: %s", action, s.entry.Spec.ID, err.Error())
	return err
}

func (s *entryScope) setSynced(status metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(&s.entry.Status.Conditions, metav1.Condition{
		Type: v1alpha1.ConditionSynced, Status: status, Reason: reason, Message: msg,
		ObservedGeneration: s.entry.Generation,
	})
	s.entry.Status.ObservedGeneration = s.entry.Generation
}

// patchStatus writes the status when it changed.
func (r *EntryReconciler) patchStatus(ctx context.Context, s *entryScope) error {
	if equality.Semantic.DeepEqual(s.before.Status, s.entry.Status) {
		return nil
	}
	return client.IgnoreNotFound(r.Client.Status().Patch(ctx, s.entry, client.MergeFrom(s.before)))
}

// SetupWithManager registers the controller, its field indexes and its
// watches.
func (r *EntryReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Client == nil || r.APIReader == nil || r.Lists == nil || r.Recorder == nil {
		return errors.New("EntryReconciler needs Client, APIReader, Lists and Recorder")
	}
	if err := indexEntries(context.Background(), mgr.GetFieldIndexer()); err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.ListEntry{}, builder.WithPredicates(specOrDeletionChanged())).
		Watches(&v1alpha1.ExternalList{}, handler.EnqueueRequestsFromMapFunc(r.entriesOfList),
			builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WatchesRawSource(source.Func(func(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
			r.queue.Store(&q)
			return nil
		})).
		WithOptions(crcontroller.Options{MaxConcurrentReconciles: max(1, r.MaxConcurrentReconciles)}).
		Named("listentry").
		Complete(r)
}

// entriesOfList maps an ExternalList to its entries, so they are queued when
// the list appears or its spec changes.
func (r *EntryReconciler) entriesOfList(ctx context.Context, obj client.Object) []reconcile.Request {
	var list v1alpha1.ListEntryList
	if err := r.Client.List(ctx, &list, client.InNamespace(obj.GetNamespace()),
		client.MatchingFields{listRefField: obj.GetName()}); err != nil {
		return nil
	}
	reqs := make([]reconcile.Request, 0, len(list.Items))
	for i := range list.Items {
		reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{
			Namespace: list.Items[i].Namespace, Name: list.Items[i].Name}})
	}
	return reqs
}
