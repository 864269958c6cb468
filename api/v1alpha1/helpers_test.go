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

func TestSecretNames(t *testing.T) {
	awsKeys := &StoreAuth{AWS: &AWSAuth{Region: "us-east-1", SecretRef: &SecretReference{Name: "aws-keys"}}}
	gcpKey := &StoreAuth{GCP: &GCPAuth{SecretRef: &SecretReference{Name: "gcp-key"}}}
	wafv2 := &WAFv2IPSet{Region: "us-east-1", Scope: WAFv2ScopeRegional, Name: "allow", ID: "a1b2c3d4-0000-1111-2222-333344445555"}
	gcpIAM := &GCPIAMBinding{Resource: "//cloudresourcemanager.googleapis.com/projects/p", Role: "roles/viewer"}
	tests := []struct {
		name string
		spec ExternalListSpec
		want []string
	}{
		{name: "url without Secrets", spec: ExternalListSpec{URL: "https://lists.example.com/allow"}},
		{name: "headers and urlFrom", spec: ExternalListSpec{
			URLFrom:     &URLSource{SecretKeyRef: SecretKeySelector{Name: "sas", Key: "url"}},
			HeadersFrom: &HeadersSource{SecretRef: SecretReference{Name: "hdr"}},
		}, want: []string{"hdr", "sas"}},
		{name: "one Secret named twice is listed once", spec: ExternalListSpec{
			URLFrom:     &URLSource{SecretKeyRef: SecretKeySelector{Name: "both", Key: "url"}},
			HeadersFrom: &HeadersSource{SecretRef: SecretReference{Name: "both"}},
		}, want: []string{"both"}},
		{name: "s3 keys", spec: ExternalListSpec{URL: "https://b.s3.amazonaws.com/k", Auth: awsKeys}, want: []string{"aws-keys"}},
		{name: "azure shared key", spec: ExternalListSpec{URL: "https://a.blob.core.windows.net/c/b", Auth: &StoreAuth{
			Azure: &AzureAuth{SharedKey: &AzureSharedKey{SecretRef: SecretReference{Name: "az"}}},
		}}, want: []string{"az"}},
		{name: "wafv2 with AWS keys", spec: ExternalListSpec{WAFv2: wafv2, Auth: awsKeys}, want: []string{"aws-keys"}},
		{name: "wafv2 with ambient AWS credentials", spec: ExternalListSpec{WAFv2: wafv2, Auth: &StoreAuth{AWS: &AWSAuth{Region: "us-east-1"}}}},
		{name: "gcpIAM with a service account key", spec: ExternalListSpec{GCPIAM: gcpIAM, Auth: gcpKey}, want: []string{"gcp-key"}},
		{name: "gcpIAM with workload identity", spec: ExternalListSpec{GCPIAM: gcpIAM, Auth: &StoreAuth{GCP: &GCPAuth{}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &ExternalList{Spec: tt.spec}
			if got := l.SecretNames(); !slices.Equal(got, tt.want) {
				t.Errorf("SecretNames() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestBackend(t *testing.T) {
	wafv2 := &WAFv2IPSet{Region: "us-east-1", Scope: WAFv2ScopeRegional, Name: "allow", ID: "a1b2c3d4"}
	gcpIAM := &GCPIAMBinding{Resource: "//cloudresourcemanager.googleapis.com/projects/p", Role: "roles/viewer"}
	tests := []struct {
		name string
		spec ExternalListSpec
		want string
	}{
		{name: "url", spec: ExternalListSpec{URL: "https://lists.example.com/allow"}, want: BackendHTTP},
		{name: "urlFrom", spec: ExternalListSpec{URLFrom: &URLSource{SecretKeyRef: SecretKeySelector{Name: "sas", Key: "url"}}}, want: BackendHTTP},
		{name: "empty spec", want: BackendHTTP},
		{name: "wafv2", spec: ExternalListSpec{WAFv2: wafv2}, want: BackendWAFv2},
		{name: "gcpIAM", spec: ExternalListSpec{GCPIAM: gcpIAM}, want: BackendGCPIAM},
		{name: "wafv2 wins over url", spec: ExternalListSpec{URL: "https://lists.example.com/allow", WAFv2: wafv2}, want: BackendWAFv2},
		{name: "gcpIAM wins over url", spec: ExternalListSpec{URL: "https://lists.example.com/allow", GCPIAM: gcpIAM}, want: BackendGCPIAM},
		{name: "wafv2 wins over gcpIAM", spec: ExternalListSpec{WAFv2: wafv2, GCPIAM: gcpIAM}, want: BackendWAFv2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &ExternalList{Spec: tt.spec}
			if got := l.Backend(); got != tt.want {
				t.Errorf("Backend() = %q, want %q", got, tt.want)
			}
			cl := &ClusterExternalList{Spec: ClusterExternalListSpec{ExternalListSpec: tt.spec}}
			if got := cl.ListSpec().Backend(); got != tt.want {
				t.Errorf("ClusterExternalList: Backend() = %q, want %q", got, tt.want)
			}
		})
	}
}
