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

package fakeapi_test

import (
	"encoding/xml"
	"regexp"
	"strings"
	"testing"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// azureTag is the form of Azure Storage's ETags.
const azureTag = `"0x8D[0-9A-F]{13}"`

func TestAzureBlobProfile(t *testing.T) {
	h := func(kv ...string) map[string]string {
		m := map[string]string{"x-ms-blob-type": "BlockBlob"}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	runProfileCases(t, []fakeapi.Option{fakeapi.WithProfile(fakeapi.ProfileAzureBlob)}, []profileCase{
		{name: "get", method: "GET", wantCode: 200, wantDoc: docA, wantBody: docA, wantETag: azureTag},
		{name: "get unchanged has no ETag", method: "GET", header: h("If-None-Match", "$E"), wantCode: 304, wantDoc: docA, wantETag: "-", wantEmpty: true},
		{name: "get missing", method: "GET", path: listNo, wantCode: 404, wantErrCode: "BlobNotFound"},
		{name: "get If-Match on missing blob", method: "GET", path: listNo, header: h("If-Match", "$E"), wantCode: 404, wantErrCode: "BlobNotFound"},
		{name: "put", method: "PUT", header: h("If-Match", "$E"), body: docB, wantCode: 201, wantDoc: docB, wantETag: azureTag, wantStoredETag: true, wantEmpty: true},
		{name: "put same content gets a new tag", method: "PUT", header: h("If-Match", "$E"), body: docA, wantCode: 201, wantDoc: docA, wantStoredETag: true, wantEmpty: true},
		{name: "put without precondition", method: "PUT", header: h(), body: docB, wantCode: 201, wantDoc: docB, wantStoredETag: true, wantEmpty: true},
		{name: "create", method: "PUT", path: listNo, header: h("If-None-Match", "*"), body: docB, wantCode: 201, wantDoc: docB, wantETag: azureTag, wantEmpty: true},
		{name: "create exists", method: "PUT", header: h("If-None-Match", "*"), body: docB, wantCode: 409, wantDoc: docA, wantErrCode: "BlobAlreadyExists"},
		{name: "put If-None-Match current tag", method: "PUT", header: h("If-None-Match", "$E"), body: docB, wantCode: 412, wantDoc: docA, wantErrCode: "ConditionNotMet"},
		{name: "put stale", method: "PUT", header: h("If-Match", `"0x8D0000000000000"`), body: docB, wantCode: 412, wantDoc: docA, wantErrCode: "ConditionNotMet"},
		{name: "put If-Match on missing blob", method: "PUT", path: listNo, header: h("If-Match", "$E"), body: docB, wantCode: 412, wantErrCode: "ConditionNotMet"},
		{name: "put If-Match star on missing blob", method: "PUT", path: listNo, header: h("If-Match", "*"), body: docB, wantCode: 412, wantErrCode: "ConditionNotMet"},
		{name: "put without blob type", method: "PUT", header: map[string]string{"If-Match": "$E"}, body: docB, wantCode: 400, wantDoc: docA, wantErrCode: "MissingRequiredHeader", wantHeader: map[string]string{"x-ms-error-code": "MissingRequiredHeader"}},
		{name: "put page blob", method: "PUT", header: h("If-Match", "$E", "x-ms-blob-type", "PageBlob"), body: docB, wantCode: 400, wantDoc: docA, wantErrCode: "InvalidHeaderValue"},
		{name: "put without blob type nor precondition", method: "PUT", body: docB, wantCode: 400, wantDoc: docA, wantErrCode: "MissingRequiredHeader"},
		{name: "post", method: "POST", body: docB, wantCode: 405, wantDoc: docA, wantErrCode: "UnsupportedHttpVerb"},
	})
}

// TestAzureBlobETagsAndErrors checks that every version gets its own tag,
// even with the same content, and the shape of an error answer.
func TestAzureBlobETagsAndErrors(t *testing.T) {
	s, ts := start(t, fakeapi.WithProfile(fakeapi.ProfileAzureBlob))
	re := regexp.MustCompile("^" + azureTag + "$")
	seen := map[string]bool{}
	for i := range 50 {
		path := listA
		if i%2 == 1 {
			path = "/lists/b"
		}
		tag := mustSet(t, s, path, docA)
		if !re.MatchString(tag) || seen[tag] {
			t.Fatalf("version %d got tag %s (seen before: %v)", i, tag, seen[tag])
		}
		seen[tag] = true
	}

	res := mustCall(t, rawClient(t), "PUT", ts.URL+listA, docB, map[string]string{"x-ms-blob-type": "BlockBlob", "If-None-Match": "*"})
	if res.code != 409 || xmlErrorCode(t, res) != "BlobAlreadyExists" {
		t.Fatalf("create over a blob = %d %s", res.code, res.body)
	}
	if !strings.HasPrefix(string(res.body), `<?xml version="1.0" encoding="utf-8"?><Error><Code>BlobAlreadyExists</Code><Message>`) {
		t.Errorf("body %s", res.body)
	}
	var e xmlError
	if err := xml.Unmarshal(res.body, &e); err != nil {
		t.Fatal(err)
	}
	id := res.header.Get("x-ms-request-id")
	if id == "" || !strings.Contains(e.Message, "\nRequestId:"+id+"\nTime:") {
		t.Errorf("message %q, x-ms-request-id %q", e.Message, id)
	}
	if got := res.header.Get("x-ms-error-code"); got != "BlobAlreadyExists" {
		t.Errorf("x-ms-error-code = %q", got)
	}
}
