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

package azurite_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
)

// TestSASPlainHTTPPreconditions pins Azurite's answer to each
// precondition a list client may send with plain HTTP and a read+write SAS,
// on a blob that exists (holding docA, ETag $E) or not. The fake list
// server's azure-blob profile can be checked against this table; the rows
// marked "Azurite only" are where Azurite departs from RFC 9110 or from
// Azure's documented answer, and code must not rely on them.
func TestSASPlainHTTPPreconditions(t *testing.T) {
	const (
		unchanged = "unchanged" // the blob still holds docA with $E
		written   = "written"   // the blob holds docB with a new ETag
		missing   = "missing"   // there is no blob
	)
	h := blockBlobPut
	container := newContainer(t)
	for i, tc := range []struct {
		name     string
		exists   bool
		method   string
		header   map[string]string // "$E" is replaced by the current ETag
		wantCode int
		wantErr  string // x-ms-error-code, "" for none
		wantETag bool   // a strong ETag of Azurite's form in the answer
		wantBlob string
	}{
		{"PUT If-Match current", true, "PUT", h("If-Match", "$E"), 201, "", true, written},
		{"PUT If-Match stale", true, "PUT", h("If-Match", `"0x8D0000000000000"`), 412, "ConditionNotMet", false, unchanged},
		{"PUT If-Match weak current", true, "PUT", h("If-Match", "W/$E"), 412, "ConditionNotMet", false, unchanged},
		{"PUT If-Match on missing blob", false, "PUT", h("If-Match", `"0x8D0000000000000"`), 412, "ConditionNotMet", false, missing},
		{"PUT If-None-Match star on missing blob", false, "PUT", h("If-None-Match", "*"), 201, "", true, written},
		{"PUT If-None-Match star on existing blob", true, "PUT", h("If-None-Match", "*"), 409, "BlobAlreadyExists", false, unchanged},
		{"PUT If-None-Match current", true, "PUT", h("If-None-Match", "$E"), 412, "ConditionNotMet", false, unchanged},
		{"PUT without precondition", true, "PUT", h(), 201, "", true, written},
		{"PUT without x-ms-blob-type answers a bare 400", true, "PUT", map[string]string{"If-Match": "$E"}, 400, "", false, unchanged},
		{"GET missing blob", false, "GET", nil, 404, "BlobNotFound", false, missing},
		{"GET If-Match stale", true, "GET", map[string]string{"If-Match": `"0x8D0000000000000"`}, 412, "ConditionNotMet", false, unchanged},
		{"POST answers a bare 400", true, "POST", nil, 400, "", false, unchanged},
		// Azurite only: RFC 9110 makes If-Match: * false when there is no
		// current representation (412); Azurite creates the blob.
		{"Azurite only: PUT If-Match star on missing blob creates it", false, "PUT", h("If-Match", "*"), 201, "", true, written},
		// Azurite only: If-Match compares an unquoted tag as if quoted.
		{"Azurite only: PUT If-Match current unquoted", true, "PUT", h("If-Match", "$e"), 201, "", true, written},
	} {
		t.Run(tc.name, func(t *testing.T) {
			blob := fmt.Sprintf("case-%d.json", i)
			bc := blockBlob(newSDKClient(t), container, blob)
			var etag string
			if tc.exists {
				etag = string(mustUpload(t, bc, docA))
			}
			header := map[string]string{}
			for k, v := range tc.header {
				v = strings.ReplaceAll(v, "$E", etag)
				header[k] = strings.ReplaceAll(v, "$e", strings.Trim(etag, `"`))
			}
			body := ""
			if tc.method == http.MethodPut || tc.method == http.MethodPost {
				body = docB
			}

			got := call(t, tc.method, validSAS(t, container, blob), header, body)
			if got.code != tc.wantCode || got.errorCode != tc.wantErr {
				t.Errorf("%s = %d %q, want %d %q; body %s", tc.method, got.code, got.errorCode, tc.wantCode, tc.wantErr, got.body)
			}
			if gotTag := got.header.Get("ETag"); tc.wantETag != azuriteETag.MatchString(gotTag) || (tc.wantETag && gotTag == etag) {
				t.Errorf("answer ETag = %q (was %q), want a new one: %v", gotTag, etag, tc.wantETag)
			}
			if code := tc.wantErr; code != "" && !strings.Contains(got.body, "<Code>"+code+"</Code>") {
				t.Errorf("error body = %q, want XML with <Code>%s</Code>", got.body, code)
			}

			switch stored, storedTag := storedBlob(t, bc); tc.wantBlob {
			case unchanged:
				if stored != docA || storedTag != etag {
					t.Errorf("blob = %q (%s), want it unchanged: %q (%s)", stored, storedTag, docA, etag)
				}
			case written:
				if stored != docB || storedTag != got.header.Get("ETag") {
					t.Errorf("blob = %q (%s), want %q (%s)", stored, storedTag, docB, got.header.Get("ETag"))
				}
			case missing:
				if storedTag != "" {
					t.Errorf("blob = %q (%s), want none", stored, storedTag)
				}
			}
		})
	}
}

// storedBlob returns what bc holds and its ETag, or "" and "" when there
// is no such blob.
func storedBlob(t *testing.T, bc *blockblob.Client) (string, string) {
	t.Helper()
	resp, err := bc.DownloadStream(testContext(t), nil)
	if bloberror.HasCode(err, bloberror.BlobNotFound) {
		return "", ""
	}
	if err != nil {
		t.Fatalf("download: %v", err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("download body: %v", err)
	}
	return string(b), string(*resp.ETag)
}
