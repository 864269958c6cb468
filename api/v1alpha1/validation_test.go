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
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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

func newClusterList(mutate func(*v1alpha1.ExternalListSpec)) *v1alpha1.ClusterExternalList {
	l := &v1alpha1.ClusterExternalList{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "cxl-"},
		Spec: v1alpha1.ClusterExternalListSpec{
			ExternalListSpec: newList(mutate).Spec,
		},
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

// The messages of the rules on ExternalListSpec, as the API server answers
// them.
const (
	urlMsg           = "url must be an http or https URL"
	pointerMsg       = "itemsPointer must be empty or an RFC 6901 JSON pointer"
	intervalMsg      = "resyncInterval must be a duration of at least 10s"
	exactlyOneMsg    = "exactly one of url, urlFrom, wafv2 and gcpIAM must be set"
	insecureMsg      = "headersFrom and auth send secrets, which an http:// url would carry in clear text"
	wafv2AuthMsg     = "wafv2 needs auth.aws, and no other auth"
	gcpIAMAuthMsg    = "gcpIAM needs auth.gcp, and no other auth"
	noPointerMsg     = "itemsPointer must be empty with wafv2 or gcpIAM"
	noHeadersMsg     = "headersFrom is refused with wafv2 or gcpIAM"
	noCreateMsg      = "createIfMissing is refused with wafv2 or gcpIAM"
	noQueryKeysMsg   = "documentQueryKeys is refused with wafv2 or gcpIAM"
	wafv2InsecureMsg = "auth sends credentials, which an http:// wafv2.endpoint would carry in clear text"
	gcpInsecureMsg   = "auth sends credentials, which an http:// gcpIAM.endpoint would carry in clear text"
	endpointMsg      = "endpoint must be an http or https URL"
	cloudFrontMsg    = "an IP set of scope CLOUDFRONT lives in region us-east-1"
	resourceMsg      = "resource must be //cloudresourcemanager.googleapis.com/projects/P"
	roleMsg          = "role must be roles/NAME, projects/P/roles/NAME or organizations/O/roles/NAME"
)

// specTest is one spec the API server must accept (want nil) or refuse.
// mutate changes the spec newList starts from (an https url and nothing
// else).
type specTest struct {
	name   string
	mutate func(*v1alpha1.ExternalListSpec)
	want   *rejection
}

// all applies every f in turn, to build a spec from named parts.
func all(fs ...func(*v1alpha1.ExternalListSpec)) func(*v1alpha1.ExternalListSpec) {
	return func(s *v1alpha1.ExternalListSpec) {
		for _, f := range fs {
			f(s)
		}
	}
}

// Parts of the specs below.
var (
	plain = func(s *v1alpha1.ExternalListSpec) { s.URL = "http://lists.example.com/allow" }
	noURL = func(s *v1alpha1.ExternalListSpec) { s.URL = "" }
	url   = func(s *v1alpha1.ExternalListSpec) { s.URL = "https://lists.example.com/allow" }

	urlFrom = func(s *v1alpha1.ExternalListSpec) {
		s.URLFrom = &v1alpha1.URLSource{SecretKeyRef: v1alpha1.SecretKeySelector{Name: "sas", Key: "url"}}
	}
	headers = func(s *v1alpha1.ExternalListSpec) {
		s.HeadersFrom = &v1alpha1.HeadersSource{SecretRef: v1alpha1.SecretReference{Name: "auth"}}
	}
	insecure  = func(s *v1alpha1.ExternalListSpec) { s.AllowInsecureHTTP = true }
	queryKeys = func(keys ...string) func(*v1alpha1.ExternalListSpec) {
		return func(s *v1alpha1.ExternalListSpec) { s.DocumentQueryKeys = keys }
	}

	awsKeys = func(s *v1alpha1.ExternalListSpec) {
		s.Auth = &v1alpha1.StoreAuth{AWS: &v1alpha1.AWSAuth{Region: "us-east-1", SecretRef: &v1alpha1.SecretReference{Name: "aws"}}}
	}
	gcpKey = func(s *v1alpha1.ExternalListSpec) {
		s.Auth = &v1alpha1.StoreAuth{GCP: &v1alpha1.GCPAuth{SecretRef: &v1alpha1.SecretReference{Name: "gcp"}}}
	}
	azureKey = func(s *v1alpha1.ExternalListSpec) {
		s.Auth = &v1alpha1.StoreAuth{Azure: &v1alpha1.AzureAuth{SharedKey: &v1alpha1.AzureSharedKey{SecretRef: v1alpha1.SecretReference{Name: "az"}}}}
	}
	noAuth = func(s *v1alpha1.ExternalListSpec) { s.Auth = nil }

	// wafv2 is a valid list in a regional IP set: the set alone, no url,
	// AWS keys from a Secret.
	wafv2 = all(noURL, awsKeys, func(s *v1alpha1.ExternalListSpec) {
		s.WAFv2 = &v1alpha1.WAFv2IPSet{
			Region: "us-east-1", Scope: v1alpha1.WAFv2ScopeRegional,
			Name: "allow-list", ID: "a1b2c3d4-5678-90ab-cdef-0123456789ab",
		}
	})
	wafv2Endpoint = func(e string) func(*v1alpha1.ExternalListSpec) {
		return func(s *v1alpha1.ExternalListSpec) { s.WAFv2.Endpoint = e }
	}

	// gcpIAM is a valid list in the binding of roles/storage.objectViewer
	// on resource: the binding alone, no url, a service account key from a
	// Secret.
	gcpIAM = func(resource string) func(*v1alpha1.ExternalListSpec) {
		return all(noURL, gcpKey, func(s *v1alpha1.ExternalListSpec) {
			s.GCPIAM = &v1alpha1.GCPIAMBinding{Resource: resource, Role: "roles/storage.objectViewer"}
		})
	}
	project = gcpIAM("//cloudresourcemanager.googleapis.com/projects/my-project-42")
	gcpRole = func(r string) func(*v1alpha1.ExternalListSpec) {
		return func(s *v1alpha1.ExternalListSpec) { s.GCPIAM.Role = r }
	}
	gcpEndpoint = func(e string) func(*v1alpha1.ExternalListSpec) {
		return func(s *v1alpha1.ExternalListSpec) { s.GCPIAM.Endpoint = e }
	}
)

// specTests are the specs that ExternalList and ClusterExternalList (whose
// spec inlines ExternalListSpec) must both accept or refuse.
func specTests() []specTest {
	return []specTest{
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
		{name: "none of url, urlFrom, wafv2 and gcpIAM", mutate: noURL, want: &rejection{"spec", exactlyOneMsg}},
		{name: "urlFrom instead of url", mutate: all(noURL, urlFrom)},
		{name: "url and urlFrom", mutate: urlFrom, want: &rejection{"spec", exactlyOneMsg}},
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
		{name: "auth azure shared key", mutate: azureKey},
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
		{name: "http with headersFrom", mutate: all(plain, headers), want: &rejection{"spec", insecureMsg}},
		{name: "HTTP in capitals with headersFrom", mutate: all(headers, func(s *v1alpha1.ExternalListSpec) {
			s.URL = "HTTP://lists.example.com/allow"
		}), want: &rejection{"spec", insecureMsg}},
		{name: "http with aws keys", mutate: all(plain, func(s *v1alpha1.ExternalListSpec) {
			s.Auth = &v1alpha1.StoreAuth{AWS: &v1alpha1.AWSAuth{Region: "eu-west-1", SecretRef: &v1alpha1.SecretReference{Name: "aws"}}}
		}), want: &rejection{"spec", insecureMsg}},
		{name: "http with workload identity", mutate: all(plain, func(s *v1alpha1.ExternalListSpec) {
			s.Auth = &v1alpha1.StoreAuth{GCP: &v1alpha1.GCPAuth{}}
		}), want: &rejection{"spec", insecureMsg}},
		{name: "http with headersFrom, opted in", mutate: all(plain, headers, insecure)},
		{name: "https with headersFrom and auth", mutate: all(headers, func(s *v1alpha1.ExternalListSpec) {
			s.Auth = &v1alpha1.StoreAuth{GCP: &v1alpha1.GCPAuth{}}
		})},
		// A URL from a Secret is checked by the operator, which can read it.
		{name: "urlFrom with headersFrom", mutate: all(headers, noURL, urlFrom)},
		{name: "deletionPolicy Delete", mutate: func(s *v1alpha1.ExternalListSpec) { s.DeletionPolicy = v1alpha1.DeletionPolicyDelete }},
		{name: "deletionPolicy unknown", mutate: func(s *v1alpha1.ExternalListSpec) { s.DeletionPolicy = "Keep" }, want: &rejection{field: "spec.deletionPolicy"}},
		{name: "header secret without name", mutate: func(s *v1alpha1.ExternalListSpec) {
			s.HeadersFrom = &v1alpha1.HeadersSource{}
		}, want: &rejection{field: "spec.headersFrom.secretRef.name"}},

		// spec.wafv2: an AWS WAF IP set.
		{name: "wafv2 regional in us-east-1", mutate: wafv2},
		{name: "wafv2 regional in eu-west-1", mutate: all(wafv2, func(s *v1alpha1.ExternalListSpec) { s.WAFv2.Region = "eu-west-1" })},
		{name: "wafv2 for CloudFront in us-east-1", mutate: all(wafv2, func(s *v1alpha1.ExternalListSpec) { s.WAFv2.Scope = v1alpha1.WAFv2ScopeCloudFront })},
		{name: "wafv2 for CloudFront outside us-east-1", mutate: all(wafv2, func(s *v1alpha1.ExternalListSpec) {
			s.WAFv2.Scope = v1alpha1.WAFv2ScopeCloudFront
			s.WAFv2.Region = "eu-west-1"
		}), want: &rejection{"spec.wafv2", cloudFrontMsg}},
		{name: "wafv2 scope unknown", mutate: all(wafv2, func(s *v1alpha1.ExternalListSpec) { s.WAFv2.Scope = "GLOBAL" }), want: &rejection{field: "spec.wafv2.scope"}},
		{name: "wafv2 scope in lower case", mutate: all(wafv2, func(s *v1alpha1.ExternalListSpec) { s.WAFv2.Scope = "regional" }), want: &rejection{field: "spec.wafv2.scope"}},
		{name: "wafv2 id empty", mutate: all(wafv2, func(s *v1alpha1.ExternalListSpec) { s.WAFv2.ID = "" }), want: &rejection{field: "spec.wafv2.id"}},
		{name: "wafv2 id not hex", mutate: all(wafv2, func(s *v1alpha1.ExternalListSpec) { s.WAFv2.ID = "set/../other" }), want: &rejection{field: "spec.wafv2.id"}},
		{name: "wafv2 name with a space", mutate: all(wafv2, func(s *v1alpha1.ExternalListSpec) { s.WAFv2.Name = "allow list" }), want: &rejection{field: "spec.wafv2.name"}},
		{name: "wafv2 and url", mutate: all(wafv2, url), want: &rejection{"spec", exactlyOneMsg}},
		{name: "wafv2 and urlFrom", mutate: all(wafv2, urlFrom), want: &rejection{"spec", exactlyOneMsg}},
		{name: "wafv2 and gcpIAM", mutate: all(wafv2, func(s *v1alpha1.ExternalListSpec) {
			s.GCPIAM = &v1alpha1.GCPIAMBinding{Resource: "//cloudresourcemanager.googleapis.com/projects/p", Role: "roles/viewer"}
		}), want: &rejection{"spec", exactlyOneMsg}},
		{name: "wafv2 with ambient AWS credentials", mutate: all(wafv2, func(s *v1alpha1.ExternalListSpec) { s.Auth.AWS.SecretRef = nil })},
		{name: "wafv2 without auth", mutate: all(wafv2, noAuth), want: &rejection{"spec", wafv2AuthMsg}},
		{name: "wafv2 with empty auth", mutate: all(wafv2, func(s *v1alpha1.ExternalListSpec) { s.Auth = &v1alpha1.StoreAuth{} }), want: &rejection{"spec", wafv2AuthMsg}},
		{name: "wafv2 with auth.gcp", mutate: all(wafv2, gcpKey), want: &rejection{"spec", wafv2AuthMsg}},
		{name: "wafv2 with auth.azure", mutate: all(wafv2, azureKey), want: &rejection{"spec", wafv2AuthMsg}},
		{name: "wafv2 with auth.aws and auth.gcp", mutate: all(wafv2, func(s *v1alpha1.ExternalListSpec) { s.Auth.GCP = &v1alpha1.GCPAuth{} }), want: &rejection{"spec", wafv2AuthMsg}},
		{name: "wafv2 with itemsPointer", mutate: all(wafv2, func(s *v1alpha1.ExternalListSpec) { s.ItemsPointer = "/items" }), want: &rejection{"spec", noPointerMsg}},
		{name: "wafv2 with headersFrom", mutate: all(wafv2, headers), want: &rejection{"spec", noHeadersMsg}},
		{name: "wafv2 with createIfMissing", mutate: all(wafv2, func(s *v1alpha1.ExternalListSpec) { s.CreateIfMissing = true }), want: &rejection{"spec", noCreateMsg}},
		{name: "wafv2 with documentQueryKeys", mutate: all(wafv2, queryKeys("name")), want: &rejection{"spec", noQueryKeysMsg}},
		{name: "documentQueryKeys", mutate: queryKeys("name", "list[id]", "a.b_c~d-e")},
		{name: "documentQueryKeys with an empty key", mutate: queryKeys(""), want: &rejection{field: "spec.documentQueryKeys[0]"}},
		{name: "documentQueryKeys with a key that is not a query key", mutate: queryKeys("a=b"), want: &rejection{field: "spec.documentQueryKeys[0]"}},
		{name: "documentQueryKeys with a key twice", mutate: queryKeys("name", "name"), want: &rejection{field: "spec.documentQueryKeys[1]"}},
		{name: "documentQueryKeys with nine keys", mutate: queryKeys("a", "b", "c", "d", "e", "f", "g", "h", "i"), want: &rejection{field: "spec.documentQueryKeys"}},
		{name: "wafv2 with every other field", mutate: all(wafv2, insecure, func(s *v1alpha1.ExternalListSpec) {
			s.Mode = v1alpha1.ListModeExclusive
			s.ResyncInterval = duration("1m")
			s.DeletionPolicy = v1alpha1.DeletionPolicyDelete
		})},
		{name: "wafv2 https endpoint", mutate: all(wafv2, wafv2Endpoint("https://wafv2.internal.example.com"))},
		{name: "wafv2 http endpoint", mutate: all(wafv2, wafv2Endpoint("http://127.0.0.1:4566")), want: &rejection{"spec", wafv2InsecureMsg}},
		{name: "wafv2 HTTP endpoint in capitals", mutate: all(wafv2, wafv2Endpoint("HTTP://127.0.0.1:4566")), want: &rejection{"spec", wafv2InsecureMsg}},
		{name: "wafv2 http endpoint, opted in", mutate: all(wafv2, wafv2Endpoint("http://127.0.0.1:4566"), insecure)},
		{name: "wafv2 http endpoint with ambient credentials", mutate: all(wafv2, wafv2Endpoint("http://127.0.0.1:4566"), func(s *v1alpha1.ExternalListSpec) {
			s.Auth.AWS.SecretRef = nil
		}), want: &rejection{"spec", wafv2InsecureMsg}},
		{name: "wafv2 endpoint not a URL", mutate: all(wafv2, wafv2Endpoint("wafv2.internal.example.com")), want: &rejection{"spec.wafv2.endpoint", endpointMsg}},

		// spec.gcpIAM: the binding of a role in a Google Cloud IAM policy.
		{name: "gcpIAM on a project", mutate: project},
		{name: "gcpIAM on a folder", mutate: gcpIAM("//cloudresourcemanager.googleapis.com/folders/123456789012")},
		{name: "gcpIAM on an organization", mutate: gcpIAM("//cloudresourcemanager.googleapis.com/organizations/123456789012")},
		{name: "gcpIAM on a bucket", mutate: gcpIAM("//storage.googleapis.com/projects/_/buckets/my-bucket.example")},
		{name: "gcpIAM on a compute instance", mutate: gcpIAM("//compute.googleapis.com/projects/p/zones/europe-west1-b/instances/vm"), want: &rejection{"spec.gcpIAM.resource", resourceMsg}},
		{name: "gcpIAM resource without //", mutate: gcpIAM("cloudresourcemanager.googleapis.com/projects/p"), want: &rejection{"spec.gcpIAM.resource", resourceMsg}},
		{name: "gcpIAM resource as a URL", mutate: gcpIAM("https://cloudresourcemanager.googleapis.com/v3/projects/p"), want: &rejection{"spec.gcpIAM.resource", resourceMsg}},
		{name: "gcpIAM bucket of a named project", mutate: gcpIAM("//storage.googleapis.com/projects/p/buckets/b"), want: &rejection{"spec.gcpIAM.resource", resourceMsg}},
		{name: "gcpIAM project role", mutate: all(project, gcpRole("projects/my-project-42/roles/listReader"))},
		{name: "gcpIAM organization role", mutate: all(project, gcpRole("organizations/123456789012/roles/listReader"))},
		{name: "gcpIAM role without prefix", mutate: all(project, gcpRole("viewer")), want: &rejection{"spec.gcpIAM.role", roleMsg}},
		{name: "gcpIAM role without name", mutate: all(project, gcpRole("roles/")), want: &rejection{"spec.gcpIAM.role", roleMsg}},
		{name: "gcpIAM role of a folder", mutate: all(project, gcpRole("folders/1/roles/custom")), want: &rejection{"spec.gcpIAM.role", roleMsg}},
		{name: "gcpIAM role empty", mutate: all(project, gcpRole("")), want: &rejection{field: "spec.gcpIAM.role"}},
		{name: "gcpIAM with workload identity", mutate: all(project, func(s *v1alpha1.ExternalListSpec) { s.Auth.GCP.SecretRef = nil })},
		{name: "gcpIAM without auth", mutate: all(project, noAuth), want: &rejection{"spec", gcpIAMAuthMsg}},
		{name: "gcpIAM with auth.aws", mutate: all(project, awsKeys), want: &rejection{"spec", gcpIAMAuthMsg}},
		{name: "gcpIAM with auth.azure", mutate: all(project, azureKey), want: &rejection{"spec", gcpIAMAuthMsg}},
		{name: "gcpIAM and url", mutate: all(project, url), want: &rejection{"spec", exactlyOneMsg}},
		{name: "gcpIAM with itemsPointer", mutate: all(project, func(s *v1alpha1.ExternalListSpec) { s.ItemsPointer = "/bindings" }), want: &rejection{"spec", noPointerMsg}},
		{name: "gcpIAM with headersFrom", mutate: all(project, headers), want: &rejection{"spec", noHeadersMsg}},
		{name: "gcpIAM with createIfMissing", mutate: all(project, func(s *v1alpha1.ExternalListSpec) { s.CreateIfMissing = true }), want: &rejection{"spec", noCreateMsg}},
		{name: "gcpIAM https endpoint", mutate: all(project, gcpEndpoint("https://iam.internal.example.com/"))},
		{name: "gcpIAM http endpoint", mutate: all(project, gcpEndpoint("http://127.0.0.1:8085/")), want: &rejection{"spec", gcpInsecureMsg}},
		{name: "gcpIAM http endpoint, opted in", mutate: all(project, gcpEndpoint("http://127.0.0.1:8085/"), insecure)},
		{name: "gcpIAM endpoint without host", mutate: all(project, gcpEndpoint("https://")), want: &rejection{"spec.gcpIAM.endpoint", endpointMsg}},
	}
}

func TestExternalListValidation(t *testing.T) {
	env.Require(t)

	for _, tt := range specTests() {
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

// TestClusterExternalListValidation checks that the ClusterExternalList CRD,
// generated separately, carries every rule of the spec it inlines.
func TestClusterExternalListValidation(t *testing.T) {
	env.Require(t)

	for _, tt := range specTests() {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			l := newClusterList(tt.mutate)
			err := k8sClient.Create(ctx, l)
			checkResult(t, err, tt.want)
			if err == nil {
				t.Cleanup(func() { _ = k8sClient.Delete(ctx, l) })
			}
		})
	}
}

// TestWAFv2RequiredFields sends specs whose IP set lacks a required field
// altogether, which a typed client cannot do (it sends "" instead).
func TestWAFv2RequiredFields(t *testing.T) {
	env.Require(t)

	for _, field := range []string{"region", "scope", "name", "id"} {
		t.Run(field, func(t *testing.T) {
			ctx := context.Background()
			set := map[string]any{
				"region": "us-east-1", "scope": "REGIONAL",
				"name": "allow-list", "id": "a1b2c3d4-5678-90ab-cdef-0123456789ab",
			}
			delete(set, field)
			u := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": v1alpha1.GroupVersion.String(), "kind": "ExternalList",
				"metadata": map[string]any{"generateName": "xl-", "namespace": testNamespace},
				"spec": map[string]any{
					"wafv2": set,
					"auth":  map[string]any{"aws": map[string]any{"region": "us-east-1", "secretRef": map[string]any{"name": "aws"}}},
				},
			}}
			err := k8sClient.Create(ctx, u)
			checkResult(t, err, &rejection{field: "spec.wafv2." + field, message: "Required value"})
			if err == nil {
				t.Cleanup(func() { _ = k8sClient.Delete(ctx, u) })
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
		{name: "id with an Arabic letter mark", mutate: func(s *v1alpha1.ListEntrySpec) { s.ID = "adm\u061cin" }, want: &rejection{field: "spec.id", message: "printable"}},
		{name: "id with a line separator", mutate: func(s *v1alpha1.ListEntrySpec) { s.ID = "adm\u2028in" }, want: &rejection{field: "spec.id", message: "printable"}},
		{name: "id with a paragraph separator", mutate: func(s *v1alpha1.ListEntrySpec) { s.ID = "adm\u2029in" }, want: &rejection{field: "spec.id", message: "printable"}},
		{name: "id with a zero-width space", mutate: func(s *v1alpha1.ListEntrySpec) { s.ID = "adm\u200bin" }, want: &rejection{field: "spec.id", message: "printable"}},
		{name: "id with a zero-width joiner", mutate: func(s *v1alpha1.ListEntrySpec) { s.ID = "adm\u200din" }, want: &rejection{field: "spec.id", message: "printable"}},
		{name: "id with a byte order mark", mutate: func(s *v1alpha1.ListEntrySpec) { s.ID = "adm\ufeffin" }, want: &rejection{field: "spec.id", message: "printable"}},
		{name: "id with a tag character", mutate: func(s *v1alpha1.ListEntrySpec) { s.ID = "adm\U000E0041in" }, want: &rejection{field: "spec.id", message: "printable"}},
		{name: "id with a word joiner", mutate: func(s *v1alpha1.ListEntrySpec) { s.ID = "adm\u2060in" }, want: &rejection{field: "spec.id", message: "printable"}},
		{name: "id with a soft hyphen", mutate: func(s *v1alpha1.ListEntrySpec) { s.ID = "adm\u00adin" }, want: &rejection{field: "spec.id", message: "printable"}},
		{name: "id with accents and CJK", mutate: func(s *v1alpha1.ListEntrySpec) { s.ID = "café-東京" }},
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
