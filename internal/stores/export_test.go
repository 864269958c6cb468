package stores

import (
	"net/http"
	"net/url"
	"testing"
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
