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
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/wafv2"

	"github.com/listkeeper/listkeeper/internal/stores"
)

// TestProviderEndpoints: the hosts that get the operator's identity
// without the operator naming them are the providers' own, over https.
func TestProviderEndpoints(t *testing.T) {
	s3EU, s3US, s3CN := stores.S3Endpoint("eu-west-1"), stores.S3Endpoint("us-east-1"), stores.S3Endpoint("cn-north-1")
	none := stores.Policy{Ambient: true}
	for _, tc := range []struct {
		url      string
		endpoint func(string) bool
		want     bool
	}{
		// Amazon S3, region eu-west-1.
		{"https://s3.eu-west-1.amazonaws.com/bucket/l.json", s3EU, true},
		{"https://bucket.s3.eu-west-1.amazonaws.com/l.json", s3EU, true},
		{"https://my.dotted.bucket.s3.eu-west-1.amazonaws.com/l.json", s3EU, true},
		{"https://bucket.s3.dualstack.eu-west-1.amazonaws.com/l.json", s3EU, true},
		{"https://bucket.s3-fips.eu-west-1.amazonaws.com/l.json", s3EU, true},
		{"https://bucket.s3-fips.dualstack.eu-west-1.amazonaws.com/l.json", s3EU, true},
		{"https://ap-123456789012.s3-accesspoint.eu-west-1.amazonaws.com/l.json", s3EU, true},
		{"https://bucket.s3-eu-west-1.amazonaws.com/l.json", s3EU, true},
		{"https://S3.EU-WEST-1.AMAZONAWS.COM./bucket/l.json", s3EU, true},
		{"https://s3.eu-west-1.amazonaws.com:443/bucket/l.json", s3EU, true},
		{"http://s3.eu-west-1.amazonaws.com/bucket/l.json", s3EU, false},  // plain http
		{"https://s3.eu-west-2.amazonaws.com/bucket/l.json", s3EU, false}, // another region
		{"https://s3.amazonaws.com/bucket/l.json", s3EU, false},           // global: us-east-1 only
		{"https://bucket.s3-website-eu-west-1.amazonaws.com/l.json", s3EU, false},
		{"https://abc123.execute-api.eu-west-1.amazonaws.com/l.json", s3EU, false},
		{"https://s3.eu-west-1.amazonaws.com.evil.example/l.json", s3EU, false},
		{"https://evil-s3.eu-west-1.amazonaws.com/l.json", s3EU, false},
		{"https://ec2-1-2-3-4.eu-west-1.compute.amazonaws.com/l.json", s3EU, false},
		// us-east-1 keeps the legacy global endpoint.
		{"https://s3.amazonaws.com/bucket/l.json", s3US, true},
		{"https://bucket.s3.amazonaws.com/l.json", s3US, true},
		{"https://s3.us-east-1.amazonaws.com/bucket/l.json", s3US, true},
		{"https://s3-external-1.amazonaws.com/bucket/l.json", s3US, true},
		// China is a partition of its own.
		{"https://bucket.s3.cn-north-1.amazonaws.com.cn/l.json", s3CN, true},
		{"https://bucket.s3.cn-north-1.amazonaws.com/l.json", s3CN, false},
		// A region that is not one widens nothing.
		{"https://s3.x.amazonaws.com/l.json", stores.S3Endpoint("x"), false},
		{"https://s3.execute-api.us-east-1.amazonaws.com/l.json", stores.S3Endpoint("execute-api.us-east-1"), false},
		// Cloud Storage.
		{"https://storage.googleapis.com/bucket/l.json", stores.GCSEndpoint, true},
		{"https://bucket.storage.googleapis.com/l.json", stores.GCSEndpoint, true},
		{"https://www.example.com.storage.googleapis.com/l.json", stores.GCSEndpoint, true},
		{"http://storage.googleapis.com/bucket/l.json", stores.GCSEndpoint, false},
		{"https://storage.googleapis.com.evil.example/bucket/l.json", stores.GCSEndpoint, false},
		{"https://evilstorage.googleapis.com/bucket/l.json", stores.GCSEndpoint, false},
		{"https://oauth2.googleapis.com/token", stores.GCSEndpoint, false},
		// The APIs of IAM policies: their two default hosts, nothing else.
		{"https://cloudresourcemanager.googleapis.com/", stores.GCPIAMEndpoint, true},
		{"https://storage.googleapis.com/", stores.GCPIAMEndpoint, true},
		{"https://CloudResourceManager.googleapis.com./", stores.GCPIAMEndpoint, true},
		{"http://cloudresourcemanager.googleapis.com/", stores.GCPIAMEndpoint, false},
		{"https://bucket.storage.googleapis.com/", stores.GCPIAMEndpoint, false},
		{"https://iam.googleapis.com/", stores.GCPIAMEndpoint, false},
		{"https://cloudresourcemanager.googleapis.com.evil.example/", stores.GCPIAMEndpoint, false},
		{"https://oauth2.googleapis.com/token", stores.GCPIAMEndpoint, false},
		// Azure Blob Storage.
		{"https://account.blob.core.windows.net/lists/l.json", stores.BlobEndpoint, true},
		{"https://account-secondary.blob.core.windows.net/lists/l.json", stores.BlobEndpoint, true},
		{"https://account.blob.core.chinacloudapi.cn/lists/l.json", stores.BlobEndpoint, true},
		{"https://account.blob.core.usgovcloudapi.net/lists/l.json", stores.BlobEndpoint, true},
		{"https://account.z17.blob.storage.azure.net/lists/l.json", stores.BlobEndpoint, true},
		{"http://account.blob.core.windows.net/lists/l.json", stores.BlobEndpoint, false},
		{"https://account.web.core.windows.net/l.json", stores.BlobEndpoint, false},
		{"https://a.b.blob.core.windows.net/lists/l.json", stores.BlobEndpoint, false},
		{"https://account.blob.core.windows.net.evil.example/lists/l.json", stores.BlobEndpoint, false},
		{"https://account.azurewebsites.net/l.json", stores.BlobEndpoint, false},
		// AWS WAF (WAFv2): the regional API endpoint and its FIPS variant,
		// nothing in front of them.
		{"https://wafv2.eu-west-1.amazonaws.com/", stores.WAFv2Endpoint("eu-west-1"), true},
		{"https://wafv2-fips.us-gov-west-1.amazonaws.com/", stores.WAFv2Endpoint("us-gov-west-1"), true},
		{"https://WAFV2.EU-WEST-1.AMAZONAWS.COM./", stores.WAFv2Endpoint("eu-west-1"), true},
		{"https://wafv2.cn-north-1.amazonaws.com.cn/", stores.WAFv2Endpoint("cn-north-1"), true},
		{"https://wafv2.cn-north-1.amazonaws.com/", stores.WAFv2Endpoint("cn-north-1"), false},
		{"http://wafv2.eu-west-1.amazonaws.com/", stores.WAFv2Endpoint("eu-west-1"), false},
		{"https://wafv2.eu-west-2.amazonaws.com/", stores.WAFv2Endpoint("eu-west-1"), false},
		{"https://x.wafv2.eu-west-1.amazonaws.com/", stores.WAFv2Endpoint("eu-west-1"), false},
		{"https://wafv2.eu-west-1.amazonaws.com.evil.example/", stores.WAFv2Endpoint("eu-west-1"), false},
		{"https://waf.eu-west-1.amazonaws.com/", stores.WAFv2Endpoint("eu-west-1"), false},
		{"https://s3.eu-west-1.amazonaws.com/", stores.WAFv2Endpoint("eu-west-1"), false},
		{"https://wafv2.x.amazonaws.com/", stores.WAFv2Endpoint("x"), false},
		// Never an IP address, never a loopback name.
		{"https://127.0.0.1/bucket/l.json", stores.GCSEndpoint, false},
		{"https://localhost/bucket/l.json", stores.GCSEndpoint, false},
	} {
		if got := stores.AmbientTo(none, tc.url, tc.endpoint); got != tc.want {
			t.Errorf("%s: ambient %v, want %v", tc.url, got, tc.want)
		}
	}
}

// TestAmbientHosts: hosts the operator adds match exactly, on any port and
// scheme; IP addresses match as addresses.
func TestAmbientHosts(t *testing.T) {
	p := stores.Policy{Ambient: true, AmbientHosts: []string{"Minio.Internal.", "10.0.0.7", "::1"}}
	never := func(string) bool { return false }
	for _, tc := range []struct {
		url  string
		want bool
	}{
		{"http://minio.internal:9000/lists/l.json", true},
		{"https://MINIO.internal/lists/l.json", true},
		{"http://10.0.0.7:9000/lists/l.json", true},
		{"http://[::1]:8080/lists/l.json", true},
		{"http://[0:0::1]/lists/l.json", true},
		{"http://[::ffff:10.0.0.7]/lists/l.json", true},
		{"http://s3.minio.internal/lists/l.json", false},
		{"http://minio.internal.evil.example/lists/l.json", false},
		{"http://10.0.0.70/lists/l.json", false},
		{"http://user@evil.example/@minio.internal/l.json", false},
	} {
		if got := stores.AmbientTo(p, tc.url, never); got != tc.want {
			t.Errorf("%s: ambient %v, want %v", tc.url, got, tc.want)
		}
	}
}

// TestPolicyValidate: entries that could never match are reported.
func TestPolicyValidate(t *testing.T) {
	ok := stores.Policy{AmbientHosts: []string{"minio.internal", "10.0.0.7", "[::1]", "::1"}, GCPTokenURIs: []string{"http://127.0.0.1:8080/token"}}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid policy: %v", err)
	}
	for _, p := range []stores.Policy{
		{AmbientHosts: []string{"*.amazonaws.com"}},
		{AmbientHosts: []string{"https://minio.internal"}},
		{AmbientHosts: []string{"minio.internal:9000"}},
		{AmbientHosts: []string{""}},
		{GCPTokenURIs: []string{"127.0.0.1:8080/token"}},
		{GCPTokenURIs: []string{"https://tokens.internal/token?x=1"}},
	} {
		if err := p.Validate(); err == nil {
			t.Errorf("%+v: valid, want an error", p)
		}
	}
}

// TestWAFv2EndpointsOfTheSDK: the hosts aws-sdk-go-v2's wafv2 client
// resolves for a region, plain and FIPS, are the ones the rule lets the
// operator's identity go to, and another region's are not.
func TestWAFv2EndpointsOfTheSDK(t *testing.T) {
	resolver := wafv2.NewDefaultEndpointResolverV2()
	for _, region := range []string{"us-east-1", "eu-west-1", "ap-southeast-2", "cn-north-1", "us-gov-west-1"} {
		for _, fips := range []bool{false, true} {
			ep, err := resolver.ResolveEndpoint(t.Context(), wafv2.EndpointParameters{Region: aws.String(region), UseFIPS: aws.Bool(fips)})
			if err != nil {
				t.Fatalf("%s (FIPS %v): %v", region, fips, err)
			}
			u := ep.URI.String()
			if !stores.AmbientTo(stores.Policy{Ambient: true}, u, stores.WAFv2Endpoint(region)) {
				t.Errorf("%s (FIPS %v): the SDK's endpoint %s is not AWS WAF's by the rule", region, fips, u)
			}
			if stores.AmbientTo(stores.Policy{Ambient: true}, u, stores.WAFv2Endpoint("eu-central-1")) {
				t.Errorf("%s: the SDK's endpoint %s passes for eu-central-1", region, u)
			}
		}
	}
}
