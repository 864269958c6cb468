package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"golang.org/x/time/rate"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// statusRefreshInterval is how often an ExternalList's status (reachability,
// ETag, counts) is refreshed between resyncs. A refresh costs one
// conditional GET, usually answered 304.
const statusRefreshInterval = time.Minute

// listRateLimiter is the ExternalList controller's default work-queue rate
// limiter: controller-runtime's (per-item exponential backoff from 5 ms,
// and an overall 10/s, burst 100), but with the backoff capped at
// statusRefreshInterval instead of 1,000 s. A list that failed for a while
// keeps being checked every minute, so it sees the end of an outage within
// a minute; its entries, queued when it turns Ready, follow at once.
func listRateLimiter() workqueue.TypedRateLimiter[reconcile.Request] {
	return workqueue.NewTypedMaxOfRateLimiter(
		workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](5*time.Millisecond, statusRefreshInterval),
		&workqueue.TypedBucketRateLimiter[reconcile.Request]{Limiter: rate.NewLimiter(rate.Limit(10), 100)},
	)
}

// ListReconciler checks that an ExternalList's document is reachable and
// well-formed, reports its state, and corrects drift every resync interval.
type ListReconciler struct {
	// Client reads from the manager's cache and writes to the API server.
	Client client.Client
	// APIReader reads from the API server directly, to re-check a drift
	// correction against entries the cache may not show yet.
	APIReader client.Reader
	// Lists hands out the shared ETag clients.
	Lists *ListClients
	// Recorder emits events.
	Recorder EventRecorder
	// Owner decides which ExternalLists this replica acts on.
	Owner Owner
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// MaxConcurrentReconciles is the number of workers (default 1).
	MaxConcurrentReconciles int
	// NewRateLimiter, when set, makes the work queue's rate limiter (the
	// backoff of failed reconciles). Default: controller-runtime's.
	NewRateLimiter func() workqueue.TypedRateLimiter[reconcile.Request]

	queue workQueue
	// cleanAt records, per ExternalList being deleted with deletionPolicy
	// Delete, when a cleanup pass first found nothing left to remove (see
	// reconcileDeletionPolicy).
	cleanAt sync.Map // types.UID -> time.Time
}

var _ reconcile.Reconciler = (*ListReconciler)(nil)

// listScope is the state of one reconcile of one ExternalList.
type listScope struct {
	list   *v1alpha1.ExternalList
	before *v1alpha1.ExternalList
	client *etagclient.Client
	snap   etagclient.Snapshot
	live   []string // IDs of the live entries of this list
	keep   []string // IDs of the live entries of every list naming the same document
	msg    string   // the Ready message when all goes well
}

// +kubebuilder:rbac:groups=listkeeper.dev,resources=externallists,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=listkeeper.dev,resources=externallists/finalizers,verbs=update
// +kubebuilder:rbac:groups=listkeeper.dev,resources=externallists/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=listkeeper.dev,resources=listentries,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile reads the list, corrects drift when a resync is due, and reports
// the list's state.
func (r *ListReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	xl := &v1alpha1.ExternalList{}
	if err := r.Client.Get(ctx, req.NamespacedName, xl); err != nil {
		if client.IgnoreNotFound(err) == nil {
			r.Lists.Forget(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	release, ok := r.Owner.Acquire(r.Owner.Bucket(listKey(xl.Namespace, xl.Name)))
	if !ok {
		return ctrl.Result{}, nil // another replica owns it
	}
	defer release()
	if res, done, err := r.reconcileDeletionPolicy(ctx, xl); done {
		return res, err
	}
	s := &listScope{list: xl, before: xl.DeepCopy()}
	err := r.observe(ctx, s)
	if err == nil && r.resyncDue(s) {
		err = r.correctDrift(ctx, s)
	}
	if apierrors.IsConflict(err) {
		return requeueOnConflict(err) // the status patch before a removal
	}
	if err != nil {
		r.fail(s, err)
		// The workqueue's backoff decides when to try again.
		res, perr := requeueOnConflict(r.patchStatus(ctx, s))
		if perr != nil || res.RequeueAfter == 0 {
			return ctrl.Result{}, errors.Join(err, perr)
		}
		return res, nil
	}
	s.conditions().ready(v1alpha1.ReasonReady, s.msg)
	if err := r.patchStatus(ctx, s); err != nil {
		return requeueOnConflict(err)
	}
	return ctrl.Result{RequeueAfter: r.nextCheck(s)}, nil
}

// observe reads the document and the live entries, and fills the status.
func (r *ListReconciler) observe(ctx context.Context, s *listScope) error {
	fromSecret := s.list.Spec.URLFrom != nil
	// A URL from a Secret shows only once resolved, and never its query.
	s.list.Status.RedactedURL = ""
	if !fromSecret {
		s.list.Status.RedactedURL = redactedURL(s.list.Spec.URL, false)
	}
	cl, _, err := r.Lists.For(ctx, s.list)
	if err != nil {
		return err
	}
	s.client = cl
	if fromSecret {
		s.list.Status.RedactedURL = redactedURL(cl.URL(), true)
	}
	if s.snap, err = cl.Read(ctx); err != nil {
		return err
	}
	var entries v1alpha1.ListEntryList
	if err := r.Client.List(ctx, &entries, client.InNamespace(s.list.Namespace),
		client.MatchingFields{listRefField: s.list.Name}); err != nil {
		return fmt.Errorf("list entries: %w", err)
	}
	s.live = liveIDs(s.list.Name, entries.Items)
	if s.keep, err = r.documentIDs(ctx, s.list, s.live); err != nil {
		return err
	}
	live := 0
	for i := range entries.Items {
		if isLive(&entries.Items[i]) {
			live++
		}
	}
	s.list.Status.EntryCount = int32(live)
	s.report(s.snap, s.keep)
	if !s.snap.Exists {
		s.msg = "the document does not exist yet; it is created with the first entry"
		if !s.list.Spec.CreateIfMissing {
			return fmt.Errorf("GET %s: %w (set spec.createIfMissing to create it)", cl.URL(), etagclient.ErrNotFound)
		}
	}
	return nil
}

// report fills the status from a read of the document (its ETag, its
// items, the foreign ones among them: those no live entry in keep holds)
// and, when the document exists, the Ready message, which quotes
// EntryCount as already set.
func (s *listScope) report(snap etagclient.Snapshot, keep []string) {
	st := &s.list.Status
	st.ETag = snap.ETag
	st.ItemCount = int32(len(snap.Items))
	st.ForeignItemCount = int32(len(foreignIDs(snap.Items, keep)))
	if snap.Exists {
		s.msg = fmt.Sprintf("list has %d items, %d entries point at it", len(snap.Items), st.EntryCount)
	}
}

// documentIDs returns the IDs of the live entries of every ExternalList,
// in any namespace this replica watches, that names the same document as
// xl, as the cache shows them: reference counts are per document, so
// Exclusive mode on one of them must keep the others' IDs. live are xl's
// own, which the caller has read already.
func (r *ListReconciler) documentIDs(ctx context.Context, xl *v1alpha1.ExternalList, live []string) ([]string, error) {
	ids, err := r.documentHolders(ctx, r.Client, xl, true)
	if err != nil {
		return nil, err
	}
	ids = append(ids, live...)
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

// documentHolders returns the sorted, de-duplicated IDs of the live entries
// of every ExternalList that names xl's document (xl's own too, unless
// skipSelf), reading the entries through entries: the cache, or the API
// server (APIReader) when the answer must not trail it. The ExternalLists
// come from the cache, which indexes them by document.
func (r *ListReconciler) documentHolders(ctx context.Context, entries client.Reader, xl *v1alpha1.ExternalList, skipSelf bool) ([]string, error) {
	var lists v1alpha1.ExternalListList
	if err := r.Client.List(ctx, &lists, client.MatchingFields{documentField: documentKey(xl)}); err != nil {
		return nil, fmt.Errorf("list ExternalLists: %w", err)
	}
	var ids []string
	for i := range lists.Items {
		other := &lists.Items[i]
		if skipSelf && other.UID == xl.UID {
			continue
		}
		var held v1alpha1.ListEntryList
		if err := entries.List(ctx, &held, client.InNamespace(other.Namespace),
			client.MatchingFields{listRefField: other.Name}); err != nil {
			return nil, fmt.Errorf("list entries: %w", err)
		}
		ids = append(ids, liveIDs(other.Name, held.Items)...)
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

// resyncDue reports whether drift must be corrected now (see resyncDue).
func (r *ListReconciler) resyncDue(s *listScope) bool {
	return resyncDue(&s.before.Status, s.list.Generation, requestedAt(s.list), r.now(), s.list.ResyncPeriod())
}

// correctDrift makes the list hold every live entry's ID (and, in Exclusive
// mode, none of the foreign IDs it read) in one combined write, then
// re-checks what it changed against the API server, which the cache may
// trail, and reads the list again for the status.
//
// Before it removes foreign IDs (Exclusive mode) it reports them: status
// (foreignItemCount, Reconciling) and a Normal event go out before the
// write that removes them, and the write removes exactly those (see
// driftChange). An ID another writer adds while the write is retried is
// left alone; it is foreign at the next resync, and reported then.
func (r *ListReconciler) correctDrift(ctx context.Context, s *listScope) error {
	ch, drift := driftChange(s.list.EffectiveMode(), s.snap.Items, s.live, s.keep)
	if drift {
		if err := r.announceRemoval(ctx, s, ch); err != nil {
			return err
		}
		if _, err := s.client.Update(ctx, ch); err != nil {
			return err
		}
		undone, held, err := r.recheck(ctx, s, ch)
		if err != nil {
			return err
		}
		snap, err := s.client.Read(ctx)
		if err != nil {
			return err
		}
		s.report(snap, held)
		r.Recorder.Eventf(s.list, nil, corev1.EventTypeNormal, v1alpha1.ReasonDriftCorrected, "Resync",
			"%s", driftMessage(missing(ch.Add, undone.Remove), missing(ch.Remove, undone.Add)))
	}
	now := metav1.NewTime(r.now())
	s.list.Status.LastSyncTime = &now
	s.list.Status.LastHandledReconcileAt = requestedAt(s.list)
	return nil
}

// announceRemoval reports the foreign IDs a drift correction is about to
// remove (ch.Remove, exactly what the write removes): Reconciling=True and
// foreignItemCount in a status patch, and a Normal event, both before the
// write. Nothing is announced when ch removes nothing.
func (r *ListReconciler) announceRemoval(ctx context.Context, s *listScope, ch etagclient.Change) error {
	if len(ch.Remove) == 0 {
		return nil
	}
	msg := fmt.Sprintf("removing %d foreign IDs (%s): mode is Exclusive", len(ch.Remove), namedIDs(ch.Remove))
	if stay := len(missing(missing(foreignIDs(s.snap.Items, s.keep), s.live), ch.Remove)); stay > 0 {
		msg += fmt.Sprintf("; %d foreign items stay: an empty ID, or one longer than %d characters, cannot be removed by name",
			stay, etagclient.MaxIDLength)
	}
	s.conditions().reconciling(v1alpha1.ReasonProgressing, msg)
	r.Recorder.Eventf(s.list, nil, corev1.EventTypeNormal, v1alpha1.ReasonProgressing, "Resync", "%s", msg)
	if err := r.patchStatus(ctx, s); err != nil {
		return err
	}
	s.before = s.list.DeepCopy()
	return nil
}

// recheck undoes the part of a drift correction ch that live entries no
// longer justify, reading them from the API server, which the cache may
// trail: an added ID that no live entry of any ExternalList naming the
// document holds any more comes off, and a removed ID that one holds now (a
// new entry, whose add found the ID on the list and changed nothing) goes
// back. The holders are counted per document, so an ID that another list's
// entry holds is never left off. It returns the repair it wrote (zero when
// none was needed) and the IDs held.
func (r *ListReconciler) recheck(ctx context.Context, s *listScope, ch etagclient.Change) (etagclient.Change, []string, error) {
	held, err := r.documentHolders(ctx, r.APIReader, s.list, false)
	if err != nil {
		return etagclient.Change{}, nil, fmt.Errorf("re-check entries: %w", err)
	}
	repair := etagclient.Change{Add: intersect(ch.Remove, held), Remove: missing(ch.Add, held)}
	if repair.IsZero() {
		return repair, held, nil
	}
	if _, err := s.client.Update(ctx, repair); err != nil {
		return etagclient.Change{}, nil, err
	}
	return repair, held, nil
}

func intersect(a, b []string) []string {
	return missing(a, missing(a, b))
}

func (r *ListReconciler) nextCheck(s *listScope) time.Duration {
	d := statusRefreshInterval
	if last := s.list.Status.LastSyncTime; last != nil {
		if untilResync := last.Add(s.list.ResyncPeriod()).Sub(r.now()); untilResync < d {
			d = max(untilResync, time.Second)
		}
	}
	return d
}

func (r *ListReconciler) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// fail records err as Ready=False (with Stalled or Reconciling, see
// needsUser) and as a Warning event with the same reason.
func (r *ListReconciler) fail(s *listScope, err error) {
	reason := reasonFor(err)
	s.conditions().failed(reason, err.Error())
	r.Recorder.Eventf(s.list, nil, corev1.EventTypeWarning, reason, "Check", "%s", err.Error())
}

func (s *listScope) conditions() conditions { return listConditions(s.list) }

// listConditions edits xl's status conditions for its current generation.
func listConditions(xl *v1alpha1.ExternalList) conditions {
	return conditions{list: &xl.Status.Conditions, observed: &xl.Status.ObservedGeneration, generation: xl.Generation}
}

// patchStatus writes the list's status when it changed (see patchStatus).
func (r *ListReconciler) patchStatus(ctx context.Context, s *listScope) error {
	return patchStatus(ctx, r.Client, s.before, s.list, s.before.Status, s.list.Status)
}

// SetupWithManager registers the controller, its index and its watches. The
// Secret watch is metadata-only: the operator never caches Secret data.
func (r *ListReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Client == nil || r.APIReader == nil || r.Lists == nil || r.Recorder == nil || r.Owner == nil {
		return errors.New("ListReconciler needs Client, APIReader, Lists, Recorder and Owner")
	}
	if err := indexLists(context.Background(), mgr.GetFieldIndexer()); err != nil {
		return err
	}
	newRateLimiter := r.NewRateLimiter
	if newRateLimiter == nil {
		newRateLimiter = listRateLimiter
	}
	r.Owner.OnGained(r.queueGained)
	return ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.ExternalList{}, builder.WithPredicates(predicate.Or[client.Object](predicate.GenerationChangedPredicate{}, reconcileRequested()))).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.listsOfSecret), builder.OnlyMetadata).
		WatchesRawSource(r.queue.source()).
		WithOptions(controllerOptions(r.MaxConcurrentReconciles, newRateLimiter)).
		Named("externallist").
		Complete(r)
}

// listsOfSecret maps a Secret to the ExternalLists that read headers from it.
func (r *ListReconciler) listsOfSecret(ctx context.Context, obj client.Object) []reconcile.Request {
	var lists v1alpha1.ExternalListList
	if err := r.Client.List(ctx, &lists, client.InNamespace(obj.GetNamespace()),
		client.MatchingFields{secretRefField: obj.GetName()}); err != nil {
		return nil
	}
	reqs := make([]reconcile.Request, 0, len(lists.Items))
	for i := range lists.Items {
		reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{
			Namespace: lists.Items[i].Namespace, Name: lists.Items[i].Name}})
	}
	return reqs
}

// queueGained queues the ExternalLists of buckets this replica has just
// taken.
func (r *ListReconciler) queueGained(gained []int) {
	if !r.queue.started() {
		return
	}
	var lists v1alpha1.ExternalListList
	if err := r.Client.List(context.Background(), &lists); err != nil {
		return
	}
	r.queue.addInBuckets(gained, len(lists.Items), func(i int) (int, reconcile.Request) {
		xl := &lists.Items[i]
		return r.Owner.Bucket(listKey(xl.Namespace, xl.Name)), reconcile.Request{NamespacedName: client.ObjectKeyFromObject(xl)}
	})
}
