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

package controller

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// Spellings of lists for TestDocumentIdentity.
func atURL(raw string, mutate ...func(*v1alpha1.ExternalListSpec)) v1alpha1.ExternalListSpec {
	s := v1alpha1.ExternalListSpec{URL: raw}
	for _, m := range mutate {
		m(&s)
	}
	return s
}

func withAWS(region string) func(*v1alpha1.ExternalListSpec) {
	return func(s *v1alpha1.ExternalListSpec) {
		s.Auth = &v1alpha1.StoreAuth{AWS: &v1alpha1.AWSAuth{Region: region}}
	}
}

func withGCP(s *v1alpha1.ExternalListSpec) { s.Auth = &v1alpha1.StoreAuth{GCP: &v1alpha1.GCPAuth{}} }

func withAzure(s *v1alpha1.ExternalListSpec) {
	s.Auth = &v1alpha1.StoreAuth{Azure: &v1alpha1.AzureAuth{WorkloadIdentity: &v1alpha1.AzureWorkloadIdentity{}}}
}

func withPointer(p string) func(*v1alpha1.ExternalListSpec) {
	return func(s *v1alpha1.ExternalListSpec) { s.ItemsPointer = p }
}

func withQueryKeys(keys ...string) func(*v1alpha1.ExternalListSpec) {
	return func(s *v1alpha1.ExternalListSpec) { s.DocumentQueryKeys = keys }
}

func wafAt(region, id, endpoint string) v1alpha1.ExternalListSpec {
	return v1alpha1.ExternalListSpec{
		WAFv2: &v1alpha1.WAFv2IPSet{Region: region, Scope: v1alpha1.WAFv2ScopeRegional, Name: "allow", ID: id, Endpoint: endpoint},
		Auth:  &v1alpha1.StoreAuth{AWS: &v1alpha1.AWSAuth{Region: region}},
	}
}

func iamAt(resource, role, endpoint string) v1alpha1.ExternalListSpec {
	return v1alpha1.ExternalListSpec{
		GCPIAM: &v1alpha1.GCPIAMBinding{Resource: resource, Role: role, Endpoint: endpoint},
		Auth:   &v1alpha1.StoreAuth{GCP: &v1alpha1.GCPAuth{}},
	}
}

// TestDocumentIdentity: two lists share a claim exactly when their
// backend says they name one document (and one items pointer or role),
// however the URL or endpoint spells it. One object spelled two ways is
// one claim (a split claim has two writers and two reference counts, and
// loses IDs); two objects are two claims (a merged one leaves the younger
// list DocumentInUse).
func TestDocumentIdentity(t *testing.T) {
	t.Parallel()
	const waf = "a1b2c3d4-5678-90ab-cdef-EXAMPLE11111"
	tests := []struct {
		name string
		a, b v1alpha1.ExternalListSpec
		same bool
	}{
		// One object, two spellings.
		{"S3 virtual-hosted and path style", atURL("https://team-lists.s3.eu-west-1.amazonaws.com/allow/ips.json", withAWS("eu-west-1")),
			atURL("https://s3.eu-west-1.amazonaws.com/team-lists/allow/ips.json", withAWS("eu-west-1")), true},
		{"S3 regional and dual-stack", atURL("https://team-lists.s3.eu-west-1.amazonaws.com/ips.json", withAWS("eu-west-1")),
			atURL("https://team-lists.s3.dualstack.eu-west-1.amazonaws.com/ips.json", withAWS("eu-west-1")), true},
		{"S3 us-east-1 global and regional", atURL("https://team-lists.s3.amazonaws.com/ips.json", withAWS("us-east-1")),
			atURL("https://team-lists.s3.us-east-1.amazonaws.com/ips.json", withAWS("us-east-1")), true},
		{"S3 global path style and regional virtual-hosted", atURL("https://s3.amazonaws.com/team-lists/ips.json", withAWS("us-east-1")),
			atURL("https://team-lists.s3.us-east-1.amazonaws.com/ips.json", withAWS("us-east-1")), true},
		{"S3 FIPS and legacy s3-region", atURL("https://team-lists.s3-fips.us-west-2.amazonaws.com/ips.json", withAWS("us-west-2")),
			atURL("https://s3-us-west-2.amazonaws.com/team-lists/ips.json", withAWS("us-west-2")), true},
		{"S3 signed, and presigned without spec.auth", atURL("https://team-lists.s3.eu-west-1.amazonaws.com/ips.json", withAWS("eu-west-1")),
			atURL("https://s3.eu-west-1.amazonaws.com/team-lists/ips.json?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=abc"), true},
		{"S3 key with an encoded slash", atURL("https://team-lists.s3.eu-west-1.amazonaws.com/a/b.json", withAWS("eu-west-1")),
			atURL("https://team-lists.s3.eu-west-1.amazonaws.com/a%2Fb.json", withAWS("eu-west-1")), true},
		{"S3 at a custom endpoint, path style", atURL("http://127.0.0.1:9000/team-lists/ips.json", withAWS("us-east-1")),
			atURL("http://127.0.0.1:9000/team-lists/ips.json?X-Amz-Signature=abc"), true},
		{"GCS path and virtual-hosted style", atURL("https://storage.googleapis.com/team-lists/allow/ips.json", withGCP),
			atURL("https://team-lists.storage.googleapis.com/allow/ips.json", withGCP), true},
		{"GCS signed URL without spec.auth", atURL("https://storage.googleapis.com/team-lists/ips.json", withGCP),
			atURL("https://team-lists.storage.googleapis.com/ips.json?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Signature=abc"), true},
		{"Azure with workload identity and a SAS URL", atURL("https://teamlists.blob.core.windows.net/lists/ips.json", withAzure),
			atURL("https://TeamLists.blob.core.windows.net/lists/ips.json?sv=2021-12-02&sig=abc"), true},
		{"Azurite path style, two SAS tokens", atURL("http://127.0.0.1:10000/devstoreaccount1/lists/ips.json?sv=2021-12-02&sig=abc"),
			atURL("http://127.0.0.1:10000/devstoreaccount1/lists/ips.json?sv=2021-12-02&sig=def"), true},
		{"IPv6 loopback, short and long", atURL("http://[::1]:8080/lists/allow"), atURL("http://[0:0:0:0:0:0:0:1]:8080/lists/allow"), true},
		{"port with a leading zero", atURL("http://lists.example.com:080/allow"), atURL("http://lists.example.com/allow"), true},
		{"port 08080 and 8080", atURL("http://127.0.0.1:08080/allow"), atURL("http://127.0.0.1:8080/allow"), true},
		{"WAFv2 at the region's own endpoint", wafAt("eu-west-1", waf, "https://wafv2.eu-west-1.amazonaws.com"), wafAt("eu-west-1", waf, ""), true},
		{"WAFv2 at the region's FIPS endpoint", wafAt("us-east-1", waf, "https://wafv2-fips.us-east-1.amazonaws.com/"), wafAt("us-east-1", waf, ""), true},
		{"IAM at Resource Manager's own endpoint", iamAt("//cloudresourcemanager.googleapis.com/projects/p1", "roles/viewer", "https://cloudresourcemanager.googleapis.com/"),
			iamAt("//cloudresourcemanager.googleapis.com/projects/p1", "roles/viewer", ""), true},
		{"items pointer /lists/+0 and /lists/0", atURL("https://lists.example.com/doc", withPointer("/lists/+0")),
			atURL("https://lists.example.com/doc", withPointer("/lists/0")), true},
		{"items pointer /a~1b/-0 and /a~1b/0", atURL("https://lists.example.com/doc", withPointer("/a~1b/-0")),
			atURL("https://lists.example.com/doc", withPointer("/a~1b/0")), true},
		{"a token in the query", atURL("https://lists.example.com/doc?token=a", withQueryKeys("name")),
			atURL("https://lists.example.com/doc?token=b", withQueryKeys("name")), true},
		{"the selecting query key among others, in another order", atURL("https://lists.example.com/doc?name=allow&token=a", withQueryKeys("name")),
			atURL("https://lists.example.com/doc?token=b&name=allow", withQueryKeys("name")), true},

		// Two objects.
		{"a query parameter the user names", atURL("https://lists.example.com/doc?name=allow", withQueryKeys("name")),
			atURL("https://lists.example.com/doc?name=deny", withQueryKeys("name")), false},
		{"S3 keys a/b and a//b", atURL("https://team-lists.s3.eu-west-1.amazonaws.com/a/b", withAWS("eu-west-1")),
			atURL("https://team-lists.s3.eu-west-1.amazonaws.com/a//b", withAWS("eu-west-1")), false},
		{"HTTP paths a/b and a//b", atURL("https://lists.example.com/a/b"), atURL("https://lists.example.com/a//b"), false},
		{"HTTP path with an encoded slash", atURL("https://lists.example.com/lists/a%2Fb"), atURL("https://lists.example.com/lists/a/b"), false},
		{"S3 two buckets", atURL("https://s3.eu-west-1.amazonaws.com/team-a/ips.json", withAWS("eu-west-1")),
			atURL("https://s3.eu-west-1.amazonaws.com/team-b/ips.json", withAWS("eu-west-1")), false},
		{"S3 custom endpoints on two ports", atURL("http://127.0.0.1:9000/b/ips.json", withAWS("us-east-1")),
			atURL("http://127.0.0.1:9001/b/ips.json", withAWS("us-east-1")), false},
		{"GCS two objects", atURL("https://storage.googleapis.com/b/allow.json", withGCP), atURL("https://storage.googleapis.com/b/deny.json", withGCP), false},
		{"Azure two accounts", atURL("https://teama.blob.core.windows.net/lists/ips.json", withAzure),
			atURL("https://teamb.blob.core.windows.net/lists/ips.json", withAzure), false},
		{"WAFv2 two regions", wafAt("eu-west-1", waf, ""), wafAt("eu-west-2", waf, ""), false},
		{"WAFv2 two test servers", wafAt("us-east-1", waf, "http://127.0.0.1:8081"), wafAt("us-east-1", waf, "http://127.0.0.1:8082"), false},
		{"IAM two roles of one policy", iamAt("//cloudresourcemanager.googleapis.com/projects/p1", "roles/viewer", ""),
			iamAt("//cloudresourcemanager.googleapis.com/projects/p1", "roles/editor", ""), false},
		{"two items pointers", atURL("https://lists.example.com/doc", withPointer("/lists/0")),
			atURL("https://lists.example.com/doc", withPointer("/lists/1")), false},
		{"http and https", atURL("http://lists.example.com/doc"), atURL("https://lists.example.com/doc"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := ClaimKey(&v1alpha1.ExternalList{Spec: tt.a})
			b := ClaimKey(&v1alpha1.ExternalList{Spec: tt.b})
			if a == "" || b == "" {
				t.Fatalf("no claim key: %q, %q", a, b)
			}
			if (a == b) != tt.same {
				t.Errorf("same claim = %t, want %t", a == b, tt.same)
			}
			for _, spec := range []v1alpha1.ExternalListSpec{tt.a, tt.b} {
				doc := DocumentOf(&v1alpha1.ExternalList{Spec: spec})
				if strings.Contains(doc, "amazonaws") || strings.Contains(doc, "team") {
					t.Errorf("the document ID %q shows where the list lives", doc)
				}
			}
		})
	}
}

// TestTwoSpellingsOneClaim: two ExternalLists name one document and one
// array in it, spelled two ways (a port with a leading zero, an array
// index with a plus sign). They are one claim: the younger list is
// DocumentInUse and says why, and its entry's ID is never written.
func TestTwoSpellingsOneClaim(t *testing.T) {
	t.Parallel()
	requireEnv(t)
	ns := newNamespace(t)
	startManager(t, managerConfig{namespace: ns})
	lists := newFakeServer(t)
	setDoc(t, lists.srv, "/spelled", map[string]any{"lists": []any{[]string{"foreign"}}})
	u, err := url.Parse(lists.url)
	if err != nil {
		t.Fatal(err)
	}

	first := newExternalList(ns, "first", lists.url+"/spelled", withPointer("/lists/0"))
	create(t, first)
	waitCondition(t, first, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	nextSecond(t) // the claim goes to the oldest, by creation time in seconds
	second := newExternalList(ns, "second", "http://"+u.Hostname()+":0"+u.Port()+"/spelled", withPointer("/lists/+0"))
	create(t, second)
	c := waitCondition(t, second, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse, waitTimeout)
	if !strings.Contains(c.Message, `ExternalList "first"`) || !strings.Contains(c.Message, "spellings") {
		t.Errorf("DocumentInUse message %q: want it to name the holder and say that two spellings of one document are one", c.Message)
	}

	mine := newListEntry(ns, "mine", "first", "tenant-1")
	theirs := newListEntry(ns, "theirs", "second", "tenant-2")
	create(t, mine)
	create(t, theirs)
	waitCondition(t, mine, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	waitCondition(t, theirs, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse, waitTimeout)
	if got := mustDocItems(t, lists.srv, "/spelled", "/lists/0"); !slices.Equal(got, []string{"foreign", "tenant-1"}) {
		t.Errorf("the document holds %v, want only the holder's entry's ID beside the foreign one", got)
	}
}

// TestDocumentQueryKeysSelectDocuments: a server that serves two lists at
// one path, selected by ?name=. Two lists that name the parameter in
// spec.documentQueryKeys are two documents, both Ready, each written with
// its own entries; a third naming one of them with another token in the
// query is that document's second list, DocumentInUse.
func TestDocumentQueryKeysSelectDocuments(t *testing.T) {
	t.Parallel()
	requireEnv(t)
	ns := newNamespace(t)
	startManager(t, managerConfig{namespace: ns})
	lists := newFakeServer(t)
	byName := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = r.Clone(r.Context())
		r.URL.Path, r.URL.RawPath = "/by-name/"+r.URL.Query().Get("name"), ""
		r.URL.RawQuery = ""
		lists.srv.ServeHTTP(w, r)
	}))
	t.Cleanup(byName.Close)
	setDoc(t, lists.srv, "/by-name/allow", []string{})
	setDoc(t, lists.srv, "/by-name/deny", []string{})

	allow := newExternalList(ns, "allow", byName.URL+"/v1/list?name=allow&token=a", withQueryKeys("name"))
	deny := newExternalList(ns, "deny", byName.URL+"/v1/list?token=b&name=deny", withQueryKeys("name"))
	create(t, allow)
	create(t, deny)
	waitCondition(t, allow, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	waitCondition(t, deny, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	a, d := newListEntry(ns, "a", "allow", "10.0.0.1"), newListEntry(ns, "d", "deny", "10.0.0.2")
	create(t, a)
	create(t, d)
	waitCondition(t, a, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	waitCondition(t, d, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	if got := mustDocItems(t, lists.srv, "/by-name/allow", ""); !slices.Equal(got, []string{"10.0.0.1"}) {
		t.Errorf("allow holds %v", got)
	}
	if got := mustDocItems(t, lists.srv, "/by-name/deny", ""); !slices.Equal(got, []string{"10.0.0.2"}) {
		t.Errorf("deny holds %v", got)
	}

	nextSecond(t)
	again := newExternalList(ns, "allow-again", byName.URL+"/v1/list?token=c&name=allow", withQueryKeys("name"))
	create(t, again)
	waitCondition(t, again, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse, waitTimeout)
}
