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

// ClusterExternalListSpec is an ExternalListSpec shared by several
// namespaces: the namespaces that namespaceSelector selects may keep IDs on
// it (ListEntries with listRef.kind ClusterExternalList). Its Secrets
// (headersFrom, urlFrom, auth) are read from the operator's own namespace.
type ClusterExternalListSpec struct {
	ExternalListSpec `json:",inline"`

	// namespaceSelector selects the namespaces whose ListEntries may keep
	// IDs on this list; {} selects every namespace. An entry in a namespace
	// it does not select is Ready=False with reason NamespaceNotAllowed,
	// and its ID is never written.
	// +required
	NamespaceSelector metav1.LabelSelector `json:"namespaceSelector"`
}

// ClusterExternalList is a list of IDs that lives outside Kubernetes, shared
// by the namespaces its namespaceSelector selects, as cert-manager's
// ClusterIssuer is shared. It takes the claim on its document before any
// ExternalList naming the same document and items pointer.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=cxl,categories=listkeeper
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
type ClusterExternalList struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says where the list lives, how to talk to it, and which
	// namespaces may use it.
	// +required
	Spec ClusterExternalListSpec `json:"spec"`

	// status is what the operator last observed of the list.
	// +optional
	Status ExternalListStatus `json:"status,omitempty"`
}

// ClusterExternalListList is a list of ClusterExternalList objects.
//
// +kubebuilder:object:root=true
type ClusterExternalListList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the ClusterExternalList objects.
	Items []ClusterExternalList `json:"items"`
}
