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
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestResyncPeriod(t *testing.T) {
	tests := []struct {
		name     string
		interval *metav1.Duration
		want     time.Duration
	}{
		{name: "unset uses the default", interval: nil, want: DefaultResyncInterval},
		{name: "zero uses the default", interval: &metav1.Duration{}, want: DefaultResyncInterval},
		{name: "negative uses the default", interval: &metav1.Duration{Duration: -time.Minute}, want: DefaultResyncInterval},
		{name: "below the minimum is raised to it", interval: &metav1.Duration{Duration: time.Second}, want: MinResyncInterval},
		{name: "the minimum is kept", interval: &metav1.Duration{Duration: MinResyncInterval}, want: MinResyncInterval},
		{name: "a longer interval is kept", interval: &metav1.Duration{Duration: time.Hour}, want: time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &ExternalList{Spec: ExternalListSpec{ResyncInterval: tt.interval}}
			if got := l.ResyncPeriod(); got != tt.want {
				t.Errorf("ResyncPeriod() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestEffectiveMode(t *testing.T) {
	tests := []struct {
		name string
		mode ListMode
		want ListMode
	}{
		{name: "unset is Additive", mode: "", want: ListModeAdditive},
		{name: "Additive", mode: ListModeAdditive, want: ListModeAdditive},
		{name: "Exclusive", mode: ListModeExclusive, want: ListModeExclusive},
		{name: "unknown falls back to Additive", mode: "exclusive", want: ListModeAdditive},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &ExternalList{Spec: ExternalListSpec{Mode: tt.mode}}
			if got := l.EffectiveMode(); got != tt.want {
				t.Errorf("EffectiveMode() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestHeadersSecretName(t *testing.T) {
	tests := []struct {
		name    string
		headers *HeadersSource
		want    string
	}{
		{name: "unset", headers: nil, want: ""},
		{name: "set", headers: &HeadersSource{SecretRef: SecretReference{Name: "auth"}}, want: "auth"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &ExternalList{Spec: ExternalListSpec{HeadersFrom: tt.headers}}
			if got := l.HeadersSecretName(); got != tt.want {
				t.Errorf("HeadersSecretName() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestListKey(t *testing.T) {
	e := &ListEntry{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "tenant-a"},
		Spec:       ListEntrySpec{ListRef: ListReference{Name: "allow-list"}, ID: "tenant-a"},
	}
	want := types.NamespacedName{Namespace: "team-a", Name: "allow-list"}
	if got := e.ListKey(); got != want {
		t.Errorf("ListKey() = %v, want %v", got, want)
	}
}

func TestPrintableID(t *testing.T) {
	for id, want := range map[string]bool{
		"tenant-a": true, "équipe-🚀": true, "a b": true, "": true,
		"a\tb": false, "ok\x1b[31m": false, "a\x7f": false, "a\u0085": false, "admin\u202egnp": false, "x\u2066y": false,
	} {
		if got := PrintableID(id); got != want {
			t.Errorf("PrintableID(%q) = %t, want %t", id, got, want)
		}
	}
}
