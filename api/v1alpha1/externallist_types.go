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

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ListMode says which IDs on an external list the operator may change.
//
// +kubebuilder:validation:Enum=Additive;Exclusive
type ListMode string

const (
	// ListModeAdditive touches only the IDs of ListEntries: their IDs are
	// added, and removed when the ListEntry is deleted. Every other ID on the
	// list is left alone. It is the default.
	ListModeAdditive ListMode = "Additive"

	// ListModeExclusive makes the operator the owner of the whole list: at
	// every resync the foreign IDs on the list (those that no live ListEntry
	// of any ExternalList naming the same document holds) are reported in
	// the status, then removed by name. An ID another writer adds meanwhile
	// is reported and removed by a later resync.
	ListModeExclusive ListMode = "Exclusive"
)

// ExternalListSpec is where an external list lives and how to talk to it.
// The list lives in exactly one place: a JSON document (url or urlFrom), an
// AWS WAF IP set (wafv2) or the binding of a role in a Google Cloud IAM
// policy (gcpIAM). The fields that only make sense for a JSON document
// (itemsPointer, headersFrom, createIfMissing) are refused with the other
// two: listkeeper never creates an IP set or a policy binding, an SDK call
// takes no extra headers, and the list is the set's addresses or the
// binding's members, never an array inside a document. Each of those two
// needs the one credential kind its provider accepts, and an http:// endpoint
// would carry those credentials in clear text, so it needs allowInsecureHTTP.
// +kubebuilder:validation:XValidation:rule="(has(self.url) ? 1 : 0) + (has(self.urlFrom) ? 1 : 0) + (has(self.wafv2) ? 1 : 0) + (has(self.gcpIAM) ? 1 : 0) == 1",message="exactly one of url, urlFrom, wafv2 and gcpIAM must be set"
// +kubebuilder:validation:XValidation:rule="!has(self.url) || !self.url.lowerAscii().startsWith('http://') || (has(self.allowInsecureHTTP) && self.allowInsecureHTTP) || (!has(self.headersFrom) && !has(self.auth))",message="headersFrom and auth send secrets, which an http:// url would carry in clear text: use an https url, or set allowInsecureHTTP to true for a test or loopback server"
// +kubebuilder:validation:XValidation:rule="!has(self.wafv2) || (has(self.auth) && has(self.auth.aws) && !has(self.auth.gcp) && !has(self.auth.azure))",message="wafv2 needs auth.aws, and no other auth: an IP set is reached with AWS credentials only"
// +kubebuilder:validation:XValidation:rule="!has(self.gcpIAM) || (has(self.auth) && has(self.auth.gcp) && !has(self.auth.aws) && !has(self.auth.azure))",message="gcpIAM needs auth.gcp, and no other auth: an IAM policy is reached with Google Cloud credentials only"
// +kubebuilder:validation:XValidation:rule="!(has(self.wafv2) || has(self.gcpIAM)) || !has(self.itemsPointer) || self.itemsPointer.size() == 0",message="itemsPointer must be empty with wafv2 or gcpIAM: the list is the IP set's addresses or the binding's members, not an array in a JSON document"
// +kubebuilder:validation:XValidation:rule="!(has(self.wafv2) || has(self.gcpIAM)) || !has(self.headersFrom)",message="headersFrom is refused with wafv2 or gcpIAM: requests to them carry only the credentials of auth"
// +kubebuilder:validation:XValidation:rule="!(has(self.wafv2) || has(self.gcpIAM)) || !has(self.createIfMissing) || !self.createIfMissing",message="createIfMissing is refused with wafv2 or gcpIAM: listkeeper never creates an IP set or a policy binding"
// +kubebuilder:validation:XValidation:rule="!has(self.wafv2) || !has(self.wafv2.endpoint) || !self.wafv2.endpoint.lowerAscii().startsWith('http://') || (has(self.allowInsecureHTTP) && self.allowInsecureHTTP)",message="auth sends credentials, which an http:// wafv2.endpoint would carry in clear text: use an https endpoint, or set allowInsecureHTTP to true for a test or loopback server"
// +kubebuilder:validation:XValidation:rule="!has(self.gcpIAM) || !has(self.gcpIAM.endpoint) || !self.gcpIAM.endpoint.lowerAscii().startsWith('http://') || (has(self.allowInsecureHTTP) && self.allowInsecureHTTP)",message="auth sends credentials, which an http:// gcpIAM.endpoint would carry in clear text: use an https endpoint, or set allowInsecureHTTP to true for a test or loopback server"
// +kubebuilder:validation:XValidation:rule="!(has(self.wafv2) || has(self.gcpIAM)) || !has(self.documentQueryKeys) || self.documentQueryKeys.size() == 0",message="documentQueryKeys is refused with wafv2 or gcpIAM: they have no URL whose query could select the document"
type ExternalListSpec struct {
	// url is the http or https URL of the JSON document that holds the list.
	// The server must answer GET with a strong ETag and honour If-Match on
	// PUT; see the listkeeper documentation for the full HTTP contract.
	// Exactly one of url, urlFrom, wafv2 and gcpIAM is set.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="isURL(self) && url(self).getScheme() in ['http', 'https'] && url(self).getHostname() != ''",message="url must be an http or https URL"
	URL string `json:"url,omitempty"`

	// urlFrom takes the URL from a Secret, for URLs that carry a token (an
	// Azure SAS URL, an S3 presigned URL): the URL then never shows in the
	// object, in printer columns, conditions, events, logs or metrics.
	// Exactly one of url, urlFrom, wafv2 and gcpIAM is set.
	// +optional
	URLFrom *URLSource `json:"urlFrom,omitempty"`

	// wafv2 keeps the list in an AWS WAF IP set instead of a JSON document:
	// the set's addresses are the list. It needs spec.auth.aws and refuses
	// itemsPointer, headersFrom and createIfMissing. Exactly one of url,
	// urlFrom, wafv2 and gcpIAM is set.
	// +optional
	WAFv2 *WAFv2IPSet `json:"wafv2,omitempty"`

	// gcpIAM keeps the list in a Google Cloud IAM policy: the members of
	// one role's unconditional binding are the list. It needs
	// spec.auth.gcp and refuses itemsPointer, headersFrom and
	// createIfMissing. Exactly one of url, urlFrom, wafv2 and gcpIAM is set.
	// +optional
	GCPIAM *GCPIAMBinding `json:"gcpIAM,omitempty"`

	// auth says how requests are authenticated: at most one of aws, gcp and
	// azure. With url or urlFrom it signs requests to an object store (S3,
	// Google Cloud Storage, Azure Blob Storage). wafv2 needs aws and gcpIAM
	// needs gcp, since each provider's API accepts only its own credentials.
	// Default: none (headersFrom, if set, is sent as it is); wafv2 and gcpIAM
	// have no default.
	// +optional
	Auth *StoreAuth `json:"auth,omitempty"`

	// itemsPointer is an RFC 6901 JSON pointer to the array of string IDs
	// inside the document, for example "/items" or "/data/tenants".
	// The default, "", means the document itself is the array. Everything in
	// the document outside the array is preserved when the list is written.
	// Only a list at url or urlFrom is a JSON document: with wafv2 or gcpIAM
	// it must be empty.
	// +optional
	// +kubebuilder:default=""
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="self.matches('^(/([^~/]|~[01])*)*$')",message="itemsPointer must be empty or an RFC 6901 JSON pointer such as /items: each token starts with '/', and '~' may only appear as '~0' (for '~') or '~1' (for '/')"
	ItemsPointer string `json:"itemsPointer,omitempty"`

	// documentQueryKeys names the query parameters of the URL (url or
	// urlFrom) that select the document, for a server that serves several
	// lists at one path (https://lists.example.com/v1?name=allow and
	// ?name=deny). Their values join the document's identity, so two lists
	// that differ only in them are two documents. Every other query
	// parameter stays out of it, because tokens (a SAS, a presigned URL's
	// signature) live in the query: two URLs that differ only there name
	// one document. Only for a plain HTTP document: an object in S3, Google
	// Cloud Storage or Azure Blob Storage is its bucket and key whatever the
	// query says, and wafv2 and gcpIAM refuse it. Keys are case-sensitive.
	// Default: none.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=64
	// +kubebuilder:validation:items:Pattern=`^[A-Za-z0-9._~\-\[\]]+$`
	DocumentQueryKeys []string `json:"documentQueryKeys,omitempty"`

	// headersFrom names a Secret whose entries are sent as request headers,
	// for example a key "Authorization" with value "Bearer <token>".
	// Only for url and urlFrom: with wafv2 or gcpIAM the provider's SDK
	// sends the requests, authenticated by auth alone, so it is refused.
	// Default: no extra headers.
	// +optional
	HeadersFrom *HeadersSource `json:"headersFrom,omitempty"`

	// caBundle is a PEM-encoded bundle of CA certificates used to verify the
	// server's certificate when url is https and the server uses a private CA.
	// Default: the system's trusted roots.
	// +optional
	CABundle string `json:"caBundle,omitempty"`

	// mode says which IDs on the list the operator may change.
	// Additive (the default) only adds and removes the IDs of ListEntries and
	// leaves every other ID alone. Exclusive makes the list equal to the IDs
	// of the live ListEntries at every resync, removing any other ID.
	// +optional
	// +kubebuilder:default=Additive
	Mode ListMode `json:"mode,omitempty"`

	// resyncInterval is how often the operator re-reads the list to report
	// it and to correct drift (re-adding missing IDs; in Exclusive mode also
	// removing foreign ones). A Go duration such as "30s", "10m" or "1h";
	// at least 10s. Default: 10m.
	// +optional
	// +kubebuilder:default="10m"
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('10s')",message="resyncInterval must be a duration of at least 10s, such as 30s, 10m or 1h"
	ResyncInterval *metav1.Duration `json:"resyncInterval,omitempty"`

	// createIfMissing, when true, creates the document (an empty list at
	// itemsPointer) when the server answers 404, instead of reporting
	// ListNotFound. The create is conditional (If-None-Match: *), so it never
	// overwrites a document that appeared meanwhile. Only for url and
	// urlFrom: listkeeper never creates an IP set (wafv2) or a policy
	// binding (gcpIAM), so true is refused with them. Default: false.
	// +optional
	// +kubebuilder:default=false
	CreateIfMissing bool `json:"createIfMissing,omitempty"`

	// deletionPolicy says what happens to the IDs of this ExternalList's
	// entries when the ExternalList is deleted. Orphan (the default) leaves
	// them on the list; Delete takes them off before the object goes.
	// +optional
	// +kubebuilder:default=Orphan
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// allowInsecureHTTP allows Secret-sourced headers, store credentials
	// and URLs from a Secret to be sent over plain http, and an http://
	// endpoint for wafv2 or gcpIAM (whose requests always carry
	// credentials). Without it such a list must use https. Meant for tests
	// and loopback servers only. Default: false.
	// +optional
	// +kubebuilder:default=false
	AllowInsecureHTTP bool `json:"allowInsecureHTTP,omitempty"`
}

// DeletionPolicy says what happens to the IDs an ExternalList's entries put
// on the list when the ExternalList object itself is deleted.
//
// +kubebuilder:validation:Enum=Orphan;Delete
type DeletionPolicy string

const (
	// DeletionPolicyOrphan leaves every ID on the list when the ExternalList
	// goes: deleting the Kubernetes object never changes the list. Entries
	// deleted while their ExternalList is gone or going release their
	// finalizer without a write. It is the default.
	DeletionPolicyOrphan DeletionPolicy = "Orphan"

	// DeletionPolicyDelete takes the IDs of the ExternalList's entries off
	// the list before the ExternalList goes (IDs that another ExternalList
	// naming the same document still holds stay). The ExternalList carries
	// the listkeeper.dev/cleanup finalizer until that write succeeds.
	DeletionPolicyDelete DeletionPolicy = "Delete"
)

// HeadersSource names where extra request headers come from.
type HeadersSource struct {
	// secretRef names a Secret in the ExternalList's namespace. Each key of
	// the Secret is a header name and its value the header value.
	// +required
	SecretRef SecretReference `json:"secretRef"`
}

// SecretReference names a Secret in the same namespace as the object that
// refers to it.
type SecretReference struct {
	// name is the name of the Secret.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// ExternalListStatus is what the operator last observed of an external list.
type ExternalListStatus struct {
	// conditions describe the list's state, following the kstatus
	// conventions. Ready is True when the document was last read (or
	// written) successfully and is well-formed; when it is False its reason
	// says why (for example ListNotFound, ListUnreachable, InvalidDocument,
	// UnsafeServer, SecretNotFound, InvalidSpec). Reconciling is True while
	// the operator is acting on a new spec; Stalled is True when it cannot
	// make progress without a change from the user.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// observedGeneration is the metadata.generation of the spec that the
	// status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// etag is the version the list was last read or written at: the strong
	// ETag of the document for url and urlFrom, the IP set's LockToken for
	// wafv2, the IAM policy's etag for gcpIAM. The next write is
	// conditional on it.
	// +optional
	ETag string `json:"etag,omitempty"`

	// redactedURL is the list's URL without user info and with every query
	// value replaced, so that it can be shown; for urlFrom lists only the
	// scheme, host and path.
	// +optional
	RedactedURL string `json:"redactedURL,omitempty"`

	// itemCount is the number of IDs on the list as last read or written.
	// +optional
	ItemCount int32 `json:"itemCount"`

	// entryCount is the number of live (not deleting) ListEntries that refer
	// to this ExternalList.
	// +optional
	EntryCount int32 `json:"entryCount"`

	// foreignItemCount is the number of IDs on the list, as last read, that
	// no live ListEntry of the document holds. In Exclusive mode these are
	// the IDs the next resync removes; it is reported before they go.
	// +optional
	ForeignItemCount int32 `json:"foreignItemCount"`

	// lastSyncTime is when the last resync (read the list, compare it with
	// the entries, correct drift) succeeded. It is refreshed every
	// resyncInterval, not by the cheaper status checks in between.
	// +optional
	LastSyncTime *metav1.Time `json:"lastSyncTime,omitempty"`

	// lastSyncDocumentID is the documentID that lastSyncTime is for. A list
	// whose document changed has not synced the new one: in Exclusive mode
	// its first sync of a document counts the foreign IDs, never names or
	// removes them, and a later resync removes them.
	// +optional
	LastSyncDocumentID string `json:"lastSyncDocumentID,omitempty"`

	// lastHandledReconcileAt is the value of the
	// listkeeper.dev/reconcile-requested-at annotation that the operator
	// last acted on.
	// +optional
	LastHandledReconcileAt string `json:"lastHandledReconcileAt,omitempty"`

	// documentID identifies the document the list names: a hash of what
	// its backend says identifies it, never the location itself. An object
	// in S3 or Google Cloud Storage is its bucket and key, in Azure Blob
	// Storage its account, container and blob, whatever the URL's style; an
	// AWS WAF IP set its region, scope and ID, a Google Cloud IAM policy its
	// resource, whatever the endpoint; a plain HTTP document its scheme,
	// host, port and path as written, and the values of documentQueryKeys.
	// Of the lists with the same documentID and itemsPointer (or role), one
	// holds the claim and writes; the others are Ready=False with reason
	// DocumentInUse.
	// +optional
	DocumentID string `json:"documentID,omitempty"`

	// earnedClaim is the claim (a hash of documentID and the items pointer
	// or role) whose document this list last read successfully with its
	// own credentials and configuration. A list takes part in the claim on
	// its document only while earnedClaim is that claim: a list that
	// cannot read the document (no credentials, or the wrong ones) never
	// keeps one that can from writing it. It is cleared when a read shows
	// the list cannot read the document any more (Unauthorized,
	// ListNotFound, a configuration error); a transient failure keeps it.
	// +optional
	EarnedClaim string `json:"earnedClaim,omitempty"`

	// vanishedEntries are entries of this list that the API server removed
	// while they still carried the cleanup finalizer: on a cluster that
	// does not put the finalizer on at creation, a deletion can race the
	// operator's patch that puts it on. Whichever replica writes the
	// document takes each one's ID off (unless another entry holds it)
	// and then drops the record; the record lives here, not in a
	// replica's memory, so a restart or a handover does not lose it.
	// +optional
	// +listType=map
	// +listMapKey=uid
	// +kubebuilder:validation:MaxItems=256
	VanishedEntries []VanishedEntry `json:"vanishedEntries,omitempty"`
}

// VanishedEntry is the last state of a ListEntry that the API server
// removed with its finalizer on: what its finalizer stood for.
type VanishedEntry struct {
	// namespace and name of the entry.
	// +required
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace"`
	// +required
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// uid of the entry.
	// +required
	// +kubebuilder:validation:MaxLength=64
	UID string `json:"uid"`
	// id is the entry's spec.id.
	// +required
	// +kubebuilder:validation:MaxLength=253
	ID string `json:"id"`
	// addedTo is the entry's status.addedTo, when it recorded one.
	// +optional
	AddedTo *ListPlacement `json:"addedTo,omitempty"`
}

// ExternalList is a list of IDs that lives outside Kubernetes (a JSON
// document behind an HTTP API, an AWS WAF IP set or the members of a Google
// Cloud IAM role binding), together with how to reach and change it.
// ListEntries that refer to it put their IDs on it.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=xl,categories=listkeeper
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Items",type=integer,JSONPath=`.status.itemCount`
// +kubebuilder:printcolumn:name="Entries",type=integer,JSONPath=`.status.entryCount`
// +kubebuilder:printcolumn:name="Last Sync",type=date,JSONPath=`.status.lastSyncTime`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Mode",type=string,JSONPath=`.spec.mode`,priority=1
// +kubebuilder:printcolumn:name="Foreign",type=integer,JSONPath=`.status.foreignItemCount`,priority=1
// +kubebuilder:printcolumn:name="URL",type=string,JSONPath=`.status.redactedURL`,priority=1
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`,priority=1
type ExternalList struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says where the list lives and how to talk to it.
	// +required
	Spec ExternalListSpec `json:"spec"`

	// status is what the operator last observed of the list.
	// +optional
	Status ExternalListStatus `json:"status,omitempty"`
}

// ExternalListList is a list of ExternalList objects.
//
// +kubebuilder:object:root=true
type ExternalListList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the ExternalList objects.
	Items []ExternalList `json:"items"`
}
