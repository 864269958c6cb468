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

package v1alpha1_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/testenv"
)

// These tests install the generated CRDs into a real kube-apiserver (envtest)
// and check that the OpenAPI and CEL validation in them accepts and rejects
// what the API promises. They fail when the control plane is not available
// (no KUBEBUILDER_ASSETS and no bin/k8s): 'make test' always builds it.

const testNamespace = "default"

var (
	env       *testenv.Env
	k8sClient client.Client // env's client, set by TestMain
)

func TestMain(m *testing.M) {
	os.Exit(testenv.Main(m, testenv.Options{CRDDirectory: testenv.ProjectCRDs}, func(e *testenv.Env) error {
		env, k8sClient = e, e.Client()
		return nil
	}))
}

// rejection is what a create or update is expected to be refused for: a
// field path (as in the API error's causes) and, for the CEL rules this API
// defines, a fragment of the rule's message.
type rejection struct {
	field   string
	message string // optional
}

// checkResult fails t unless err matches want: nil for an accepted request,
// an Invalid error with a cause on want.field otherwise.
func checkResult(t *testing.T, err error, want *rejection) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Fatalf("want the request accepted, got: %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("want the request rejected on %s, it was accepted", want.field)
	}
	if !apierrors.IsInvalid(err) {
		t.Fatalf("want an Invalid error on %s, got: %v", want.field, err)
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details == nil {
		t.Fatalf("want an error with causes, got: %v", err)
	}
	for _, c := range status.Status().Details.Causes {
		if c.Field == want.field && strings.Contains(c.Message, want.message) {
			t.Logf("rejected as expected: %v", err)
			return
		}
	}
	t.Fatalf("want a cause on %s containing %q, got: %v", want.field, want.message, err)
}

func newList(mutate func(*v1alpha1.ExternalListSpec)) *v1alpha1.ExternalList {
	l := &v1alpha1.ExternalList{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "xl-", Namespace: testNamespace},
		Spec:       v1alpha1.ExternalListSpec{URL: "https://lists.example.com/allow"},
	}
	if mutate != nil {
		mutate(&l.Spec)
	}
	return l
}

func newEntry(mutate func(*v1alpha1.ListEntrySpec)) *v1alpha1.ListEntry {
	e := &v1alpha1.ListEntry{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "le-", Namespace: testNamespace},
		Spec: v1alpha1.ListEntrySpec{
			ListRef: v1alpha1.ListReference{Name: "allow-list"},
			ID:      "tenant-a",
		},
	}
	if mutate != nil {
		mutate(&e.Spec)
	}
	return e
}

func duration(s string) *metav1.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		panic(err)
	}
	return &metav1.Duration{Duration: d}
}

func TestExternalListValidation(t *testing.T) {
	env.Require(t)

	const (
		urlMsg      = "url must be an http or https URL"
		pointerMsg  = "itemsPointer must be empty or an RFC 6901 JSON pointer"
		intervalMsg = "resyncInterval must be a duration of at least 10s"
		oneURLMsg   = "exactly one of url and urlFrom must be set"
		insecureMsg = "headersFrom and auth send secrets, which an http:// url would carry in clear text"
	)
	plain := func(s *v1alpha1.ExternalListSpec) { s.URL = "http://lists.example.com/allow" }
	headers := func(s *v1alpha1.ExternalListSpec) {
		s.HeadersFrom = &v1alpha1.HeadersSource{SecretRef: v1alpha1.SecretReference{Name: "auth"}}
	}
	both := func(fs ...func(*v1alpha1.ExternalListSpec)) func(*v1alpha1.ExternalListSpec) {
		return func(s *v1alpha1.ExternalListSpec) {
			for _, f := range fs {
				f(s)
			}
		}
	}
	tests := []struct {
		name   string
		mutate func(*v1alpha1.ExternalListSpec)
		want   *rejection
	}{
		{name: "minimal"},
		{name: "every field set", mutate: func(s *v1alpha1.ExternalListSpec) {
			s.URL = "https://lists.example.com:8443/v1/tenants?format=json"
			s.ItemsPointer = "/data/tenants"
			s.HeadersFrom = &v1alpha1.HeadersSource{SecretRef: v1alpha1.SecretReference{Name: "auth"}}
			s.CABundle = "-----BEGIN CERTIFICATE-----\n...\n-----END CERTIFICATE-----\n"
			s.Mode = v1alpha1.ListModeExclusive
			s.ResyncInterval = duration("30s")
			s.CreateIfMissing = true
		}},
		{name: "url with IP and port", mutate: func(s *v1alpha1.ExternalListSpec) { s.URL = "http://127.0.0.1:8090/lists/allow" }},
		{name: "url ftp", mutate: func(s *v1alpha1.ExternalListSpec) { s.URL = "ftp://x" }, want: &rejection{"spec.url", urlMsg}},
		{name: "url without scheme", mutate: func(s *v1alpha1.ExternalListSpec) { s.URL = "lists.example.com/allow" }, want: &rejection{"spec.url", urlMsg}},
		{name: "url path only", mutate: func(s *v1alpha1.ExternalListSpec) { s.URL = "/lists/allow" }, want: &rejection{"spec.url", urlMsg}},
		{name: "url without host", mutate: func(s *v1alpha1.ExternalListSpec) { s.URL = "http://" }, want: &rejection{"spec.url", urlMsg}},
		{name: "url not a URL", mutate: func(s *v1alpha1.ExternalListSpec) { s.URL = "not a url" }, want: &rejection{"spec.url", urlMsg}},
		{name: "url empty, no urlFrom", mutate: func(s *v1alpha1.ExternalListSpec) { s.URL = "" }, want: &rejection{"spec", oneURLMsg}},
		{name: "urlFrom instead of url", mutate: func(s *v1alpha1.ExternalListSpec) {
			s.URL = ""
			s.URLFrom = &v1alpha1.URLSource{SecretKeyRef: v1alpha1.SecretKeySelector{Name: "sas", Key: "url"}}
		}},
		{name: "url and urlFrom", mutate: func(s *v1alpha1.ExternalListSpec) {
			s.URLFrom = &v1alpha1.URLSource{SecretKeyRef: v1alpha1.SecretKeySelector{Name: "sas", Key: "url"}}
		}, want: &rejection{"spec", oneURLMsg}},
		{name: "urlFrom without key", mutate: func(s *v1alpha1.ExternalListSpec) {
			s.URL = ""
			s.URLFrom = &v1alpha1.URLSource{SecretKeyRef: v1alpha1.SecretKeySelector{Name: "sas"}}
		}, want: &rejection{field: "spec.urlFrom.secretKeyRef.key"}},
		{name: "auth aws", mutate: func(s *v1alpha1.ExternalListSpec) {
			s.Auth = &v1alpha1.StoreAuth{AWS: &v1alpha1.AWSAuth{Region: "eu-west-1", SecretRef: &v1alpha1.SecretReference{Name: "aws"}}}
		}},
		{name: "auth aws without region", mutate: func(s *v1alpha1.ExternalListSpec) {
			s.Auth = &v1alpha1.StoreAuth{AWS: &v1alpha1.AWSAuth{}}
		}, want: &rejection{field: "spec.auth.aws.region"}},
		{name: "auth gcp with workload identity", mutate: func(s *v1alpha1.ExternalListSpec) {
			s.Auth = &v1alpha1.StoreAuth{GCP: &v1alpha1.GCPAuth{}}
		}},
		{name: "auth aws and gcp", mutate: func(s *v1alpha1.ExternalListSpec) {
			s.Auth = &v1alpha1.StoreAuth{AWS: &v1alpha1.AWSAuth{Region: "eu-west-1"}, GCP: &v1alpha1.GCPAuth{}}
		}, want: &rejection{"spec.auth", "at most one of aws, gcp and azure may be set"}},
		{name: "auth azure shared key", mutate: func(s *v1alpha1.ExternalListSpec) {
			s.Auth = &v1alpha1.StoreAuth{Azure: &v1alpha1.AzureAuth{SharedKey: &v1alpha1.AzureSharedKey{SecretRef: v1alpha1.SecretReference{Name: "az"}}}}
		}},
		{name: "auth azure workload identity", mutate: func(s *v1alpha1.ExternalListSpec) {
			s.Auth = &v1alpha1.StoreAuth{Azure: &v1alpha1.AzureAuth{WorkloadIdentity: &v1alpha1.AzureWorkloadIdentity{}}}
		}},
		{name: "auth azure with neither", mutate: func(s *v1alpha1.ExternalListSpec) {
			s.Auth = &v1alpha1.StoreAuth{Azure: &v1alpha1.AzureAuth{}}
		}, want: &rejection{"spec.auth.azure", "exactly one of sharedKey and workloadIdentity must be set"}},
		{name: "url too long", mutate: func(s *v1alpha1.ExternalListSpec) {
			s.URL = "https://lists.example.com/" + strings.Repeat("a", 2049-len("https://lists.example.com/"))
		}, want: &rejection{field: "spec.url"}},
		{name: "pointer to root array", mutate: func(s *v1alpha1.ExternalListSpec) { s.ItemsPointer = "" }},
		{name: "pointer with escapes", mutate: func(s *v1alpha1.ExternalListSpec) { s.ItemsPointer = "/a~0b/~1c/0" }},
		{name: "pointer to empty key", mutate: func(s *v1alpha1.ExternalListSpec) { s.ItemsPointer = "/" }},
		{name: "pointer without leading slash", mutate: func(s *v1alpha1.ExternalListSpec) { s.ItemsPointer = "abc" }, want: &rejection{"spec.itemsPointer", pointerMsg}},
		{name: "pointer with bad escape", mutate: func(s *v1alpha1.ExternalListSpec) { s.ItemsPointer = "/a~2" }, want: &rejection{"spec.itemsPointer", pointerMsg}},
		{name: "pointer with dangling tilde", mutate: func(s *v1alpha1.ExternalListSpec) { s.ItemsPointer = "/a~" }, want: &rejection{"spec.itemsPointer", pointerMsg}},
		{name: "mode Exclusive", mutate: func(s *v1alpha1.ExternalListSpec) { s.Mode = v1alpha1.ListModeExclusive }},
		{name: "mode unknown", mutate: func(s *v1alpha1.ExternalListSpec) { s.Mode = "Sometimes" }, want: &rejection{field: "spec.mode"}},
		{name: "mode wrong case", mutate: func(s *v1alpha1.ExternalListSpec) { s.Mode = "exclusive" }, want: &rejection{field: "spec.mode"}},
		{name: "resync at the minimum", mutate: func(s *v1alpha1.ExternalListSpec) { s.ResyncInterval = duration("10s") }},
		{name: "resync of an hour", mutate: func(s *v1alpha1.ExternalListSpec) { s.ResyncInterval = duration("1h") }},
		{name: "resync below the minimum", mutate: func(s *v1alpha1.ExternalListSpec) { s.ResyncInterval = duration("9s") }, want: &rejection{"spec.resyncInterval", intervalMsg}},
		{name: "resync negative", mutate: func(s *v1alpha1.ExternalListSpec) { s.ResyncInterval = duration("-1m") }, want: &rejection{"spec.resyncInterval", intervalMsg}},
		{name: "http without secrets", mutate: plain},
		{name: "http with headersFrom", mutate: both(plain, headers), want: &rejection{"spec", insecureMsg}},
		{name: "HTTP in capitals with headersFrom", mutate: both(headers, func(s *v1alpha1.ExternalListSpec) {
			s.URL = "HTTP://lists.example.com/allow"
		}), want: &rejection{"spec", insecureMsg}},
		{name: "http with aws keys", mutate: both(plain, func(s *v1alpha1.ExternalListSpec) {
			s.Auth = &v1alpha1.StoreAuth{AWS: &v1alpha1.AWSAuth{Region: "eu-west-1", SecretRef: &v1alpha1.SecretReference{Name: "aws"}}}
		}), want: &rejection{"spec", insecureMsg}},
		{name: "http with workload identity", mutate: both(plain, func(s *v1alpha1.ExternalListSpec) {
			s.Auth = &v1alpha1.StoreAuth{GCP: &v1alpha1.GCPAuth{}}
		}), want: &rejection{"spec", insecureMsg}},
		{name: "http with headersFrom, opted in", mutate: both(plain, headers, func(s *v1alpha1.ExternalListSpec) {
			s.AllowInsecureHTTP = true
		})},
		{name: "https with headersFrom and auth", mutate: both(headers, func(s *v1alpha1.ExternalListSpec) {
			s.Auth = &v1alpha1.StoreAuth{GCP: &v1alpha1.GCPAuth{}}
		})},
		// A URL from a Secret is checked by the operator, which can read it.
		{name: "urlFrom with headersFrom", mutate: both(headers, func(s *v1alpha1.ExternalListSpec) {
			s.URL = ""
			s.URLFrom = &v1alpha1.URLSource{SecretKeyRef: v1alpha1.SecretKeySelector{Name: "sas", Key: "url"}}
		})},
		{name: "deletionPolicy Delete", mutate: func(s *v1alpha1.ExternalListSpec) { s.DeletionPolicy = v1alpha1.DeletionPolicyDelete }},
		{name: "deletionPolicy unknown", mutate: func(s *v1alpha1.ExternalListSpec) { s.DeletionPolicy = "Keep" }, want: &rejection{field: "spec.deletionPolicy"}},
		{name: "header secret without name", mutate: func(s *v1alpha1.ExternalListSpec) {
			s.HeadersFrom = &v1alpha1.HeadersSource{}
		}, want: &rejection{field: "spec.headersFrom.secretRef.name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			l := newList(tt.mutate)
			err := k8sClient.Create(ctx, l)
			checkResult(t, err, tt.want)
			if err == nil {
				t.Cleanup(func() { _ = k8sClient.Delete(ctx, l) })
			}
		})
	}
}

func TestExternalListResyncIntervalNotADuration(t *testing.T) {
	env.Require(t)
	ctx := context.Background()

	// A typed client cannot send a malformed duration, so send raw JSON.
	l := newList(nil)
	patch := client.RawPatch("application/apply-patch+yaml", []byte(`{
		"apiVersion": "listkeeper.dev/v1alpha1", "kind": "ExternalList",
		"metadata": {"name": "xl-bad-duration", "namespace": "`+testNamespace+`"},
		"spec": {"url": "http://lists.example.com/allow", "resyncInterval": "soon"}}`))
	l.GenerateName = ""
	l.Name = "xl-bad-duration"
	err := k8sClient.Patch(ctx, l, patch, client.FieldOwner("test"), client.ForceOwnership)
	checkResult(t, err, &rejection{field: "spec.resyncInterval"})
}

func TestExternalListDefaults(t *testing.T) {
	env.Require(t)
	ctx := context.Background()

	l := newList(nil)
	if err := k8sClient.Create(ctx, l); err != nil {
		t.Fatalf("create: %v", err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(ctx, l) })

	got := &v1alpha1.ExternalList{}
	if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(l), got); err != nil {
		t.Fatalf("get: %v", err)
	}
	if got.Spec.Mode != v1alpha1.ListModeAdditive {
		t.Errorf("mode = %q, want %q", got.Spec.Mode, v1alpha1.ListModeAdditive)
	}
	if got.Spec.ResyncInterval == nil || got.Spec.ResyncInterval.Duration != v1alpha1.DefaultResyncInterval {
		t.Errorf("resyncInterval = %v, want %v", got.Spec.ResyncInterval, v1alpha1.DefaultResyncInterval)
	}
	if got.Spec.DeletionPolicy != v1alpha1.DeletionPolicyOrphan {
		t.Errorf("deletionPolicy = %q, want %q", got.Spec.DeletionPolicy, v1alpha1.DeletionPolicyOrphan)
	}
	if got.Spec.AllowInsecureHTTP {
		t.Error("allowInsecureHTTP defaulted to true")
	}
	if got.Spec.ItemsPointer != "" || got.Spec.CreateIfMissing || got.Spec.HeadersFrom != nil || got.Spec.CABundle != "" {
		t.Errorf("unexpected defaults: %+v", got.Spec)
	}
}

func TestExternalListStatusSubresource(t *testing.T) {
	env.Require(t)
	ctx := context.Background()

	l := newList(nil)
	if err := k8sClient.Create(ctx, l); err != nil {
		t.Fatalf("create: %v", err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(ctx, l) })

	now := metav1.NewTime(time.Now().Truncate(time.Second))
	l.Status = v1alpha1.ExternalListStatus{
		ObservedGeneration: l.Generation,
		ETag:               `"v1"`,
		ItemCount:          3,
		EntryCount:         2,
		LastSyncTime:       &now,
		Conditions: []metav1.Condition{{
			Type: v1alpha1.ConditionReady, Status: metav1.ConditionTrue,
			Reason: v1alpha1.ReasonReady, Message: "list has 3 items", LastTransitionTime: now,
		}},
	}
	if err := k8sClient.Status().Update(ctx, l); err != nil {
		t.Fatalf("update status: %v", err)
	}
	got := &v1alpha1.ExternalList{}
	if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(l), got); err != nil {
		t.Fatalf("get: %v", err)
	}
	if got.Status.ItemCount != 3 || got.Status.EntryCount != 2 || got.Status.ETag != `"v1"` || len(got.Status.Conditions) != 1 {
		t.Errorf("status not stored: %+v", got.Status)
	}
}

func TestListEntryCreateValidation(t *testing.T) {
	env.Require(t)

	tests := []struct {
		name   string
		mutate func(*v1alpha1.ListEntrySpec)
		want   *rejection
	}{
		{name: "valid"},
		{name: "id of 253 characters", mutate: func(s *v1alpha1.ListEntrySpec) { s.ID = strings.Repeat("a", 253) }},
		{name: "id with any characters", mutate: func(s *v1alpha1.ListEntrySpec) { s.ID = "Tenant A/ü:42" }},
		{name: "id of 254 characters", mutate: func(s *v1alpha1.ListEntrySpec) { s.ID = strings.Repeat("a", 254) }, want: &rejection{field: "spec.id"}},
		{name: "id empty", mutate: func(s *v1alpha1.ListEntrySpec) { s.ID = "" }, want: &rejection{field: "spec.id"}},
		{name: "id with an ANSI escape", mutate: func(s *v1alpha1.ListEntrySpec) { s.ID = "ok\x1b[31mred" }, want: &rejection{field: "spec.id", message: "printable"}},
		{name: "id with a newline", mutate: func(s *v1alpha1.ListEntrySpec) { s.ID = "a\nb" }, want: &rejection{field: "spec.id", message: "printable"}},
		{name: "id with NUL", mutate: func(s *v1alpha1.ListEntrySpec) { s.ID = "a\x00b" }, want: &rejection{field: "spec.id", message: "printable"}},
		{name: "id with DEL", mutate: func(s *v1alpha1.ListEntrySpec) { s.ID = "a\x7f" }, want: &rejection{field: "spec.id", message: "printable"}},
		{name: "id with a C1 control", mutate: func(s *v1alpha1.ListEntrySpec) { s.ID = "a\u009bb" }, want: &rejection{field: "spec.id", message: "printable"}},
		{name: "id with a right-to-left override", mutate: func(s *v1alpha1.ListEntrySpec) { s.ID = "admin\u202egnp.exe" }, want: &rejection{field: "spec.id", message: "printable"}},
		{name: "id with a tab", mutate: func(s *v1alpha1.ListEntrySpec) { s.ID = "a\tb" }, want: &rejection{field: "spec.id", message: "printable"}},
		{name: "id with emoji and accents", mutate: func(s *v1alpha1.ListEntrySpec) { s.ID = "équipe-🚀" }},
		{name: "listRef without name", mutate: func(s *v1alpha1.ListEntrySpec) { s.ListRef.Name = "" }, want: &rejection{field: "spec.listRef.name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			e := newEntry(tt.mutate)
			err := k8sClient.Create(ctx, e)
			checkResult(t, err, tt.want)
			if err == nil {
				t.Cleanup(func() { _ = k8sClient.Delete(ctx, e) })
			}
		})
	}
}

func TestListEntryImmutability(t *testing.T) {
	env.Require(t)

	tests := []struct {
		name   string
		mutate func(*v1alpha1.ListEntry)
		want   *rejection
	}{
		{name: "labels may change", mutate: func(e *v1alpha1.ListEntry) { e.Labels = map[string]string{"team": "a"} }},
		{name: "id is immutable", mutate: func(e *v1alpha1.ListEntry) { e.Spec.ID = "tenant-b" }, want: &rejection{"spec.id", "id is immutable"}},
		{name: "listRef is immutable", mutate: func(e *v1alpha1.ListEntry) { e.Spec.ListRef.Name = "deny-list" }, want: &rejection{"spec.listRef", "listRef is immutable"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			e := newEntry(nil)
			if err := k8sClient.Create(ctx, e); err != nil {
				t.Fatalf("create: %v", err)
			}
			t.Cleanup(func() { _ = k8sClient.Delete(ctx, e) })

			tt.mutate(e)
			checkResult(t, k8sClient.Update(ctx, e), tt.want)
		})
	}
}

func TestListEntryStatusSubresource(t *testing.T) {
	env.Require(t)
	ctx := context.Background()

	e := newEntry(nil)
	if err := k8sClient.Create(ctx, e); err != nil {
		t.Fatalf("create: %v", err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(ctx, e) })

	e.Status = v1alpha1.ListEntryStatus{
		ObservedGeneration: e.Generation,
		Conditions: []metav1.Condition{{
			Type: v1alpha1.ConditionSynced, Status: metav1.ConditionTrue,
			Reason: v1alpha1.ReasonAdded, Message: "tenant-a is on the list", LastTransitionTime: metav1.Now(),
		}},
	}
	if err := k8sClient.Status().Update(ctx, e); err != nil {
		t.Fatalf("update status: %v", err)
	}
	got := &v1alpha1.ListEntry{}
	if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(e), got); err != nil {
		t.Fatalf("get: %v", err)
	}
	if len(got.Status.Conditions) != 1 || got.Status.Conditions[0].Reason != v1alpha1.ReasonAdded {
		t.Errorf("status not stored: %+v", got.Status)
	}
}
