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
	"strings"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// GCS is Google Cloud Storage's dialect of the HTTP list contract (its XML
// API): writes are conditional on the object generation, which reads return
// in x-goog-generation and writes carry in x-goog-if-generation-match (0 to
// create); the ETag only revalidates reads. Errors carry an XML <Code>, as
// S3's do.
// https://cloud.google.com/storage/docs/xml-api/reference-headers and
// https://cloud.google.com/storage/docs/request-preconditions
var GCS = etagclient.Dialect{
	Name:             "GCS",
	VersionHeader:    "X-Goog-Generation",
	IfVersionHeader:  "X-Goog-If-Generation-Match",
	ErrorCode:        func(resp *http.Response) string { return gcsCodes.known(xmlErrorCode(resp)) },
	CodeClass:        gcsCodes.classOf,
	ContainerMissing: gcsCodes.missing,
}

var gcsCodes = codes{
	class: map[string]error{
		"AuthenticationRequired": etagclient.ErrUnauthorized, "AccessDenied": etagclient.ErrUnauthorized,
		"ExpiredToken": etagclient.ErrUnauthorized, "InvalidToken": etagclient.ErrUnauthorized,
		"NoSuchBucket": etagclient.ErrNotFound,
	},
	quoted: set("NoSuchKey", "PreconditionFailed", "SlowDown", "InternalError", "ServiceUnavailable",
		"InvalidArgument", "EntityTooLarge", "RequestTimeout", "MethodNotAllowed", "MissingContentLength",
		"InvalidBucketName", "NotImplemented"),
}

// GCSDocument returns the identity of the object at u, a URL of Cloud
// Storage's XML API (storage.googleapis.com): its bucket (one namespace
// for all of Google Cloud) and its object name, in path style
// (storage.googleapis.com/BUCKET/OBJECT) or virtual-hosted style
// (BUCKET.storage.googleapis.com/OBJECT) alike. The name is the path as
// Cloud Storage reads it: unescaped, every slash kept. ok is false for a
// path that names no bucket.
func GCSDocument(u *url.URL) (doc string, ok bool) {
	host := normalHost(u.Hostname())
	if !gcsEndpoint(host) {
		return "", false
	}
	bucket, object := strings.TrimSuffix(host, "."+storageHost), strings.TrimPrefix(u.Path, "/")
	if host == storageHost {
		var found bool
		if bucket, object, found = strings.Cut(object, "/"); bucket == "" || !found {
			return "", false
		}
	}
	return "gs:" + strings.ToLower(bucket) + "/" + object, true
}
