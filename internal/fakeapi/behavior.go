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

package fakeapi

import "net/http"

// behavior is what a Profile switches: the handler consults these fields
// instead of asking which profile it runs. It is fixed when the Server is
// built.
type behavior struct {
	// tags is the form of a new version's entity tag.
	tags tagForm
	// errors is the body format of error answers.
	errors errorStyle
	// require428 answers 428 to a write without a precondition (unless
	// WithRequireIfMatch(false)); without it, such writes are accepted.
	require428 bool
	// put is what a successful PUT answers.
	put putAnswer
	// noDocumentCode answers an If-Match that meets no document on a
	// write.
	noDocumentCode int
	// existsCode answers If-None-Match: * that meets a document on a
	// write.
	existsCode int
	// etagOn304 sends the ETag header with 304 Not Modified.
	etagOn304 bool
	// blobType requires x-ms-blob-type: BlockBlob on a PUT (Azure).
	blobType bool
	// weakWhileFresh serves a document's ETag weak while the document is
	// younger than WithWeakWindow; If-Match never matches it then.
	weakWhileFresh bool
	// deflate gzips a GET answer whose request accepts gzip and appends
	// "-gzip" to its ETag (mod_deflate). If-None-Match ignores the suffix,
	// If-Match does not.
	deflate bool
	// slashRedirect answers 301 to a path that ends with "/", with
	// Location the path without it, and stores nothing.
	slashRedirect bool
	// overlapConflict answers 409 to a conditional PUT that arrives while
	// another conditional PUT to the same path is in progress.
	overlapConflict bool
	// generations makes writes conditional by generation (GCS): PUT and
	// DELETE honour x-goog-if-generation-match and
	// x-goog-if-metageneration-match and ignore If-Match and
	// If-None-Match; answers that carry a document name its generation
	// (x-goog-generation and the other x-goog- headers).
	generations bool
	// writesNeedBearer answers 401 to a PUT or DELETE without an
	// "Authorization: Bearer" token even when no token is configured, as a
	// store that serves public reads but never anonymous writes.
	writesNeedBearer bool
}

// behaviors holds the behaviour of every profile.
var behaviors = map[Profile]behavior{
	ProfileStrict: {
		tags:           tagSequence,
		errors:         errorsText,
		require428:     true,
		put:            putEcho,
		noDocumentCode: http.StatusPreconditionFailed,
		existsCode:     http.StatusPreconditionFailed,
		etagOn304:      true,
	},
	ProfileS3: {
		tags:            tagMD5,
		errors:          errorsS3,
		put:             putEmpty,
		noDocumentCode:  http.StatusNotFound,
		existsCode:      http.StatusPreconditionFailed,
		etagOn304:       true,
		overlapConflict: true,
	},
	ProfileAzureBlob: {
		tags:           tagAzure,
		errors:         errorsAzure,
		put:            putCreated,
		noDocumentCode: http.StatusPreconditionFailed,
		existsCode:     http.StatusConflict,
		blobType:       true,
	},
	ProfileWebDAV: {
		tags:           tagApache,
		errors:         errorsApache,
		put:            putDAV,
		noDocumentCode: http.StatusPreconditionFailed,
		existsCode:     http.StatusPreconditionFailed,
		etagOn304:      true,
		weakWhileFresh: true,
		deflate:        true,
	},
	ProfileQuirky: {
		tags:           tagSequence,
		errors:         errorsText,
		require428:     true,
		put:            putReportBody,
		noDocumentCode: http.StatusPreconditionFailed,
		existsCode:     http.StatusPreconditionFailed,
		etagOn304:      true,
		slashRedirect:  true,
	},
	ProfileGCS: {
		tags:             tagMD5,
		errors:           errorsGCS,
		put:              putEmpty,
		noDocumentCode:   http.StatusPreconditionFailed,
		existsCode:       http.StatusPreconditionFailed,
		etagOn304:        true,
		generations:      true,
		writesNeedBearer: true,
	},
}
