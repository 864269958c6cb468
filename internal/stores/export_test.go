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

package stores

import (
	"net/http"
	"net/url"
	"testing"
	"time"
)

// SetCredentialTransport makes the credential requests of the signers that
// Options builds from now until the test ends go through rt (a fake
// authority's TLS certificate, say).
func SetCredentialTransport(t testing.TB, rt http.RoundTripper) {
	old := credentialTransport
	credentialTransport = rt
	t.Cleanup(func() { credentialTransport = old })
}

// DisableAzureInstanceDiscovery makes azidentity trust a fake authority
// host instead of asking login.microsoftonline.com about it, until the
// test ends.
func DisableAzureInstanceDiscovery(t testing.TB) {
	azureInstanceDiscovery = false
	t.Cleanup(func() { azureInstanceDiscovery = true })
}

// The providers' endpoint rules, for tables.
var (
	S3Endpoint   = s3Endpoint
	GCSEndpoint  = gcsEndpoint
	BlobEndpoint = blobEndpoint
	// GCPIAMEndpoint is the rule for the APIs of IAM policies.
	GCPIAMEndpoint = gcpIAMEndpoint
)

// AmbientTo reports whether p lets ambient credentials go to rawURL, whose
// provider's endpoints endpoint accepts.
func AmbientTo(p Policy, rawURL string, endpoint func(string) bool) bool {
	u, err := url.Parse(rawURL)
	return err == nil && p.ambientTo(u, endpoint)
}

// SetWAFv2RetryWait bounds the waits between the attempts of one WAFv2
// call, until the test ends, so that a test of retries does not sleep
// through the real backoff.
func SetWAFv2RetryWait(t testing.TB, waitMin, waitMax time.Duration) {
	oldMin, oldMax := wafv2RetryWaitMin, wafv2RetryWaitMax
	wafv2RetryWaitMin, wafv2RetryWaitMax = waitMin, waitMax
	t.Cleanup(func() { wafv2RetryWaitMin, wafv2RetryWaitMax = oldMin, oldMax })
}

// WAFv2Endpoint is the rule of AWS WAF's endpoints, for tables.
var WAFv2Endpoint = wafv2Endpoint
