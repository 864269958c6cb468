package controller

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// conditions edits the kstatus conditions of one object's status (Ready,
// Reconciling, Stalled; Synced on a ListEntry), stamping each with the
// generation the reconcile acted on, and the status's observedGeneration
// with it: a reconcile always acts on the spec it read, so what it writes
// describes that generation.
type conditions struct {
	list       *[]metav1.Condition
	observed   *int64
	generation int64
}

func (c conditions) set(typ string, status metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(c.list, metav1.Condition{
		Type: typ, Status: status, Reason: reason, Message: msg, ObservedGeneration: c.generation,
	})
	*c.observed = c.generation
}

// ready records that the desired state holds: Ready=True, and Reconciling
// and Stalled (abnormal-true conditions) removed.
func (c conditions) ready(reason, msg string) {
	c.set(v1alpha1.ConditionReady, metav1.ConditionTrue, reason, msg)
	meta.RemoveStatusCondition(c.list, v1alpha1.ConditionReconciling)
	meta.RemoveStatusCondition(c.list, v1alpha1.ConditionStalled)
}

// progressing records a change in flight: Ready=Unknown and
// Reconciling=True, both with reason Progressing.
func (c conditions) progressing(msg string) {
	c.set(v1alpha1.ConditionReady, metav1.ConditionUnknown, v1alpha1.ReasonProgressing, msg)
	c.reconciling(v1alpha1.ReasonProgressing, msg)
}

// reconciling sets Reconciling=True and removes Stalled, leaving Ready as
// it is.
func (c conditions) reconciling(reason, msg string) {
	c.set(v1alpha1.ConditionReconciling, metav1.ConditionTrue, reason, msg)
	meta.RemoveStatusCondition(c.list, v1alpha1.ConditionStalled)
}

// failed records a failure: Ready=False with reason, and Stalled=True when
// the reason needs a change from the user (needsUser), Reconciling=True
// when the operator keeps retrying on its own.
func (c conditions) failed(reason, msg string) {
	if needsUser(reason) {
		c.stalled(reason, msg)
		return
	}
	c.waiting(reason, msg)
}

// waiting is failed for a failure that the operator waits out: Ready=False
// and Reconciling=True, whatever the reason.
func (c conditions) waiting(reason, msg string) {
	c.set(v1alpha1.ConditionReady, metav1.ConditionFalse, reason, msg)
	c.reconciling(reason, msg)
}

func (c conditions) stalled(reason, msg string) {
	c.set(v1alpha1.ConditionReady, metav1.ConditionFalse, reason, msg)
	c.set(v1alpha1.ConditionStalled, metav1.ConditionTrue, reason, msg)
	meta.RemoveStatusCondition(c.list, v1alpha1.ConditionReconciling)
}

// hasOutcome reports whether Ready is True or False for the current
// generation: an attempt for this spec has finished.
func (c conditions) hasOutcome() bool {
	r := meta.FindStatusCondition(*c.list, v1alpha1.ConditionReady)
	return r != nil && r.Status != metav1.ConditionUnknown && r.ObservedGeneration == c.generation
}

// needsUser reports whether a failure with this reason can only end with a
// change from the user (a spec, a Secret, the server's configuration or
// its document): it is reported as Stalled, which kstatus reads as Failed.
// Any other reason (ListUnreachable, ConflictRetriesExhausted) is transient:
// the operator retries, and reports Reconciling.
func needsUser(reason string) bool {
	switch reason {
	case v1alpha1.ReasonInvalidSpec, v1alpha1.ReasonSecretNotFound, v1alpha1.ReasonHostNotAllowed,
		v1alpha1.ReasonInsecureTransport, v1alpha1.ReasonUnauthorized, v1alpha1.ReasonRejected,
		v1alpha1.ReasonUnsafeServer, v1alpha1.ReasonInvalidDocument, v1alpha1.ReasonListNotFound:
		return true
	}
	return false
}

// patchStatus writes obj's status when it differs from what before had, with
// an optimistic lock: a replica that lost the object (partitioned, or its
// bucket moved) cannot write over what the new owner wrote since. A status
// that did not change costs no request.
func patchStatus(ctx context.Context, c client.Client, before, obj client.Object, beforeStatus, status any) error {
	if equality.Semantic.DeepEqual(beforeStatus, status) {
		return nil
	}
	patch := client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})
	return client.IgnoreNotFound(c.Status().Patch(ctx, obj, patch))
}

// resyncDue reports whether an ExternalList's drift must be corrected now,
// from the status as it was read (before this reconcile changed it): never
// synced; Ready not True for the current generation (a new spec, or a
// recovery, which may have failed before it could resync); a
// reconcile-requested-at value not handled yet; or the interval is up.
func resyncDue(before *v1alpha1.ExternalListStatus, generation int64, requested string, now time.Time, period time.Duration) bool {
	if before.LastSyncTime == nil {
		return true
	}
	ready := meta.FindStatusCondition(before.Conditions, v1alpha1.ConditionReady)
	if ready == nil || ready.Status != metav1.ConditionTrue || ready.ObservedGeneration != generation {
		return true
	}
	if requested != "" && requested != before.LastHandledReconcileAt {
		return true
	}
	return !now.Before(before.LastSyncTime.Add(period))
}

// redactedURL is what status.redactedURL shows of a list's URL: spec.url
// without user info and with every query value replaced
// (etagclient.RedactURL); for a URL from a Secret (fromSecret) only the
// scheme, host and path, so that not even the names of its query
// parameters show. An unparsable URL gives "".
func redactedURL(raw string, fromSecret bool) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	if fromSecret {
		return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}).String()
	}
	return etagclient.RedactURL(u)
}

// foreignIDs returns the distinct IDs on the list that no ID of keep (the
// live entries of every ExternalList naming the document) holds, in list
// order.
func foreignIDs(onList, keep []string) []string {
	out := missing(onList, keep)
	seen := make(map[string]struct{}, len(out))
	return slices.DeleteFunc(out, func(id string) bool {
		if _, dup := seen[id]; dup {
			return true
		}
		seen[id] = struct{}{}
		return false
	})
}

// maxNamedIDs is how many IDs an event names per direction before it says
// "and N more", so an event stays readable and small.
const maxNamedIDs = 10

// namedIDs lists ids for an event: quoted, comma-separated, at most
// maxNamedIDs of them, then "and N more".
func namedIDs(ids []string) string {
	n := min(len(ids), maxNamedIDs)
	quoted := make([]string, n)
	for i, id := range ids[:n] {
		quoted[i] = fmt.Sprintf("%q", id)
	}
	s := strings.Join(quoted, ", ")
	if rest := len(ids) - n; rest > 0 {
		s += fmt.Sprintf(" and %d more", rest)
	}
	return s
}

// driftMessage is the note of a DriftCorrected event: how many IDs were
// added and removed, naming them (bounded by namedIDs).
func driftMessage(added, removed []string) string {
	msg := fmt.Sprintf("drift corrected: added %d IDs", len(added))
	if len(added) > 0 {
		msg += " (" + namedIDs(added) + ")"
	}
	msg += fmt.Sprintf(", removed %d", len(removed))
	if len(removed) > 0 {
		msg += " (" + namedIDs(removed) + ")"
	}
	return msg
}
