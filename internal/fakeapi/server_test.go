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
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

const (
	listA  = "/lists/a"
	listNo = "/lists/missing"
	docA   = `{"items":["a"]}`
	docB   = `{"items":["a","b"]}`
)

// TestStatusCodes covers every answer of the list contract against a
// server holding docA at listA with ETag $E.
func TestStatusCodes(t *testing.T) {
	tests := []struct {
		name        string
		method      string
		path        string            // default listA
		header      map[string]string // "$E" is replaced by the current ETag
		body        string
		chunked     bool // send the body without Content-Length
		wantCode    int
		wantDoc     string // document at path afterwards; "" means none
		wantNewETag bool   // the answer carries an ETag other than $E
		wantBody    string // exact answer body, when not ""
	}{
		{name: "get", method: "GET", wantCode: 200, wantDoc: docA, wantBody: docA},
		{name: "head", method: "HEAD", wantCode: 200, wantDoc: docA},
		{name: "get missing", method: "GET", path: listNo, wantCode: 404},
		{name: "get missing with If-None-Match *", method: "GET", path: listNo, header: map[string]string{"If-None-Match": "*"}, wantCode: 404},
		{name: "get unchanged", method: "GET", header: map[string]string{"If-None-Match": "$E"}, wantCode: 304, wantDoc: docA},
		{name: "get unchanged weak", method: "GET", header: map[string]string{"If-None-Match": "W/$E"}, wantCode: 304, wantDoc: docA},
		{name: "get unchanged list", method: "GET", header: map[string]string{"If-None-Match": `"x", $E`}, wantCode: 304, wantDoc: docA},
		{name: "get unchanged star", method: "GET", header: map[string]string{"If-None-Match": "*"}, wantCode: 304, wantDoc: docA},
		{name: "get changed", method: "GET", header: map[string]string{"If-None-Match": `"stale"`}, wantCode: 200, wantDoc: docA, wantBody: docA},
		{name: "get If-Match stale", method: "GET", header: map[string]string{"If-Match": `"stale"`}, wantCode: 412, wantDoc: docA},
		{name: "get malformed If-None-Match", method: "GET", header: map[string]string{"If-None-Match": "v1"}, wantCode: 400, wantDoc: docA},
		{name: "put", method: "PUT", header: map[string]string{"If-Match": "$E"}, body: docB, wantCode: 200, wantDoc: docB, wantNewETag: true, wantBody: docB},
		{name: "put json+suffix", method: "PUT", header: map[string]string{"If-Match": "$E", "Content-Type": "application/merge-patch+json"}, body: docB, wantCode: 200, wantDoc: docB, wantNewETag: true},
		{name: "put tag in list", method: "PUT", header: map[string]string{"If-Match": `"x", $E`}, body: docB, wantCode: 200, wantDoc: docB, wantNewETag: true},
		{name: "put stale", method: "PUT", header: map[string]string{"If-Match": `"v0-0000"`}, body: docB, wantCode: 412, wantDoc: docA},
		{name: "put weak never matches", method: "PUT", header: map[string]string{"If-Match": "W/$E"}, body: docB, wantCode: 412, wantDoc: docA},
		{name: "put If-Match star", method: "PUT", header: map[string]string{"If-Match": "*"}, body: docB, wantCode: 200, wantDoc: docB, wantNewETag: true},
		{name: "put If-Match star missing", method: "PUT", path: listNo, header: map[string]string{"If-Match": "*"}, body: docB, wantCode: 412},
		{name: "put If-Match missing doc", method: "PUT", path: listNo, header: map[string]string{"If-Match": "$E"}, body: docB, wantCode: 412},
		{name: "put unconditional", method: "PUT", body: docB, wantCode: 428, wantDoc: docA},
		{name: "put If-None-Match tag only", method: "PUT", header: map[string]string{"If-None-Match": `"x"`}, body: docB, wantCode: 428, wantDoc: docA},
		{name: "create", method: "PUT", path: listNo, header: map[string]string{"If-None-Match": "*"}, body: docB, wantCode: 201, wantDoc: docB, wantNewETag: true, wantBody: docB},
		{name: "create exists", method: "PUT", header: map[string]string{"If-None-Match": "*"}, body: docB, wantCode: 412, wantDoc: docA},
		{name: "put If-Match and If-None-Match same", method: "PUT", header: map[string]string{"If-Match": "$E", "If-None-Match": "$E"}, body: docB, wantCode: 412, wantDoc: docA},
		{name: "put invalid json", method: "PUT", header: map[string]string{"If-Match": "$E"}, body: `{"items":[`, wantCode: 400, wantDoc: docA},
		{name: "put empty body", method: "PUT", header: map[string]string{"If-Match": "$E"}, wantCode: 400, wantDoc: docA},
		{name: "create invalid json", method: "PUT", path: listNo, header: map[string]string{"If-None-Match": "*"}, body: `nope`, wantCode: 400},
		{name: "put malformed If-Match", method: "PUT", header: map[string]string{"If-Match": "v1-abc"}, body: docB, wantCode: 400, wantDoc: docA},
		{name: "put wrong content type", method: "PUT", header: map[string]string{"If-Match": "$E", "Content-Type": "text/plain"}, body: docB, wantCode: 415, wantDoc: docA},
		{name: "put too large", method: "PUT", header: map[string]string{"If-Match": "$E"}, body: bigJSON(2048), wantCode: 413, wantDoc: docA},
		{name: "put too large chunked", method: "PUT", header: map[string]string{"If-Match": "$E"}, body: bigJSON(2048), chunked: true, wantCode: 413, wantDoc: docA},
		{name: "put at limit", method: "PUT", header: map[string]string{"If-Match": "$E"}, body: bigJSON(1024), wantCode: 200, wantDoc: bigJSON(1024), wantNewETag: true},
		{name: "post not allowed", method: "POST", body: docB, wantCode: 405, wantDoc: docA},
		{name: "delete", method: "DELETE", header: map[string]string{"If-Match": "$E"}, wantCode: 204},
		{name: "delete stale", method: "DELETE", header: map[string]string{"If-Match": `"stale"`}, wantCode: 412, wantDoc: docA},
		{name: "delete unconditional", method: "DELETE", wantCode: 428, wantDoc: docA},
		{name: "delete missing", method: "DELETE", path: listNo, header: map[string]string{"If-Match": "*"}, wantCode: 404},
		// RFC 9110: an empty If-Match list matches nothing; an empty
		// If-None-Match list matches nothing either, so it never blocks.
		{name: "get empty If-Match", method: "GET", header: map[string]string{"If-Match": ""}, wantCode: 412, wantDoc: docA},
		{name: "get empty If-None-Match", method: "GET", header: map[string]string{"If-None-Match": ""}, wantCode: 200, wantDoc: docA, wantBody: docA},
		{name: "get If-None-Match of empty elements", method: "GET", header: map[string]string{"If-None-Match": " , ,"}, wantCode: 200, wantDoc: docA, wantBody: docA},
		{name: "put empty If-Match", method: "PUT", header: map[string]string{"If-Match": ""}, body: docB, wantCode: 412, wantDoc: docA},
		{name: "put If-Match of empty elements", method: "PUT", header: map[string]string{"If-Match": ", ,"}, body: docB, wantCode: 412, wantDoc: docA},
		{name: "put empty If-Match missing doc", method: "PUT", path: listNo, header: map[string]string{"If-Match": ""}, body: docB, wantCode: 412},
		{name: "put empty If-None-Match beside If-Match", method: "PUT", header: map[string]string{"If-Match": "$E", "If-None-Match": ""}, body: docB, wantCode: 200, wantDoc: docB, wantNewETag: true, wantBody: docB},
		{name: "put empty If-None-Match only", method: "PUT", header: map[string]string{"If-None-Match": ""}, body: docB, wantCode: 428, wantDoc: docA},
		{name: "delete empty If-Match", method: "DELETE", header: map[string]string{"If-Match": ""}, wantCode: 412, wantDoc: docA},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ts := start(t, fakeapi.WithMaxBodyBytes(1024))
			etag := mustSet(t, s, listA, docA)
			path := tt.path
			if path == "" {
				path = listA
			}
			req, err := http.NewRequest(tt.method, ts.URL+path, bodyReader(tt.body, tt.chunked))
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.header {
				req.Header.Set(k, strings.ReplaceAll(v, "$E", etag))
			}
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatalf("%s %s: %v", tt.method, path, err)
			}
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()

			if resp.StatusCode != tt.wantCode {
				t.Fatalf("status = %d, want %d (body %q)", resp.StatusCode, tt.wantCode, body)
			}
			if !docEquals(s, path, tt.wantDoc) {
				got, _, _ := s.Get(path)
				t.Errorf("document at %s = %q, want %q", path, got, tt.wantDoc)
			}
			if tt.wantBody != "" && string(body) != tt.wantBody {
				t.Errorf("body = %q, want %q", body, tt.wantBody)
			}
			gotETag := resp.Header.Get("ETag")
			switch {
			case tt.wantNewETag && (gotETag == "" || gotETag == etag):
				t.Errorf("ETag = %q, want a new tag (old %q)", gotETag, etag)
			case !tt.wantNewETag && (tt.wantCode == 200 || tt.wantCode == 304) && gotETag != etag:
				t.Errorf("ETag = %q, want %q", gotETag, etag)
			case tt.wantNewETag:
				if _, cur, _ := s.Get(path); cur != gotETag {
					t.Errorf("answered ETag %q, stored %q", gotETag, cur)
				}
			}
			checkHeaders(t, tt.wantCode, path, resp.Header)
		})
	}
}

// checkHeaders checks the headers that go with some status codes.
func checkHeaders(t *testing.T, code int, path string, h http.Header) {
	t.Helper()
	switch code {
	case 200:
		if ct := h.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type = %q, want application/json", ct)
		}
	case 201:
		if loc := h.Get("Location"); loc != path {
			t.Errorf("Location = %q, want %q", loc, path)
		}
	case 405:
		if allow := h.Get("Allow"); allow == "" {
			t.Error("405 without Allow")
		}
	}
}

func bigJSON(n int) string {
	return `"` + strings.Repeat("x", n-2) + `"`
}

// bodyReader returns nil for no body, a reader of known length, or one the
// client must send chunked.
func bodyReader(body string, chunked bool) io.Reader {
	switch {
	case body == "":
		return nil
	case chunked:
		return io.MultiReader(strings.NewReader(body))
	default:
		return strings.NewReader(body)
	}
}

func TestAuth(t *testing.T) {
	const token = "s3cret-token"
	s, ts := start(t, fakeapi.WithToken(token))
	mustSet(t, s, listA, docA)
	tests := []struct {
		name     string
		path     string
		auth     string
		wantCode int
	}{
		{name: "missing", path: listA, wantCode: 401},
		{name: "wrong", path: listA, auth: "Bearer nope", wantCode: 401},
		{name: "wrong scheme", path: listA, auth: "Basic " + token, wantCode: 401},
		{name: "prefix of token", path: listA, auth: "Bearer s3cret", wantCode: 401},
		{name: "right", path: listA, auth: "Bearer " + token, wantCode: 200},
		{name: "scheme case-insensitive", path: listA, auth: "bearer " + token, wantCode: 200},
		{name: "missing doc still 404 when authorized", path: listNo, auth: "Bearer " + token, wantCode: 404},
		{name: "missing doc 401 when not", path: listNo, wantCode: 401},
		{name: "admin stats needs token", path: "/_fakeapi/stats", wantCode: 401},
		{name: "admin stats with token", path: "/_fakeapi/stats", auth: "Bearer " + token, wantCode: 200},
		{name: "healthz needs no token", path: "/_fakeapi/healthz", wantCode: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := map[string]string{}
			if tt.auth != "" {
				h["Authorization"] = tt.auth
			}
			res := mustCall(t, ts.Client(), "GET", ts.URL+tt.path, "", h)
			if res.code != tt.wantCode {
				t.Fatalf("status = %d, want %d", res.code, tt.wantCode)
			}
			if res.code == 401 && !strings.HasPrefix(res.header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("WWW-Authenticate = %q", res.header.Get("WWW-Authenticate"))
			}
			if strings.Contains(string(res.body), token) {
				t.Error("answer contains the token")
			}
		})
	}
}

func TestUnconditionalWrites(t *testing.T) {
	s, ts := start(t, fakeapi.WithRequireIfMatch(false))
	c := ts.Client()
	if res := mustCall(t, c, "PUT", ts.URL+listA, docA, nil); res.code != 201 {
		t.Fatalf("blind create = %d, want 201", res.code)
	}
	if res := mustCall(t, c, "PUT", ts.URL+listA, docB, nil); res.code != 200 {
		t.Fatalf("blind replace = %d, want 200", res.code)
	}
	if !docEquals(s, listA, docB) {
		t.Fatal("blind replace not stored")
	}
	// Conditions are still honoured when sent.
	if res := mustCall(t, c, "PUT", ts.URL+listA, docA, map[string]string{"If-Match": `"stale"`}); res.code != 412 {
		t.Fatalf("stale PUT = %d, want 412", res.code)
	}
	if res := mustCall(t, c, "DELETE", ts.URL+listA, "", nil); res.code != 204 {
		t.Fatalf("blind delete = %d, want 204", res.code)
	}
}

func TestEchoBodyOff(t *testing.T) {
	s, ts := start(t, fakeapi.WithEchoBody(false))
	c := ts.Client()
	res := mustCall(t, c, "PUT", ts.URL+listA, docA, map[string]string{"If-None-Match": "*"})
	if res.code != 201 || len(res.body) != 0 || res.header.Get("ETag") == "" {
		t.Fatalf("create = %d body %q ETag %q, want 201, empty, a tag", res.code, res.body, res.header.Get("ETag"))
	}
	res = mustCall(t, c, "PUT", ts.URL+listA, docB, map[string]string{"If-Match": res.header.Get("ETag")})
	if res.code != 204 || len(res.body) != 0 {
		t.Fatalf("replace = %d body %q, want 204 and no body", res.code, res.body)
	}
	if _, etag, _ := s.Get(listA); res.header.Get("ETag") != etag {
		t.Fatalf("204 ETag = %q, stored %q", res.header.Get("ETag"), etag)
	}
}

func TestETagModes(t *testing.T) {
	t.Run("weak", func(t *testing.T) {
		s, ts := start(t, fakeapi.WithETagMode(fakeapi.ETagWeak))
		strong := mustSet(t, s, listA, docA)
		res := mustCall(t, ts.Client(), "GET", ts.URL+listA, "", nil)
		if got := res.header.Get("ETag"); got != "W/"+strong {
			t.Fatalf("ETag = %q, want W/%s", got, strong)
		}
		for _, tag := range []string{"W/" + strong, strong} {
			if res := mustCall(t, ts.Client(), "PUT", ts.URL+listA, docB, map[string]string{"If-Match": tag}); res.code != 412 {
				t.Errorf("If-Match %s on a weak-tagged document = %d, want 412", tag, res.code)
			}
		}
		if res := mustCall(t, ts.Client(), "GET", ts.URL+listA, "", map[string]string{"If-None-Match": res.header.Get("ETag")}); res.code != 304 {
			t.Errorf("If-None-Match weak = %d, want 304", res.code)
		}
	})
	t.Run("none", func(t *testing.T) {
		s, ts := start(t, fakeapi.WithETagMode(fakeapi.ETagNone))
		mustSet(t, s, listA, docA)
		res := mustCall(t, ts.Client(), "GET", ts.URL+listA, "", nil)
		if _, ok := res.header["Etag"]; ok || res.code != 200 {
			t.Fatalf("GET = %d with ETag %q, want 200 and no ETag", res.code, res.header.Get("ETag"))
		}
	})
}

func TestNewRejectsInvalidOptions(t *testing.T) {
	tests := []struct {
		name string
		opt  fakeapi.Option
	}{
		{"zero body limit", fakeapi.WithMaxBodyBytes(0)},
		{"negative latency", fakeapi.WithLatency(-1, 0)},
		{"rate above 1", fakeapi.WithFaults(fakeapi.Faults{Rate503: 1.5})},
		{"rates sum above 1", fakeapi.WithFaults(fakeapi.Faults{Rate503: 0.6, Rate429: 0.6})},
		{"negative retry after", fakeapi.WithFaults(fakeapi.Faults{RetryAfter: -1})},
		{"unknown etag mode", fakeapi.WithETagMode(fakeapi.ETagMode(42))},
		{"unknown profile", fakeapi.WithProfile("minio")},
		{"empty profile", fakeapi.WithProfile("")},
		{"nil clock", fakeapi.WithClock(nil)},
		{"negative weak window", fakeapi.WithWeakWindow(-time.Second)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := fakeapi.New(tt.opt); err == nil {
				t.Fatal("New succeeded, want an error")
			}
		})
	}
}
