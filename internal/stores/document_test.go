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

package stores_test

import (
	"net/url"
	"testing"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/stores"
)

// TestURLDocument: what each kind of store reads out of a URL as its
// document, spelled out, so that a change of rule shows here first.
func TestURLDocument(t *testing.T) {
	t.Parallel()
	s3Auth := &v1alpha1.StoreAuth{AWS: &v1alpha1.AWSAuth{Region: "us-east-1"}}
	apiAuth := &v1alpha1.StoreAuth{AWS: &v1alpha1.AWSAuth{Region: "us-east-1", Service: "execute-api"}}
	tests := []struct {
		url  string
		auth *v1alpha1.StoreAuth
		keys []string
		want string
	}{
		{"https://my.dotted.bucket.s3.eu-west-1.amazonaws.com/a/b.json", nil, nil, "s3:aws:my.dotted.bucket/a/b.json"},
		{"https://s3.dualstack.eu-west-1.amazonaws.com/Bucket/a%2Fb.json", nil, nil, "s3:aws:bucket/a/b.json"},
		{"https://x.s3.s3.amazonaws.com/k", nil, nil, "s3:aws:x.s3/k"},
		{"https://b.s3-fips.dualstack.us-gov-west-1.amazonaws.com/k", nil, nil, "s3:aws-us-gov:b/k"},
		{"https://b.s3.cn-north-1.amazonaws.com.cn/k", nil, nil, "s3:aws-cn:b/k"},
		{"https://b.s3-accelerate.dualstack.amazonaws.com/k", nil, nil, "s3:aws:b/k"},
		{"https://ap-123456789012.s3-accesspoint.us-west-2.amazonaws.com/k", nil, nil, "s3-accesspoint:aws:us-west-2:ap-123456789012/k"},
		{"https://s3.eu-west-1.amazonaws.com/only-a-bucket", s3Auth, nil, "https://s3.eu-west-1.amazonaws.com/only-a-bucket"},
		{"https://storage.googleapis.com/b/dir//o.json?X-Goog-Signature=s", nil, nil, "gs:b/dir//o.json"},
		{"https://b.c.storage.googleapis.com/o.json", nil, nil, "gs:b.c/o.json"},
		{"https://acct-secondary.blob.core.windows.net/Lists/a/b.json?sv=1&sig=s", nil, nil, "azblob:AzureCloud:acct/lists/a/b.json"},
		{"https://acct.z12.blob.storage.azure.net/lists/b.json", nil, nil, "azblob:AzureCloud:acct/lists/b.json"},
		{"https://acct.blob.core.chinacloudapi.cn/b.json", nil, nil, "azblob:AzureChinaCloud:acct/$root/b.json"},
		{"http://127.0.0.1:10000/devstoreaccount1/lists/a%2Fb.json?sv=1&sig=s", nil, nil, "http://127.0.0.1:10000/devstoreaccount1/lists/a/b.json"},
		{"http://minio.local:09000/b/k.json", s3Auth, nil, "http://minio.local:9000/b/k.json"},
		{"https://api.example.com/lists/a%2Fb.json", apiAuth, nil, "https://api.example.com/lists/a%2Fb.json"},
		{"HTTP://[0:0:0:0:0:0:0:1]:080/a/./b/../c", nil, nil, "http://[::1]/a/c"},
		{"http://[::ffff:127.0.0.1]:8080/a/b/..", nil, nil, "http://127.0.0.1:8080/a/"},
		{"https://lists.example.com", nil, nil, "https://lists.example.com/"},
		{"https://lists.example.com/%7euser/%41", nil, nil, "https://lists.example.com/~user/A"},
		{"https://lists.example.com/v1?token=t&name=b&name=a&id=", nil, []string{"name", "id", "missing"}, "https://lists.example.com/v1?id=&name=a&name=b"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			u, err := url.Parse(tt.url)
			if err != nil {
				t.Fatal(err)
			}
			if got := stores.URLDocument(u, tt.auth, tt.keys); got != tt.want {
				t.Errorf("URLDocument = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestBackendDocuments: an IP set and an IAM policy are the same whatever
// the provider's endpoint that reaches them; a test server is another.
func TestBackendDocuments(t *testing.T) {
	t.Parallel()
	set := func(endpoint string) string {
		return stores.WAFv2Document(&v1alpha1.WAFv2IPSet{Region: "eu-west-1", Scope: v1alpha1.WAFv2ScopeRegional, Name: "n", ID: "abc", Endpoint: endpoint})
	}
	for _, e := range []string{"https://wafv2.eu-west-1.amazonaws.com", "https://wafv2-fips.eu-west-1.amazonaws.com/", "https://wafv2.eu-west-1.api.aws"} {
		if got := set(e); got != "wafv2:eu-west-1/REGIONAL/abc" {
			t.Errorf("IP set at %s: %q", e, got)
		}
	}
	if got := set("http://127.0.0.1:08081/"); got != "wafv2:eu-west-1/REGIONAL/abc@http://127.0.0.1:8081" {
		t.Errorf("IP set at a test server: %q", got)
	}
	policy := func(endpoint string) string {
		return stores.GCPIAMDocument(&v1alpha1.GCPIAMBinding{Resource: "//cloudresourcemanager.googleapis.com/projects/p", Role: "roles/viewer", Endpoint: endpoint})
	}
	if a, b := policy(""), policy("https://cloudresourcemanager.googleapis.com/"); a != b || a != "gcpiam:cloudresourcemanager.googleapis.com/projects/p" {
		t.Errorf("policy: %q and %q", a, b)
	}
	if got := policy("http://127.0.0.1:9/"); got != "gcpiam:cloudresourcemanager.googleapis.com/projects/p@http://127.0.0.1:9" {
		t.Errorf("policy at a test server: %q", got)
	}
}
