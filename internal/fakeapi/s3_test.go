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
	"crypto/md5"
	"encoding/hex"
	"encoding/xml"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// quotedMD5 is the ETag S3 gives a single-part object with this body.
func quotedMD5(body string) string {
	sum := md5.Sum([]byte(body))
	return `"` + hex.EncodeToString(sum[:]) + `"`
}

func TestS3Profile(t *testing.T) {
	h := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	runProfileCases(t, []fakeapi.Option{fakeapi.WithProfile(fakeapi.ProfileS3)}, []profileCase{
		{name: "get", method: "GET", wantCode: 200, wantDoc: docA, wantBody: docA, wantETag: quotedMD5(docA)},
		{name: "get unchanged", method: "GET", header: h("If-None-Match", "$E"), wantCode: 304, wantDoc: docA, wantETag: "$E", wantEmpty: true},
		{name: "get missing", method: "GET", path: listNo, wantCode: 404, wantErrCode: "NoSuchKey"},
		{name: "get If-Match stale", method: "GET", header: h("If-Match", `"0"`), wantCode: 412, wantDoc: docA, wantErrCode: "PreconditionFailed"},
		{name: "put", method: "PUT", header: h("If-Match", "$E"), body: docB, wantCode: 200, wantDoc: docB, wantETag: quotedMD5(docB), wantStoredETag: true, wantEmpty: true},
		{name: "put same content keeps the tag", method: "PUT", header: h("If-Match", "$E"), body: docA, wantCode: 200, wantDoc: docA, wantETag: "$E", wantEmpty: true},
		{name: "put without precondition", method: "PUT", body: docB, wantCode: 200, wantDoc: docB, wantStoredETag: true, wantEmpty: true},
		{name: "create without precondition", method: "PUT", path: listNo, body: docB, wantCode: 200, wantDoc: docB, wantStoredETag: true, wantEmpty: true},
		{name: "create", method: "PUT", path: listNo, header: h("If-None-Match", "*"), body: docB, wantCode: 200, wantDoc: docB, wantETag: quotedMD5(docB), wantEmpty: true},
		{name: "create exists", method: "PUT", header: h("If-None-Match", "*"), body: docB, wantCode: 412, wantDoc: docA, wantErrCode: "PreconditionFailed"},
		{name: "put stale", method: "PUT", header: h("If-Match", quotedMD5("x")), body: docB, wantCode: 412, wantDoc: docA, wantErrCode: "PreconditionFailed"},
		{name: "put If-Match on missing key", method: "PUT", path: listNo, header: h("If-Match", "$E"), body: docB, wantCode: 404, wantErrCode: "NoSuchKey"},
		{name: "put If-Match star on missing key", method: "PUT", path: listNo, header: h("If-Match", "*"), body: docB, wantCode: 404, wantErrCode: "NoSuchKey"},
		{name: "put empty If-Match", method: "PUT", header: h("If-Match", ""), body: docB, wantCode: 412, wantDoc: docA, wantErrCode: "PreconditionFailed"},
		{name: "put weak tag", method: "PUT", header: h("If-Match", "W/$E"), body: docB, wantCode: 412, wantDoc: docA, wantErrCode: "PreconditionFailed"},
		{name: "put invalid json", method: "PUT", header: h("If-Match", "$E"), body: `{`, wantCode: 400, wantDoc: docA, wantErrCode: "InvalidRequest"},
		{name: "post", method: "POST", body: docB, wantCode: 405, wantDoc: docA, wantErrCode: "MethodNotAllowed"},
		{name: "delete without precondition", method: "DELETE", wantCode: 204},
	})
}

// TestS3ErrorBody checks the whole shape of an S3 error answer.
func TestS3ErrorBody(t *testing.T) {
	s, ts := start(t, fakeapi.WithProfile(fakeapi.ProfileS3))
	mustSet(t, s, listA, docA)
	const path = "/lists/a&<b>"
	ids := map[string]bool{}
	for range 2 {
		res := mustCall(t, rawClient(t), "PUT", ts.URL+"/lists/a&%3Cb%3E", docB, map[string]string{"If-Match": quotedMD5(docA)})
		if res.code != 404 {
			t.Fatalf("status = %d, want 404", res.code)
		}
		if got := xmlErrorCode(t, res); got != "NoSuchKey" {
			t.Fatalf("code = %q", got)
		}
		var e xmlError
		if err := xml.Unmarshal(res.body, &e); err != nil {
			t.Fatal(err)
		}
		if e.Resource != path || e.Message == "" {
			t.Errorf("Resource %q, Message %q; want %q and a message", e.Resource, e.Message, path)
		}
		if e.RequestID == "" || e.RequestID != res.header.Get("X-Amz-Request-Id") {
			t.Errorf("RequestId %q, x-amz-request-id %q", e.RequestID, res.header.Get("X-Amz-Request-Id"))
		}
		ids[e.RequestID] = true
	}
	if len(ids) != 2 {
		t.Errorf("request IDs repeat: %v", ids)
	}
}

// TestS3ConcurrentConditionalWrites races conditional writes from one
// read under latency: one wins, writes that overlap it get 409
// ConditionalRequestConflict, and writes that arrive after it committed
// get 412.
func TestS3ConcurrentConditionalWrites(t *testing.T) {
	const writers = 6
	s, ts := start(t, fakeapi.WithProfile(fakeapi.ProfileS3), fakeapi.WithLatency(300*time.Millisecond, 0))
	etag := mustSet(t, s, listA, `{"items":[]}`)
	c := rawClient(t)
	codes := make([]int, writers)
	var wg sync.WaitGroup
	startGate := make(chan struct{})
	for i := range writers {
		wg.Go(func() {
			<-startGate
			body := `{"items":["w` + string(rune('0'+i)) + `"]}`
			res, err := call(c, "PUT", ts.URL+listA, body, map[string]string{"If-Match": etag})
			if err != nil {
				t.Errorf("writer %d: %v", i, err)
				return
			}
			codes[i] = res.code
			if res.code == http.StatusConflict && xmlErrorCode(t, res) != "ConditionalRequestConflict" {
				t.Errorf("409 body %s", res.body)
			}
		})
	}
	close(startGate)
	wg.Wait()
	count := map[int]int{}
	for _, code := range codes {
		count[code]++
	}
	if count[200] != 1 || count[409] == 0 || count[200]+count[409]+count[412] != writers {
		t.Fatalf("codes %v, want one 200, some 409 and the rest 412", codes)
	}
	if st := s.Stats(); st.Commits != 1 {
		t.Errorf("Commits = %d, want 1", st.Commits)
	}
}
