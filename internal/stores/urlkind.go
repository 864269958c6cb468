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
	"net/url"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// ListOptions are the client options of a list without spec.auth, from
// its URL alone: a list behind an Azure SAS URL (spec.urlFrom: its query
// has sv and sig) needs the Blob headers on every request and speaks
// Azure's dialect; a URL of a known object store's endpoint speaks that
// store's dialect (a presigned S3 URL, a signed GCS URL), so its error
// codes are understood. Any other URL gets the plain contract.
func ListOptions(u *url.URL) []etagclient.Option {
	switch URLKind(u) {
	case "azureblob":
		if q := u.Query(); q.Get("sv") != "" && q.Get("sig") != "" {
			return []etagclient.Option{etagclient.WithSigner(blobHeaders{}), etagclient.WithDialect(AzureBlob)}
		}
		return []etagclient.Option{etagclient.WithDialect(AzureBlob)}
	case "s3":
		return []etagclient.Option{etagclient.WithDialect(S3)}
	case "gcs":
		return []etagclient.Option{etagclient.WithDialect(GCS)}
	}
	return nil
}

// URLKind names the store whose dialect a list without spec.auth speaks,
// from its URL alone (see ListOptions): "azureblob" for an Azure SAS URL
// or an endpoint of Blob Storage, "s3" or "gcs" for an endpoint of theirs,
// "" for any other URL.
func URLKind(u *url.URL) string {
	host := normalHost(u.Hostname())
	switch q := u.Query(); {
	case q.Get("sv") != "" && q.Get("sig") != "", blobEndpoint(host):
		return "azureblob"
	case anyS3Endpoint(host):
		return "s3"
	case gcsEndpoint(host):
		return "gcs"
	}
	return ""
}
