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

	"k8s.io/apimachinery/pkg/types"
)

const (
	// DefaultResyncInterval is the resync period of an ExternalList whose
	// spec.resyncInterval is unset.
	DefaultResyncInterval = 10 * time.Minute

	// MinResyncInterval is the shortest resync period the API accepts, and
	// the floor ResyncPeriod applies.
	MinResyncInterval = 10 * time.Second
)

// ResyncPeriod returns how often the list should be re-read: the spec's
// resyncInterval, DefaultResyncInterval when it is unset or not positive, and
// never less than MinResyncInterval (the API rejects shorter intervals, but
// objects stored before that rule, or built in code, may still carry one).
func (l *ExternalList) ResyncPeriod() time.Duration {
	if l.Spec.ResyncInterval == nil || l.Spec.ResyncInterval.Duration <= 0 {
		return DefaultResyncInterval
	}
	return max(l.Spec.ResyncInterval.Duration, MinResyncInterval)
}

// EffectiveMode returns the list's mode with the default applied: an empty or
// unknown mode is ListModeAdditive, the mode that never removes an ID it does
// not own.
func (l *ExternalList) EffectiveMode() ListMode {
	if l.Spec.Mode == ListModeExclusive {
		return ListModeExclusive
	}
	return ListModeAdditive
}

// SecretNames returns the names of every Secret the list reads: headers,
// URL and store credentials.
func (l *ExternalList) SecretNames() []string {
	var out []string
	add := func(name string) {
		if name != "" && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	add(l.HeadersSecretName())
	if l.Spec.URLFrom != nil {
		add(l.Spec.URLFrom.SecretKeyRef.Name)
	}
	if a := l.Spec.Auth; a != nil {
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
func (l *ExternalList) HeadersSecretName() string {
	if l.Spec.HeadersFrom == nil {
		return ""
	}
	return l.Spec.HeadersFrom.SecretRef.Name
}

// ListKey returns the namespace and name of the ExternalList the entry refers
// to. The ExternalList is always in the entry's own namespace.
func (e *ListEntry) ListKey() types.NamespacedName {
	return types.NamespacedName{Namespace: e.Namespace, Name: e.Spec.ListRef.Name}
}
