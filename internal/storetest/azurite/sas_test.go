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
	"bytes"
	"encoding/base64"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"

	"github.com/listkeeper/listkeeper/internal/storetest/azurite"
)

// sasURL returns the URL of blob with a service SAS for it, signed by the
// SDK with the development account's key.
func sasURL(t *testing.T, container, blob string, perms sas.BlobPermissions, start, expiry time.Time) string {
	t.Helper()
	qp, err := sas.BlobSignatureValues{
		Protocol:      sas.ProtocolHTTPSandHTTP,
		StartTime:     start.UTC(),
		ExpiryTime:    expiry.UTC(),
		Permissions:   perms.String(),
		ContainerName: container,
		BlobName:      blob,
	}.SignWithSharedKey(az.Credential())
	if err != nil {
		t.Fatalf("sign SAS: %v", err)
	}
	return az.BlobURL(container, blob) + "?" + qp.Encode()
}

// readWrite is the SAS permission set that later code needs for a list.
var readWrite = sas.BlobPermissions{Read: true, Write: true}

// validSAS returns a read+write SAS URL for blob, valid from a minute ago
// for ten minutes.
func validSAS(t *testing.T, container, blob string) string {
	now := time.Now()
	return sasURL(t, container, blob, readWrite, now.Add(-time.Minute), now.Add(10*time.Minute))
}

// answer is what a plain HTTP request got.
type answer struct {
	code      int
	header    http.Header
	body      string
	errorCode string // x-ms-error-code
}

// call sends a plain net/http request (no SDK) and reads the answer.
// Accept-Encoding is identity, as listkeeper's client asks.
func call(t *testing.T, method, u string, header map[string]string, body string) answer {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(testContext(t), method, u, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", "identity")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := az.HTTPClient().Do(req)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: read body: %v", method, err)
	}
	return answer{code: resp.StatusCode, header: resp.Header, body: string(b), errorCode: resp.Header.Get("x-ms-error-code")}
}

// blockBlobPut are the headers of a plain PUT of a whole block blob.
func blockBlobPut(kv ...string) map[string]string {
	h := map[string]string{"x-ms-blob-type": "BlockBlob", "Content-Type": "application/json"}
	for i := 0; i+1 < len(kv); i += 2 {
		h[kv[i]] = kv[i+1]
	}
	return h
}

// TestSASPlainHTTPReadModifyWrite pins that a read+write blob SAS made by
// the SDK works with plain net/http: GET answers 200 with the blob's ETag,
// PUT with If-Match and x-ms-blob-type: BlockBlob answers 201 Created with
// the new ETag and an empty body, and a stale If-Match answers 412
// ConditionNotMet.
func TestSASPlainHTTPReadModifyWrite(t *testing.T) {
	container := newContainer(t)
	bc := blockBlob(newSDKClient(t), container, "list.json")
	seeded := mustUpload(t, bc, docA)
	u := validSAS(t, container, "list.json")

	get := call(t, http.MethodGet, u, nil, "")
	if get.code != http.StatusOK || get.body != docA || get.header.Get("ETag") != string(seeded) {
		t.Fatalf("GET = %d %q ETag %q, want 200 %q ETag %s", get.code, get.body, get.header.Get("ETag"), docA, seeded)
	}

	put := call(t, http.MethodPut, u, blockBlobPut("If-Match", string(seeded)), docB)
	newTag := put.header.Get("ETag")
	if put.code != http.StatusCreated || put.body != "" || !azuriteETag.MatchString(newTag) || newTag == string(seeded) {
		t.Fatalf("PUT If-Match current = %d %q ETag %q, want 201, empty body and a new ETag", put.code, put.body, newTag)
	}
	if body, etag := download(t, bc); body != docB || string(etag) != newTag {
		t.Errorf("after the PUT the blob is %q (%s), want %q (%s)", body, etag, docB, newTag)
	}

	stale := call(t, http.MethodPut, u, blockBlobPut("If-Match", string(seeded)), docA)
	if stale.code != http.StatusPreconditionFailed || stale.errorCode != "ConditionNotMet" {
		t.Errorf("PUT If-Match stale = %d %s, want 412 ConditionNotMet", stale.code, stale.errorCode)
	}
}

// TestSASRefused pins how a SAS that must not work is refused: 403 with
// x-ms-error-code AuthorizationFailure for a SAS that does not
// authenticate (Azure's own service says AuthenticationFailed there, so
// code must not tell 403s apart by that code), 403
// AuthorizationPermissionMismatch for a valid SAS without the permission;
// the blob stays unchanged.
func TestSASRefused(t *testing.T) {
	container := newContainer(t)
	bc := blockBlob(newSDKClient(t), container, "list.json")
	seeded := mustUpload(t, bc, docA)
	now := time.Now()

	tampered := func(u string) string {
		p, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		q := p.Query()
		sig := []byte(q.Get("sig"))
		sig[0] ^= 1 // still base64, another signature
		q.Set("sig", string(sig))
		p.RawQuery = q.Encode()
		return p.String()
	}
	wrongKey := func() string {
		cred, err := azblob.NewSharedKeyCredential(azurite.AccountName, base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{1}, 64)))
		if err != nil {
			t.Fatal(err)
		}
		qp, err := sas.BlobSignatureValues{
			Protocol:      sas.ProtocolHTTPSandHTTP,
			StartTime:     now.Add(-time.Minute).UTC(),
			ExpiryTime:    now.Add(time.Hour).UTC(),
			Permissions:   readWrite.String(),
			ContainerName: container,
			BlobName:      "list.json",
		}.SignWithSharedKey(cred)
		if err != nil {
			t.Fatal(err)
		}
		return az.BlobURL(container, "list.json") + "?" + qp.Encode()
	}
	expired := sasURL(t, container, "list.json", readWrite, now.Add(-2*time.Hour), now.Add(-time.Hour))

	for _, tc := range []struct {
		name     string
		url      string
		method   string
		wantCode int
		wantErr  string
	}{
		{"expired GET", expired, http.MethodGet, 403, "AuthorizationFailure"},
		{"expired PUT", expired, http.MethodPut, 403, "AuthorizationFailure"},
		{"not yet valid GET", sasURL(t, container, "list.json", readWrite, now.Add(time.Hour), now.Add(2*time.Hour)), http.MethodGet, 403, "AuthorizationFailure"},
		{"wrong signature GET", tampered(validSAS(t, container, "list.json")), http.MethodGet, 403, "AuthorizationFailure"},
		{"wrong signature PUT", tampered(validSAS(t, container, "list.json")), http.MethodPut, 403, "AuthorizationFailure"},
		{"signed with another key PUT", wrongKey(), http.MethodPut, 403, "AuthorizationFailure"},
		{"SAS of another blob GET", strings.Replace(validSAS(t, container, "other.json"), "/other.json?", "/list.json?", 1), http.MethodGet, 403, "AuthorizationFailure"},
		{"no SAS GET", az.BlobURL(container, "list.json"), http.MethodGet, 403, "AuthorizationFailure"},
		{"read-only SAS PUT", sasURL(t, container, "list.json", sas.BlobPermissions{Read: true}, now.Add(-time.Minute), now.Add(time.Hour)), http.MethodPut, 403, "AuthorizationPermissionMismatch"},
		{"write-only SAS GET", sasURL(t, container, "list.json", sas.BlobPermissions{Write: true}, now.Add(-time.Minute), now.Add(time.Hour)), http.MethodGet, 403, "AuthorizationPermissionMismatch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got answer
			if tc.method == http.MethodPut {
				got = call(t, tc.method, tc.url, blockBlobPut("If-Match", string(seeded)), docB)
			} else {
				got = call(t, tc.method, tc.url, nil, "")
			}
			if got.code != tc.wantCode || got.errorCode != tc.wantErr {
				t.Errorf("%s = %d %s, want %d %s; body %s", tc.method, got.code, got.errorCode, tc.wantCode, tc.wantErr, got.body)
			}
		})
	}
	if body, etag := download(t, bc); body != docA || etag != seeded {
		t.Errorf("after the refused requests the blob is %q (%s), want %q (%s)", body, etag, docA, seeded)
	}
}

// TestSASGetIfNoneMatch pins what a plain GET with If-None-Match
// answers: with the current ETag 304, an empty body and NO ETag header
// (but x-ms-error-code ConditionNotMet), so a client must keep the ETag it
// sent; with a stale ETag 200 with the body and current ETag; with "*" on
// an existing blob 400 UnsatisfiableCondition.
func TestSASGetIfNoneMatch(t *testing.T) {
	container := newContainer(t)
	bc := blockBlob(newSDKClient(t), container, "list.json")
	stale := mustUpload(t, bc, docA)
	current := mustUpload(t, bc, docB)
	u := validSAS(t, container, "list.json")

	unchanged := call(t, http.MethodGet, u, map[string]string{"If-None-Match": string(current)}, "")
	if _, hasETag := unchanged.header["Etag"]; unchanged.code != http.StatusNotModified || unchanged.body != "" || hasETag || unchanged.errorCode != "ConditionNotMet" {
		t.Errorf("GET If-None-Match current = %d %q ETag %q x-ms-error-code %q, want 304, empty, no ETag, ConditionNotMet",
			unchanged.code, unchanged.body, unchanged.header.Values("ETag"), unchanged.errorCode)
	}
	changed := call(t, http.MethodGet, u, map[string]string{"If-None-Match": string(stale)}, "")
	if changed.code != http.StatusOK || changed.body != docB || changed.header.Get("ETag") != string(current) {
		t.Errorf("GET If-None-Match stale = %d %q ETag %q, want 200 %q ETag %s", changed.code, changed.body, changed.header.Get("ETag"), docB, current)
	}
	star := call(t, http.MethodGet, u, map[string]string{"If-None-Match": "*"}, "")
	if star.code != http.StatusBadRequest || star.errorCode != "UnsatisfiableCondition" {
		t.Errorf("GET If-None-Match * = %d %s, want 400 UnsatisfiableCondition", star.code, star.errorCode)
	}
}
