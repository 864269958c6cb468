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

// ListEntrySpec is which ID to keep on which ExternalList. Both fields are
// immutable: to move an ID, create a new ListEntry and delete the old one.
type ListEntrySpec struct {
	// listRef names the list the ID is kept on: an ExternalList in the same
	// namespace (the default), or a ClusterExternalList that selects this
	// namespace. Immutable.
	// +required
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="listRef is immutable"
	ListRef ListReference `json:"listRef"`

	// id is the ID kept on the list while this ListEntry exists, 1 to 253
	// printable characters: no control characters (C0, DEL, C1, so no
	// terminal escapes), no bidirectional formatting characters, which
	// would let an ID rewrite what kubectl shows, and no invisible ones
	// (soft hyphen, zero-width characters and joiners, line and paragraph
	// separators, the byte order mark, tag characters), which would let
	// two IDs that differ look the same. Several ListEntries may
	// carry the same ID on the same list; the ID stays until the last of
	// them is deleted. Immutable.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="!self.matches(r'[\\x00-\\x1f\\x7f-\\x9f\\x{ad}\\x{61c}\\x{180e}\\x{200b}-\\x{200f}\\x{2028}-\\x{202e}\\x{2060}-\\x{2069}\\x{feff}\\x{fff9}-\\x{fffb}\\x{e0000}-\\x{e007f}]')",message="id must be printable: no control characters, no bidirectional formatting characters and no invisible characters (zero-width, joiners, separators, byte order mark, tags)"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="id is immutable"
	ID string `json:"id"`
}

// ListKind is the kind of list a ListEntry refers to.
//
// +kubebuilder:validation:Enum=ExternalList;ClusterExternalList
type ListKind string

const (
	// ListKindExternalList is an ExternalList in the entry's own namespace.
	// It is the default.
	ListKindExternalList ListKind = "ExternalList"

	// ListKindClusterExternalList is a ClusterExternalList whose
	// namespaceSelector selects the entry's namespace.
	ListKindClusterExternalList ListKind = "ClusterExternalList"
)

// ListReference names the list a ListEntry keeps its ID on: an
// ExternalList in the entry's namespace, or a ClusterExternalList.
type ListReference struct {
	// kind is ExternalList (an ExternalList in the entry's own namespace) or
	// ClusterExternalList (a cluster-scoped list shared by the namespaces
	// its namespaceSelector selects). Default: ExternalList.
	// +optional
	// +kubebuilder:default=ExternalList
	Kind ListKind `json:"kind,omitempty"`

	// name is the name of the ExternalList or ClusterExternalList.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// ListEntryStatus is what the operator last did with a ListEntry's ID.
type ListEntryStatus struct {
	// conditions describe the entry's state, following the kstatus
	// conventions. Ready is Unknown while the entry's change is in flight,
	// True once it holds on the list, and False with a reason when it cannot
	// (for example ListNotFound, ListUnreachable, UnsafeServer,
	// ConflictRetriesExhausted). Synced says whether the ID is on the list.
	// Reconciling is True while a change is in flight; Stalled is True when
	// the entry cannot make progress without a change from the user.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// observedGeneration is the metadata.generation of the spec that the
	// status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// lastHandledReconcileAt is the value of the
	// listkeeper.dev/reconcile-requested-at annotation that the operator
	// last acted on.
	// +optional
	LastHandledReconcileAt string `json:"lastHandledReconcileAt,omitempty"`

	// addedTo records where the operator put the entry's ID: the document
	// and the items pointer (or role) of the claim it was added under. It
	// is what the entry takes its ID off when it is deleted, or when its
	// list no longer admits it (another list took the claim, or a
	// ClusterExternalList no longer selects its namespace), whichever list
	// holds that claim by then. Empty while the ID was never added, and
	// again once it was taken off.
	// +optional
	AddedTo *ListPlacement `json:"addedTo,omitempty"`
}

// ListPlacement names the claim (a document and an items pointer or role)
// an entry's ID was added under, by hashes only: where a list lives is
// never shown on an entry.
type ListPlacement struct {
	// documentID is the document's identity, as the status.documentID of
	// the lists that name it shows it.
	// +required
	// +kubebuilder:validation:MaxLength=64
	DocumentID string `json:"documentID"`

	// claim identifies the document together with the items pointer (or
	// role): what exactly one list at a time writes.
	// +required
	// +kubebuilder:validation:MaxLength=64
	Claim string `json:"claim"`
}

// ListEntry keeps one ID on one ExternalList for as long as it exists. When
// it is deleted, the finalizer listkeeper.dev/cleanup holds it until the ID
// is off the list.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=le,categories=listkeeper
// +kubebuilder:printcolumn:name="List",type=string,JSONPath=`.spec.listRef.name`
// +kubebuilder:printcolumn:name="Kind",type=string,JSONPath=`.spec.listRef.kind`,priority=1
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.spec.id`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Synced",type=string,JSONPath=`.status.conditions[?(@.type=="Synced")].status`,priority=1
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`,priority=1
// +kubebuilder:selectablefield:JSONPath=`.spec.listRef.name`
// +kubebuilder:selectablefield:JSONPath=`.spec.id`
// +kubebuilder:selectablefield:JSONPath=`.spec.listRef.kind`
type ListEntry struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says which ID to keep on which ExternalList.
	// +required
	Spec ListEntrySpec `json:"spec"`

	// status is what the operator last did with the ID.
	// +optional
	Status ListEntryStatus `json:"status,omitempty"`
}

// ListEntryList is a list of ListEntry objects.
//
// +kubebuilder:object:root=true
type ListEntryList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the ListEntry objects.
	Items []ListEntry `json:"items"`
}
