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
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/listconfig"
)

// ListReconciler checks that a list's document is reachable and
// well-formed, reports its state, and corrects drift every resync
// interval. One ListReconciler serves one kind (ExternalList or
// ClusterExternalList); only the replica that owns the bucket of the
// list's document acts on it, and only the list that holds the claim on
// its document writes.
type ListReconciler struct {
	// Kind is the kind of list reconciled. Default: ExternalList.
	Kind v1alpha1.ListKind
	// Client reads from the manager's cache and writes to the API server.
	Client client.Client
	// APIReader reads from the API server directly, to re-check a drift
	// correction and a cleanup against entries the cache may not show yet.
	APIReader client.Reader
	// Lists hands out the shared ETag clients.
	Lists *listconfig.ListClients
	// Recorder emits events.
	Recorder EventRecorder
	// Owner decides which lists this replica acts on.
	Owner Owner
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// MaxConcurrentReconciles is the number of workers (default 1).
	MaxConcurrentReconciles int
	// NewRateLimiter, when set, makes the work queue's rate limiter (the
	// backoff of failed reconciles). Default: listRateLimiter.
	NewRateLimiter func() workqueue.TypedRateLimiter[reconcile.Request]
	// LateWriteBound is how long after a replica lost its right to act a
	// write it sent may still land. A Delete cleanup lets go only after two
	// clean passes this far apart. Default: DefaultLateWriteBound.
	LateWriteBound time.Duration
	// NamespacedOnly serves no ClusterExternalLists (see
	// Options.NamespacedOnly): they are not watched.
	NamespacedOnly bool
	// ReconcileTimeout is the deadline of one reconcile (see
	// Options.ReconcileTimeout); 0: none.
	ReconcileTimeout time.Duration
	// WatchSecrets watches the metadata of Secrets, so a list is
	// reconciled at once when one it reads changes (see
	// Options.SecretAccess).
	WatchSecrets bool

	queue workQueue
	// cleanAt records, per list being deleted with deletionPolicy Delete,
	// when a cleanup pass first found nothing left to remove (see
	// confirmClean).
	cleanAt sync.Map // types.UID -> time.Time
	// verify holds the lists to re-verify against their entries at their
	// next reconcile: those of buckets taken over after their previous
	// owner died (see queueGained).
	verify sync.Map // listconfig.Ref -> struct{}
}

var _ reconcile.Reconciler = (*ListReconciler)(nil)

// listScope is the state of one reconcile of one list.
type listScope struct {
	list   v1alpha1.List
	before v1alpha1.List
	ref    listconfig.Ref
	cfg    *listconfig.Config
	client *etagclient.Client
	snap   etagclient.Snapshot
	live   []string // IDs of the live entries of this list that it admits
	// promised are the IDs of those of them that carry the finalizer and
	// have not recorded their ID under another claim (see driftChange and
	// notRecordedElsewhere).
	promised []string
	msg      string // the Ready message when all goes well
}

// +kubebuilder:rbac:groups=listkeeper.dev,resources=externallists;clusterexternallists,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=listkeeper.dev,resources=externallists/finalizers;clusterexternallists/finalizers,verbs=update
// +kubebuilder:rbac:groups=listkeeper.dev,resources=externallists/status;clusterexternallists/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=listkeeper.dev,resources=listentries,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile reads the list, corrects drift when a resync is due, and reports
// the list's state.
func (r *ListReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	l := newList(r.Kind)
	if err := r.Client.Get(ctx, req.NamespacedName, l); err != nil {
		if apierrors.IsNotFound(err) {
			r.Lists.Forget(listconfig.Ref{Kind: r.kind(), NamespacedName: req.NamespacedName})
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	s := &listScope{list: l, before: l.DeepCopyObject().(v1alpha1.List), ref: listconfig.RefOf(l)}
	bucket := r.Owner.Bucket(listBucketKey(l))
	release, ok := r.Owner.Acquire(bucket)
	if !ok {
		return ctrl.Result{}, nil // another replica owns it
	}
	defer release()
	if wait := r.Owner.SettleAfter(bucket).Sub(r.now()); wait > 0 {
		// Taken over from a replica that died: its last writes may still
		// land. Look at the list once they cannot, and then check every
		// entry's ID against the document.
		r.verify.Store(s.ref, struct{}{})
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	cfg, err := r.Lists.Resolve(ctx, l)
	if err == nil {
		s.cfg = cfg
		if res, done, err := r.claim(ctx, s); done {
			return res, err
		}
	}
	if res, done, derr := r.reconcileDeletionPolicy(ctx, s, err); done {
		return res, derr
	}
	return r.sync(ctx, s, err)
}

// claim publishes the list's document and decides whether the list holds
// its claim. done reports that the reconcile ends here, with res and err:
// the list's work moved to another bucket, or another list holds the claim.
func (r *ListReconciler) claim(ctx context.Context, s *listScope) (res ctrl.Result, done bool, err error) {
	if r.publishDocument(s) {
		// The list names another document now: its work moves to the
		// bucket of that one, whose owner the status update queues.
		res, err := requeueOnConflict(r.patchStatus(ctx, s))
		return res, true, err
	}
	if !listconfig.HasStanding(s.list) && s.list.GetDeletionTimestamp() == nil {
		if res, done, err := r.earn(ctx, s); done {
			return res, true, err
		}
	}
	holder, err := holderOf(ctx, r.Client, s.list)
	if err != nil {
		return ctrl.Result{}, true, err
	}
	if holder.GetUID() != s.list.GetUID() {
		res, err := r.notHolder(ctx, s, holder)
		return res, true, err
	}
	return ctrl.Result{}, false, nil
}

// sync reads the list, corrects drift when a resync is due, and writes the
// status: Ready, or why not (err is why its configuration could not be
// resolved, if it could not).
func (r *ListReconciler) sync(ctx context.Context, s *listScope, err error) (ctrl.Result, error) {
	if err == nil {
		err = r.observe(ctx, s)
	}
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

// publishDocument records the list's document in its status
// (status.documentID), and reports whether that moves the list's work to
// another bucket: a URL from a Secret, first read or changed.
func (r *ListReconciler) publishDocument(s *listScope) (moved bool) {
	st := s.list.ListStatus()
	if st.DocumentID == s.cfg.Document() && listconfig.DocumentOf(s.list) != "" {
		return false
	}
	st.DocumentID = s.cfg.Document()
	if spec := s.list.ListSpec(); spec.URL != "" || listconfig.BackendDocument(spec) != "" {
		return false // its bucket is known from the spec
	}
	before := listBucketKey(s.before)
	// The document is what the status now says, for this generation.
	s.conditions().progressing(fmt.Sprintf("%s names a document; it is handed to the replica that writes it", s.ref))
	if before == listBucketKey(s.list) {
		return false
	}
	// The claim this replica held for the old document is left to the
	// new one's owner.
	return true
}

// earn reads the document of a list that has not earned its place in the
// claim on it (see listconfig.HasStanding), with a client of the list's own
// configuration (listconfig.ListClients.Probe), and records the claim in
// status.earnedClaim when the read succeeds: the document was read and is
// well-formed, or does not exist and the list may create it. The reconcile
// ends there, and the list acts on its standing in the next. A read that
// fails ends the reconcile with the reason on the list (Unauthorized,
// ListNotFound, ...), never DocumentInUse: a list that cannot read the
// document has no part in its claim, and keeps no list that can from
// writing it.
func (r *ListReconciler) earn(ctx context.Context, s *listScope) (ctrl.Result, bool, error) {
	snap, err := r.Lists.Probe(ctx, s.cfg)
	if err == nil {
		err = missingDocument(s.list, snap, s.cfg.ShownURL())
	}
	if err != nil {
		s.list.ListStatus().RedactedURL = s.cfg.ShownURL()
		res, err := r.sync(ctx, s, err)
		return res, true, err
	}
	// The standing is recorded before the list acts on it: the fence of
	// every queued add (addAllowed) decides who holds the claim from the
	// same cache, so the list must not write as the holder while the
	// cache still shows another list holding it.
	s.list.ListStatus().EarnedClaim = listconfig.ClaimID(s.list)
	if err := r.patchStatus(ctx, s); err != nil {
		res, err := requeueOnConflict(err)
		return res, true, err
	}
	return ctrl.Result{RequeueAfter: conflictRequeue}, true, nil
}

// notHolder handles a list that does not hold the claim on its document:
// it writes nothing, and says who does, as Stalled (the user must delete
// one of the lists, or point one elsewhere). A deleting one lets go of its
// finalizer: it has nothing to clean up.
func (r *ListReconciler) notHolder(ctx context.Context, s *listScope, holder v1alpha1.List) (ctrl.Result, error) {
	if s.list.GetDeletionTimestamp() != nil {
		r.cleanAt.Delete(s.list.GetUID())
		return requeueOnConflict(r.patchListFinalizer(ctx, s.list, removeFinalizer))
	}
	msg := inUseMessage(holder, s.list.GetNamespace())
	st := s.list.ListStatus()
	st.RedactedURL = s.cfg.ShownURL()
	st.ETag, st.ItemCount, st.ForeignItemCount = "", 0, 0
	st.EntryCount = 0
	if n, err := r.countLive(ctx, s); err == nil {
		st.EntryCount = int32(n)
	}
	if prev := meta.FindStatusCondition(s.before.ListStatus().Conditions, v1alpha1.ConditionReady); prev == nil || prev.Reason != v1alpha1.ReasonDocumentInUse {
		r.Recorder.Eventf(s.list, nil, corev1.EventTypeWarning, v1alpha1.ReasonDocumentInUse, "Check", "%s", msg)
	}
	s.conditions().failed(v1alpha1.ReasonDocumentInUse, msg)
	if err := r.patchStatus(ctx, s); err != nil {
		return requeueOnConflict(err)
	}
	return ctrl.Result{RequeueAfter: statusRefreshInterval}, nil
}

// observe reads the document and the live entries, and fills the status.
func (r *ListReconciler) observe(ctx context.Context, s *listScope) error {
	cl, err := r.Lists.Client(s.cfg, s.ref)
	if err != nil {
		return err
	}
	s.client = cl
	s.list.ListStatus().RedactedURL = s.cfg.ShownURL()
	if s.snap, err = cl.Read(ctx); err != nil {
		return err
	}
	entries, err := r.entries(ctx, r.Client, s)
	if err != nil {
		return err
	}
	admitted := listAdmitter(ctx, r.Client, s.list)
	s.live = liveIDs(entries, admitted, s.cfg.Spell())
	s.promised = liveIDs(entries, notRecordedElsewhere(listconfig.ClaimID(s.list), finalized(admitted)), s.cfg.Spell())
	live := 0
	for i := range entries {
		if isLive(&entries[i]) && admitted(&entries[i]) {
			live++
		}
	}
	s.list.ListStatus().EntryCount = int32(live)
	s.report(s.snap, s.live)
	if !s.snap.Exists {
		s.msg = "the document does not exist yet; it is created with the first entry"
	}
	return missingDocument(s.list, s.snap, cl.URL())
}

// missingDocument is the error of a read that found no document at
// shownURL for a list that may not create it (spec.createIfMissing); nil
// when the document exists or may be created.
func missingDocument(l v1alpha1.List, snap etagclient.Snapshot, shownURL string) error {
	if snap.Exists || l.ListSpec().CreateIfMissing {
		return nil
	}
	return fmt.Errorf("GET %s: %w (set spec.createIfMissing to create it)", shownURL, etagclient.ErrNotFound)
}

// entries returns the list's entries, read through c: the cache, or the
// API server (APIReader) when the answer must not trail it.
func (r *ListReconciler) entries(ctx context.Context, c client.Reader, s *listScope) ([]v1alpha1.ListEntry, error) {
	var list v1alpha1.ListEntryList
	var err error
	if c == r.APIReader {
		// The API server knows only the selectable fields.
		opts := []client.ListOption{client.MatchingFields{listRefField: s.ref.Name, listKindField: string(s.ref.Kind)}}
		if s.ref.Namespace != "" {
			opts = append(opts, client.InNamespace(s.ref.Namespace))
		}
		err = c.List(ctx, &list, opts...)
	} else {
		err = c.List(ctx, &list, client.MatchingFields{listField: s.ref.Key()})
	}
	if err != nil {
		return nil, fmt.Errorf("list entries: %w", err)
	}
	return list.Items, nil
}

// countLive returns how many live entries the list has, as the cache
// shows them.
func (r *ListReconciler) countLive(ctx context.Context, s *listScope) (int, error) {
	entries, err := r.entries(ctx, r.Client, s)
	if err != nil {
		return 0, err
	}
	n := 0
	for i := range entries {
		if isLive(&entries[i]) {
			n++
		}
	}
	return n, nil
}

// report fills the status from a read of the document (its ETag, its
// items, the foreign ones among them: those no live entry in live holds)
// and, when the document exists, the Ready message, which quotes
// EntryCount as already set.
func (s *listScope) report(snap etagclient.Snapshot, live []string) {
	st := s.list.ListStatus()
	st.ETag = snap.ETag
	st.ItemCount = int32(len(snap.Items))
	st.ForeignItemCount = int32(len(foreignIDs(snap.Items, live)))
	if snap.Exists {
		s.msg = fmt.Sprintf("list has %d items, %d entries point at it", len(snap.Items), st.EntryCount)
	}
}

// firstSight reports whether this resync is the list's first of its
// document: the list never synced, or its last sync was of another
// document (status.lastSyncDocumentID). What a document holds is not
// published, and nothing foreign is removed from it, before the list
// synced it once: an Exclusive list pointed at an internal endpoint, or
// moved to another team's document, would otherwise empty it and name its
// items in its events. Foreign IDs are then only counted.
func (s *listScope) firstSight() bool {
	before := s.before.ListStatus()
	return before.LastSyncTime == nil || s.cfg == nil || before.LastSyncDocumentID != s.cfg.Document()
}

// resyncDue reports whether drift must be corrected now (see resyncDue),
// or the list must be re-verified after a takeover.
func (r *ListReconciler) resyncDue(s *listScope) bool {
	if _, ok := r.verify.Load(s.ref); ok {
		return true
	}
	return resyncDue(s.before.ListStatus(), s.list.GetGeneration(), requestedAt(s.list), r.now(), s.list.ListSpec().ResyncPeriod())
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
	mode := s.list.ListSpec().EffectiveMode()
	first := s.firstSight()
	if first && mode == v1alpha1.ListModeExclusive {
		// Nothing foreign goes on first sight: it is counted (the status'
		// foreignItemCount) and removed by a later resync.
		mode = v1alpha1.ListModeAdditive
		if n := len(foreignIDs(s.snap.Items, s.live)); n > 0 {
			r.Recorder.Eventf(s.list, nil, corev1.EventTypeNormal, v1alpha1.ReasonProgressing, "Resync",
				"the document holds %d foreign IDs (not named: the list has not synced this document before); "+
					"mode is Exclusive, so the next resync removes them (in %s, or at once with the %s annotation)",
				n, s.list.ListSpec().ResyncPeriod(), v1alpha1.ReconcileRequestedAtAnnotation)
		}
	}
	ch, drift := driftChange(mode, s.snap.Items, s.promised, s.live)
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
	r.verify.Delete(s.ref)
	now := metav1.NewTime(r.now())
	st := s.list.ListStatus()
	st.LastSyncTime = &now
	st.LastSyncDocumentID = s.cfg.Document()
	st.LastHandledReconcileAt = requestedAt(s.list)
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
	if stay := len(missing(foreignIDs(s.snap.Items, s.live), ch.Remove)); stay > 0 {
		msg += fmt.Sprintf("; %d foreign items stay: an empty ID, or one longer than %d characters, cannot be removed by name",
			stay, etagclient.MaxIDLength)
	}
	s.conditions().reconciling(v1alpha1.ReasonProgressing, msg)
	r.Recorder.Eventf(s.list, nil, corev1.EventTypeNormal, v1alpha1.ReasonProgressing, "Resync", "%s", msg)
	if err := r.patchStatus(ctx, s); err != nil {
		return err
	}
	s.before = s.list.DeepCopyObject().(v1alpha1.List)
	return nil
}

// recheck undoes the part of a drift correction ch that the list's live
// entries no longer justify, reading them from the API server, which the
// cache may trail: an added ID that no live entry with the finalizer holds
// any more comes off, and a removed ID that one holds now (a new entry,
// whose add found the ID on the list and changed nothing) goes back. An
// entry that has no finalizer in this read puts it on later, and submits
// its add after that: it needs no repair (see driftChange). It returns the
// repair it wrote (zero when none was needed) and the IDs held.
func (r *ListReconciler) recheck(ctx context.Context, s *listScope, ch etagclient.Change) (etagclient.Change, []string, error) {
	entries, err := r.entries(ctx, r.APIReader, s)
	if err != nil {
		return etagclient.Change{}, nil, fmt.Errorf("re-check entries: %w", err)
	}
	held := liveIDs(entries, notRecordedElsewhere(listconfig.ClaimID(s.list), finalized(listAdmitter(ctx, r.Client, s.list))), s.cfg.Spell())
	repair := etagclient.Change{Add: intersect(ch.Remove, held), Remove: missing(ch.Add, held)}
	if repair.IsZero() {
		return repair, held, nil
	}
	if _, err := s.client.Update(ctx, repair); err != nil {
		return etagclient.Change{}, nil, err
	}
	return repair, held, nil
}

func (r *ListReconciler) nextCheck(s *listScope) time.Duration {
	d := statusRefreshInterval
	if last := s.list.ListStatus().LastSyncTime; last != nil {
		if untilResync := last.Add(s.list.ListSpec().ResyncPeriod()).Sub(r.now()); untilResync < d {
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

func (r *ListReconciler) kind() v1alpha1.ListKind {
	if r.Kind == "" {
		return v1alpha1.ListKindExternalList
	}
	return r.Kind
}

// fail records err as Ready=False (with Stalled or Reconciling, see
// needsUser) and as a Warning event with the same reason.
func (r *ListReconciler) fail(s *listScope, err error) {
	reason := reasonFor(err)
	if losesStanding(reason) {
		s.list.ListStatus().EarnedClaim = ""
	}
	msg := messageFor(reason, err)
	s.conditions().failed(reason, msg)
	r.Recorder.Eventf(s.list, nil, corev1.EventTypeWarning, reason, "Check", "%s", msg)
}

func (s *listScope) conditions() conditions { return listConditions(s.list) }

// listConditions edits l's status conditions for its current generation.
func listConditions(l v1alpha1.List) conditions {
	st := l.ListStatus()
	return conditions{list: &st.Conditions, observed: &st.ObservedGeneration, generation: l.GetGeneration()}
}

// patchStatus writes the list's status when it changed (see patchStatus).
func (r *ListReconciler) patchStatus(ctx context.Context, s *listScope) error {
	return patchStatus(ctx, r.Client, s.before, s.list, *s.before.ListStatus(), *s.list.ListStatus())
}

// SetupWithManager registers the controller and its watches. The Secret
// watch (WatchSecrets) is metadata-only: the operator never caches Secret
// data, and the cache keeps no annotations of Secrets (CacheTransform). The other kind of list is watched too: a list that holds no claim
// looks again when one that names the same document comes or goes.
func (r *ListReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Client == nil || r.APIReader == nil || r.Lists == nil || r.Recorder == nil || r.Owner == nil {
		return errors.New("ListReconciler needs Client, APIReader, Lists, Recorder and Owner")
	}
	if r.LateWriteBound <= 0 {
		r.LateWriteBound = DefaultLateWriteBound
	}
	newRateLimiter := r.NewRateLimiter
	if newRateLimiter == nil {
		newRateLimiter = listRateLimiter
	}
	r.Owner.OnGained(r.queueGained)
	own, other := newList(r.kind()), newList(otherKind(r.kind()))
	b := ctrl.NewControllerManagedBy(mgr).
		For(own, builder.WithPredicates(predicate.Or[client.Object](predicate.GenerationChangedPredicate{}, reconcileRequested(), documentPublished()))).
		Watches(own, handler.EnqueueRequestsFromMapFunc(r.rivals), builder.WithPredicates(claimantsChanged()))
	if !r.NamespacedOnly {
		b = b.Watches(other, handler.EnqueueRequestsFromMapFunc(r.rivals), builder.WithPredicates(claimantsChanged()))
	}
	if r.WatchSecrets {
		b = b.Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.listsOfSecret), builder.OnlyMetadata)
	}
	return b.WatchesRawSource(r.queue.source()).
		WithOptions(controllerOptions(r.MaxConcurrentReconciles, r.ReconcileTimeout, newRateLimiter)).
		Named(map[v1alpha1.ListKind]string{v1alpha1.ListKindExternalList: "externallist",
			v1alpha1.ListKindClusterExternalList: "clusterexternallist"}[r.kind()]).
		Complete(r)
}

func otherKind(k v1alpha1.ListKind) v1alpha1.ListKind {
	if k == v1alpha1.ListKindClusterExternalList {
		return v1alpha1.ListKindExternalList
	}
	return v1alpha1.ListKindClusterExternalList
}

// rivals maps a list that came, went or changed its claim to the lists of
// this controller's kind that name the same claim, so that the claim's
// holder is decided again.
func (r *ListReconciler) rivals(ctx context.Context, obj client.Object) []reconcile.Request {
	l, ok := obj.(v1alpha1.List)
	if !ok {
		return nil
	}
	key := listconfig.ClaimKey(l)
	if key == "" {
		return nil
	}
	lists, err := allLists(ctx, r.Client, client.MatchingFields{claimField: key})
	if err != nil {
		return nil
	}
	var reqs []reconcile.Request
	for _, other := range lists {
		if other.ListKind() == r.kind() && other.GetUID() != l.GetUID() {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(other)})
		}
	}
	return reqs
}

// listsOfSecret maps a Secret to the lists of this controller's kind that
// read it.
func (r *ListReconciler) listsOfSecret(ctx context.Context, obj client.Object) []reconcile.Request {
	lists, err := allLists(ctx, r.Client, client.MatchingFields{secretRefField: obj.GetNamespace() + "/" + obj.GetName()})
	if err != nil {
		return nil
	}
	var reqs []reconcile.Request
	for _, l := range lists {
		if l.ListKind() == r.kind() {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(l)})
		}
	}
	return reqs
}

// queueGained queues the lists of buckets this replica has just taken. A
// bucket taken over from a replica that died (SettleAfter in the future)
// has its lists re-verified against their entries once that replica's last
// writes can no longer land.
func (r *ListReconciler) queueGained(gained []int) {
	if !r.queue.started() {
		return
	}
	lists, err := allLists(context.Background(), r.Client)
	if err != nil {
		return
	}
	var own []v1alpha1.List
	for _, l := range lists {
		if l.ListKind() == r.kind() {
			own = append(own, l)
		}
	}
	now := r.now()
	r.queue.addInBuckets(gained, len(own), func(i int) (int, reconcile.Request) {
		l := own[i]
		b := r.Owner.Bucket(listBucketKey(l))
		if r.Owner.SettleAfter(b).After(now) {
			r.verify.Store(listconfig.RefOf(l), struct{}{})
		}
		return b, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(l)}
	})
}
