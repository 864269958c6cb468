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
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/listkeeper/listkeeper/internal/safetext"
)

const (
	// DefaultResyncInterval is the resync period of an ExternalList whose
	// spec.resyncInterval is unset.
	DefaultResyncInterval = 10 * time.Minute

	// MinResyncInterval is the shortest resync period the API accepts, and
	// the floor ResyncPeriod applies.
	MinResyncInterval = 10 * time.Second
)

// +kubebuilder:object:generate=false

// List is what the controllers need of an ExternalList or a
// ClusterExternalList: its object, its spec (a ClusterExternalList's
// without the namespace selector) and its status.
type List interface {
	metav1.Object
	runtime.Object
	// ListKind returns ListKindExternalList or ListKindClusterExternalList.
	ListKind() ListKind
	// ListSpec returns the spec the list is written by. It is the object's
	// own, not a copy.
	ListSpec() *ExternalListSpec
	// ListStatus returns the object's status, not a copy.
	ListStatus() *ExternalListStatus
}

var (
	_ List = (*ExternalList)(nil)
	_ List = (*ClusterExternalList)(nil)
)

// ListKind implements List.
func (l *ExternalList) ListKind() ListKind { return ListKindExternalList }

// ListSpec implements List.
func (l *ExternalList) ListSpec() *ExternalListSpec { return &l.Spec }

// ListStatus implements List.
func (l *ExternalList) ListStatus() *ExternalListStatus { return &l.Status }

// ListKind implements List.
func (l *ClusterExternalList) ListKind() ListKind { return ListKindClusterExternalList }

// ListSpec implements List.
func (l *ClusterExternalList) ListSpec() *ExternalListSpec { return &l.Spec.ExternalListSpec }

// ListStatus implements List.
func (l *ClusterExternalList) ListStatus() *ExternalListStatus { return &l.Status }

// ResyncPeriod returns how often the list should be re-read: the spec's
// resyncInterval, DefaultResyncInterval when it is unset or not positive, and
// never less than MinResyncInterval (the API rejects shorter intervals, but
// objects stored before that rule, or built in code, may still carry one).
func (s *ExternalListSpec) ResyncPeriod() time.Duration {
	if s.ResyncInterval == nil || s.ResyncInterval.Duration <= 0 {
		return DefaultResyncInterval
	}
	return max(s.ResyncInterval.Duration, MinResyncInterval)
}

// EffectiveMode returns the list's mode with the default applied: an empty or
// unknown mode is ListModeAdditive, the mode that never removes an ID it does
// not own.
func (s *ExternalListSpec) EffectiveMode() ListMode {
	if s.Mode == ListModeExclusive {
		return ListModeExclusive
	}
	return ListModeAdditive
}

// Backends. Where a list lives, as ExternalListSpec.Backend names it: the
// same words as the spec fields that select them, so that a log line or a
// metric label reads like the object.
const (
	// BackendHTTP is a JSON document at url or urlFrom (an HTTP API or an
	// object store).
	BackendHTTP = "http"
	// BackendWAFv2 is an AWS WAF IP set (spec.wafv2).
	BackendWAFv2 = "wafv2"
	// BackendGCPIAM is the binding of a role in a Google Cloud IAM policy
	// (spec.gcpIAM).
	BackendGCPIAM = "gcpIAM"
)

// Backend returns which backend keeps the list: BackendWAFv2 when
// spec.wafv2 is set, BackendGCPIAM when spec.gcpIAM is set, and BackendHTTP
// otherwise. The API admits exactly one of url, urlFrom, wafv2 and gcpIAM;
// for a spec built in code with more than one, wafv2 wins over gcpIAM and
// both over url and urlFrom.
func (s *ExternalListSpec) Backend() string {
	switch {
	case s.WAFv2 != nil:
		return BackendWAFv2
	case s.GCPIAM != nil:
		return BackendGCPIAM
	default:
		return BackendHTTP
	}
}

// SecretNames returns the names of every Secret the list reads: headers,
// URL and the credentials of auth, whichever backend they sign requests to
// (an object store, a WAF IP set or an IAM policy). Ambient credentials
// (auth without a secretRef) name no Secret.
func (s *ExternalListSpec) SecretNames() []string {
	var out []string
	add := func(name string) {
		if name != "" && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	add(s.HeadersSecretName())
	if s.URLFrom != nil {
		add(s.URLFrom.SecretKeyRef.Name)
	}
	if a := s.Auth; a != nil {
		switch {
		case a.AWS != nil && a.AWS.SecretRef != nil:
			add(a.AWS.SecretRef.Name)
		case a.GCP != nil && a.GCP.SecretRef != nil:
			add(a.GCP.SecretRef.Name)
		case a.Azure != nil && a.Azure.SharedKey != nil:
			add(a.Azure.SharedKey.SecretRef.Name)
		}
	}
	return out
}

// HeadersSecretName returns the name of the Secret whose entries become
// request headers, or "" when spec.headersFrom is unset.
func (s *ExternalListSpec) HeadersSecretName() string {
	if s.HeadersFrom == nil {
		return ""
	}
	return s.HeadersFrom.SecretRef.Name
}

// ResyncPeriod is Spec.ResyncPeriod.
func (l *ExternalList) ResyncPeriod() time.Duration { return l.Spec.ResyncPeriod() }

// EffectiveMode is Spec.EffectiveMode.
func (l *ExternalList) EffectiveMode() ListMode { return l.Spec.EffectiveMode() }

// Backend is Spec.Backend.
func (l *ExternalList) Backend() string { return l.Spec.Backend() }

// SecretNames is Spec.SecretNames.
func (l *ExternalList) SecretNames() []string { return l.Spec.SecretNames() }

// HeadersSecretName is Spec.HeadersSecretName.
func (l *ExternalList) HeadersSecretName() string { return l.Spec.HeadersSecretName() }

// ListKind returns the kind of list the entry refers to, with the default
// applied: anything but ClusterExternalList is an ExternalList.
func (e *ListEntry) ListKind() ListKind {
	if e.Spec.ListRef.Kind == ListKindClusterExternalList {
		return ListKindClusterExternalList
	}
	return ListKindExternalList
}

// ListKey returns the namespace and name of the list the entry refers to:
// an ExternalList is always in the entry's own namespace; a
// ClusterExternalList has no namespace.
func (e *ListEntry) ListKey() types.NamespacedName {
	if e.ListKind() == ListKindClusterExternalList {
		return types.NamespacedName{Name: e.Spec.ListRef.Name}
	}
	return types.NamespacedName{Namespace: e.Namespace, Name: e.Spec.ListRef.Name}
}

// PrintableID reports whether id is printable as spec.id requires: no
// control character (C0, DEL, C1) and no bidirectional formatting
// character. The API server enforces it on new entries; the operator
// checks it too, for entries stored before the rule.
func PrintableID(id string) bool {
	for _, r := range id {
		if !safetext.Printable(r) {
			return false
		}
	}
	return true
}
