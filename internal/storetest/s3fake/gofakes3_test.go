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

package s3fake

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// The tests in this file pin what gofakes3 v1.2.0 itself (s3mem backend,
// no wrapper, no authentication) does with conditional requests and with
// request headers, because the wrapper is built on these facts. When one of
// them breaks after an upgrade of gofakes3, revisit preconditions.go and
// stripAuth.

// startGofakes3 serves a bare gofakes3 with the bucket testBucket on
// 127.0.0.1.
func startGofakes3(t *testing.T) string {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket(testBucket); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(gofakes3.New(backend).Server())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_ = ts.Listener.Close()
	ts.Listener = ln
	ts.Start()
	t.Cleanup(ts.Close)
	return ts.URL + "/" + testBucket + "/"
}

func TestGofakes3Preconditions(t *testing.T) {
	v1 := []byte("v1")
	tests := []struct {
		name       string
		seeded     bool
		method     string
		header     http.Header
		wantStatus int
		wantCode   string
		wantStored string // "" when there is no object after the request
		s3         string // what S3 answers, when it differs
	}{
		{name: "PUT If-Match current, quoted", seeded: true, method: http.MethodPut, header: http.Header{"If-Match": {quotedMD5(v1)}}, wantStatus: http.StatusOK, wantStored: "v2"},
		{name: "PUT If-Match current, unquoted", seeded: true, method: http.MethodPut, header: http.Header{"If-Match": {quotedMD5(v1)[1:33]}}, wantStatus: http.StatusOK, wantStored: "v2"},
		{name: "PUT If-Match stale", seeded: true, method: http.MethodPut, header: http.Header{"If-Match": {quotedMD5([]byte("v0"))}}, wantStatus: http.StatusPreconditionFailed, wantCode: "PreconditionFailed", wantStored: "v1"},
		{name: "PUT If-Match on a missing key", method: http.MethodPut, header: http.Header{"If-Match": {quotedMD5(v1)}}, wantStatus: http.StatusPreconditionFailed, wantCode: "PreconditionFailed", s3: "404 NoSuchKey"},
		{name: "PUT If-Match *", seeded: true, method: http.MethodPut, header: http.Header{"If-Match": {"*"}}, wantStatus: http.StatusPreconditionFailed, wantCode: "PreconditionFailed", wantStored: "v1", s3: "compared literally; RFC 9110 matches any existing object"},
		{name: "PUT If-Match weak", seeded: true, method: http.MethodPut, header: http.Header{"If-Match": {"W/" + quotedMD5(v1)}}, wantStatus: http.StatusPreconditionFailed, wantCode: "PreconditionFailed", wantStored: "v1"},
		{name: "PUT If-None-Match * on an existing key", seeded: true, method: http.MethodPut, header: http.Header{"If-None-Match": {"*"}}, wantStatus: http.StatusPreconditionFailed, wantCode: "PreconditionFailed", wantStored: "v1"},
		{name: "PUT If-None-Match * on a missing key", method: http.MethodPut, header: http.Header{"If-None-Match": {"*"}}, wantStatus: http.StatusOK, wantStored: "v2"},
		{name: "PUT If-None-Match with a tag is ignored", seeded: true, method: http.MethodPut, header: http.Header{"If-None-Match": {quotedMD5(v1)}}, wantStatus: http.StatusOK, wantStored: "v2", s3: "only * is supported"},
		{name: "DELETE If-Match stale is ignored", seeded: true, method: http.MethodDelete, header: http.Header{"If-Match": {quotedMD5([]byte("v0"))}}, wantStatus: http.StatusNoContent, s3: "412 PreconditionFailed"},
		{name: "GET If-Match stale is ignored", seeded: true, method: http.MethodGet, header: http.Header{"If-Match": {quotedMD5([]byte("v0"))}}, wantStatus: http.StatusOK, wantStored: "v1", s3: "412 PreconditionFailed"},
		{name: "GET If-None-Match current, quoted", seeded: true, method: http.MethodGet, header: http.Header{"If-None-Match": {quotedMD5(v1)}}, wantStatus: http.StatusNotModified, wantStored: "v1"},
		{name: "GET If-None-Match current, unquoted is compared literally", seeded: true, method: http.MethodGet, header: http.Header{"If-None-Match": {quotedMD5(v1)[1:33]}}, wantStatus: http.StatusOK, wantStored: "v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := startGofakes3(t)
			client := &http.Client{}
			if tt.seeded {
				if a := do(t, client, newRequest(t, http.MethodPut, base+"doc", v1, nil)); a.status != http.StatusOK {
					t.Fatalf("seed = %d", a.status)
				}
			}
			var body []byte
			if tt.method == http.MethodPut {
				body = []byte("v2")
			}
			a := do(t, client, newRequest(t, tt.method, base+"doc", body, tt.header))
			if a.status != tt.wantStatus || a.code != tt.wantCode {
				t.Fatalf("gofakes3 answered %d %q, pinned %d %q (S3: %s)", a.status, a.code, tt.wantStatus, tt.wantCode, tt.s3)
			}
			got := do(t, client, newRequest(t, http.MethodGet, base+"doc", nil, nil))
			stored := ""
			if got.status == http.StatusOK {
				stored = string(got.body)
			}
			if stored != tt.wantStored {
				t.Errorf("stored %q after the request, pinned %q", stored, tt.wantStored)
			}
		})
	}
}

// TestGofakes3ConcurrentConditionalPuts pins that gofakes3 checks If-Match
// under its backend lock: of many PUTs with the same If-Match at once,
// exactly one wins and the others get 412, never 409 (S3 may answer 409
// ConditionalRequestConflict to a write that overlaps another).
func TestGofakes3ConcurrentConditionalPuts(t *testing.T) {
	base := startGofakes3(t)
	client := &http.Client{}
	if a := do(t, client, newRequest(t, http.MethodPut, base+"doc", []byte("v1"), nil)); a.status != http.StatusOK {
		t.Fatalf("seed = %d", a.status)
	}
	const writers = 8
	start := make(chan struct{})
	statuses := make(chan int, writers)
	var wg sync.WaitGroup
	for i := range writers {
		req, err := buildRequest(http.MethodPut, base+"doc", []byte{'w', byte('0' + i)}, http.Header{"If-Match": {quotedMD5([]byte("v1"))}})
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			<-start
			a, err := tryDo(client, req)
			if err != nil {
				t.Error(err)
				return
			}
			statuses <- a.status
		})
	}
	close(start)
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for st := range statuses {
		count[st]++
	}
	if count[http.StatusOK] != 1 || count[http.StatusPreconditionFailed] != writers-1 {
		t.Fatalf("statuses = %v, pinned one 200 and %d 412", count, writers-1)
	}
}

// TestGofakes3KeepsRequestHeaders pins that gofakes3 stores every X-Amz-*
// header of a PUT as metadata, serves it back on GET, and carries metadata
// over to the next PUT of the key (S3 replaces it): this is why the
// wrapper strips the authentication headers before gofakes3 sees them.
func TestGofakes3KeepsRequestHeaders(t *testing.T) {
	base := startGofakes3(t)
	client := &http.Client{}
	put := newRequest(t, http.MethodPut, base+"doc", []byte("v1"), http.Header{
		"X-Amz-Security-Token": {"session-token"},
		"X-Amz-Meta-Owner":     {"team-a"},
	})
	if a := do(t, client, put); a.status != http.StatusOK {
		t.Fatalf("PUT = %d", a.status)
	}
	if a := do(t, client, newRequest(t, http.MethodPut, base+"doc", []byte("v2"), nil)); a.status != http.StatusOK {
		t.Fatalf("second PUT = %d", a.status)
	}
	get := do(t, client, newRequest(t, http.MethodGet, base+"doc", nil, nil))
	if got := get.header.Get("X-Amz-Security-Token"); got != "session-token" {
		t.Errorf("GET X-Amz-Security-Token = %q, pinned the token of the first PUT", got)
	}
	if got := get.header.Get("X-Amz-Meta-Owner"); got != "team-a" {
		t.Errorf("GET X-Amz-Meta-Owner = %q, pinned the metadata of the first PUT", got)
	}
}
