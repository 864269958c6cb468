package stores

import (
	"net/url"
)

// The providers' endpoint rules, for tables.
var (
	S3Endpoint   = s3Endpoint
	GCSEndpoint  = gcsEndpoint
	BlobEndpoint = blobEndpoint
)

// AmbientTo reports whether p lets ambient credentials go to rawURL, whose
// provider's endpoints endpoint accepts.
func AmbientTo(p Policy, rawURL string, endpoint func(string) bool) bool {
	u, err := url.Parse(rawURL)
	return err == nil && p.ambientTo(u, endpoint)
}
