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

package v1alpha1

// FinalizerName is the finalizer the operator puts on every ListEntry. It
// holds a deleted ListEntry until its ID is off the list (or the removal was
// skipped because the ExternalList is gone, or is being deleted with
// deletionPolicy Orphan). An ExternalList with deletionPolicy Delete carries
// it too, until its entries' IDs are off the list.
const FinalizerName = "listkeeper.dev/cleanup"

// ReconcileRequestedAtAnnotation asks for an immediate reconcile when its
// value changes, like Flux's reconcile.fluxcd.io/requestedAt: an
// ExternalList re-reads its list and corrects drift at once, a ListEntry
// submits its change again without waiting for its backoff. The value is
// opaque (a timestamp is usual); the operator records the value it handled
// in status.lastHandledReconcileAt.
const ReconcileRequestedAtAnnotation = "listkeeper.dev/reconcile-requested-at"

// Condition types. Ready, Reconciling and Stalled follow the kstatus
// conventions (sigs.k8s.io/cli-utils/pkg/kstatus), so that kubectl wait,
// Flux and Argo CD see a failing object as failing.
const (
	// ConditionReady is True when the object's desired state holds: an
	// ExternalList's document was last read or written successfully and is
	// well-formed; a ListEntry's change is committed. On a ListEntry it is
	// Unknown while the change is in flight.
	ConditionReady = "Ready"

	// ConditionReconciling is True while the operator is working towards
	// the desired state (abnormal-true: absent or False when idle).
	ConditionReconciling = "Reconciling"

	// ConditionStalled is True when the operator cannot make progress
	// without a change from the user, such as an invalid spec or a missing
	// Secret (abnormal-true).
	ConditionStalled = "Stalled"

	// ConditionSynced is the condition type on a ListEntry. It is True when
	// the entry's ID is on the list.
	ConditionSynced = "Synced"
)

// Condition reasons. The same reasons are used as the reason of the Warning
// (or Normal) events that the controllers record, so that an event and the
// condition it explains can be matched.
const (
	// ReasonAdded means the ListEntry's ID is on the list (Synced=True).
	ReasonAdded = "Added"

	// ReasonRemoved means the deleted ListEntry's ID was taken off the list
	// (or was kept because another live ListEntry carries the same ID).
	ReasonRemoved = "Removed"

	// ReasonListNotFound means the referenced ExternalList object does not
	// exist, or the server answered 404 for the document and createIfMissing
	// is false.
	ReasonListNotFound = "ListNotFound"

	// ReasonListUnreachable means the server could not be reached or
	// answered with an error (connection failure, timeout, 5xx, 429, or an
	// unexpected status).
	ReasonListUnreachable = "ListUnreachable"

	// ReasonInvalidDocument means the document is not JSON, itemsPointer does
	// not resolve in it, or what it points at is not an array of strings.
	ReasonInvalidDocument = "InvalidDocument"

	// ReasonUnsafeServer means the server returned a weak (W/) or no ETag, so
	// no safe conditional write is possible; the operator refuses to write
	// rather than overwrite the list blindly.
	ReasonUnsafeServer = "UnsafeServer"

	// ReasonConflictRetriesExhausted means every conditional write lost to a
	// concurrent writer (412 Precondition Failed) until the retry budget ran
	// out. The change is retried later.
	ReasonConflictRetriesExhausted = "ConflictRetriesExhausted"

	// ReasonUnauthorized means the server refused the credentials (401) or
	// the access (403).
	ReasonUnauthorized = "Unauthorized"

	// ReasonRejected means the server refused a request as such (400, 405,
	// 409, 411, 413, 415, 422), or redirected a write: spec.url must name
	// the document itself.
	ReasonRejected = "Rejected"

	// ReasonInvalidSpec means the spec can never work as written, for example
	// a caBundle that holds no PEM certificate or a header Secret whose
	// entries are not valid HTTP headers.
	ReasonInvalidSpec = "InvalidSpec"

	// ReasonSecretNotFound means the Secret named in
	// spec.headersFrom.secretRef does not exist.
	ReasonSecretNotFound = "SecretNotFound"

	// ReasonHostNotAllowed means the host of spec.url is not one the operator
	// was configured to talk to.
	ReasonHostNotAllowed = "HostNotAllowed"

	// ReasonDestinationNotAllowed means the list's host resolves to an
	// address the operator may not reach: link-local (cloud metadata),
	// loopback, unspecified, or the Kubernetes API server's, or outside the
	// --allowed-hosts entry it matched. Nothing was sent. The message names
	// no address, so that a tenant does not learn what a name resolves to;
	// an administrator lifts the refusal with a CIDR entry in
	// --allowed-hosts.
	ReasonDestinationNotAllowed = "DestinationNotAllowed"

	// ReasonReady means the ExternalList is reachable and its document is
	// well-formed (Ready=True).
	ReasonReady = "Ready"

	// ReasonDriftCorrected means a resync found the list differing from what
	// the ListEntries require (an ID missing or, in Exclusive mode, a foreign
	// ID present) and wrote the correction.
	ReasonDriftCorrected = "DriftCorrected"

	// ReasonInsecureTransport means the list would send Secret-sourced
	// headers, store credentials or a URL from a Secret over plain http,
	// and spec.allowInsecureHTTP is not set.
	ReasonInsecureTransport = "InsecureTransport"

	// ReasonProgressing is the reason of Reconciling=True (and of
	// Ready=Unknown) while a change is in flight.
	ReasonProgressing = "Progressing"

	// ReasonDocumentInUse means another list (a ClusterExternalList, or an
	// older ExternalList) names the same document and items pointer and
	// holds the claim on it: this list writes nothing, and its entries do
	// not count as holders of their IDs. Two spellings of one document
	// (two URL styles of one S3 object, two endpoints of one IP set) are
	// the same document.
	ReasonDocumentInUse = "DocumentInUse"

	// ReasonNamespaceNotAllowed means a ListEntry refers to a
	// ClusterExternalList whose namespaceSelector does not select the
	// entry's namespace: its ID is never written.
	ReasonNamespaceNotAllowed = "NamespaceNotAllowed"

	// ReasonAmbientCredentialsNotAllowed means the list's spec.auth names no
	// Secret, so it would use the operator's own cloud identity (IRSA,
	// Workload Identity, Entra), and the operator does not allow that for
	// this kind of list or this host. Nothing was sent.
	ReasonAmbientCredentialsNotAllowed = "AmbientCredentialsNotAllowed"

	// ReasonRemoveSkipped means a ListEntry was deleted while its ExternalList
	// object no longer exists, or is being deleted with deletionPolicy
	// Orphan, so its ID was left on the list and the finalizer was released
	// without a write.
	ReasonRemoveSkipped = "RemoveSkipped"

	// ReasonMemoryBudgetExceeded means the list's read did not fit in the
	// operator's memory budget (--memory-budget-bytes, derived from
	// GOMEMLIMIT by default), which all lists of a replica share: the
	// document alone needs more than the whole budget, or other lists'
	// reads held it for longer than the read could wait. The operator
	// retries with backoff; a list that needs more than the whole budget
	// needs a larger budget or memory limit.
	ReasonMemoryBudgetExceeded = "MemoryBudgetExceeded"
)
