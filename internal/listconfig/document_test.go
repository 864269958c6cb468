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

package listconfig

import (
	"strings"
	"testing"

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
