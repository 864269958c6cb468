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
	"sync"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// fakeClock is a clock that moves only when told to.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// apacheTag is the form of the strong tags of the webdav profile.
const apacheTag = `"[0-9a-f]+-[0-9a-f]{13}"`

func TestWebDAVProfile(t *testing.T) {
	h := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	vary := map[string]string{"Vary": "Accept-Encoding", "Content-Encoding": "-"}
	html := map[string]string{"Content-Type": "text/html; charset=iso-8859-1"}
	t.Run("settled", func(t *testing.T) {
		// Without the weak window every tag is strong at once.
		runProfileCases(t, []fakeapi.Option{fakeapi.WithProfile(fakeapi.ProfileWebDAV), fakeapi.WithWeakWindow(0)}, []profileCase{
			{name: "get", method: "GET", wantCode: 200, wantDoc: docA, wantBody: docA, wantETag: apacheTag, wantHeader: vary},
			{name: "get identity", method: "GET", header: h("Accept-Encoding", "identity"), wantCode: 200, wantDoc: docA, wantBody: docA, wantETag: "$E"},
			{name: "get gzip", method: "GET", header: h("Accept-Encoding", "br, gzip;q=0.8"), wantCode: 200, wantDoc: docA, wantGunzip: docA, wantETag: `"$O-gzip"`, wantHeader: map[string]string{"Vary": "Accept-Encoding"}},
			{name: "get gzip refused", method: "GET", header: h("Accept-Encoding", "gzip;q=0, identity"), wantCode: 200, wantDoc: docA, wantBody: docA, wantETag: "$E", wantHeader: vary},
			{name: "get star is not gzip", method: "GET", header: h("Accept-Encoding", "*"), wantCode: 200, wantDoc: docA, wantBody: docA, wantETag: "$E"},
			{name: "get unchanged", method: "GET", header: h("If-None-Match", "$E"), wantCode: 304, wantDoc: docA, wantETag: "$E", wantEmpty: true},
			{name: "get unchanged gzip tag", method: "GET", header: h("If-None-Match", `"$O-gzip"`, "Accept-Encoding", "gzip"), wantCode: 304, wantDoc: docA, wantETag: `"$O-gzip"`, wantEmpty: true},
			{name: "get unchanged gzip tag without gzip", method: "GET", header: h("If-None-Match", `"$O-gzip"`), wantCode: 304, wantDoc: docA, wantETag: "$E", wantEmpty: true},
			{name: "get unchanged plain tag with gzip", method: "GET", header: h("If-None-Match", "$E", "Accept-Encoding", "gzip"), wantCode: 304, wantDoc: docA, wantETag: `"$O-gzip"`, wantEmpty: true},
			{name: "get missing", method: "GET", path: listNo, wantCode: 404, wantHeader: html},
			{name: "put", method: "PUT", header: h("If-Match", "$E"), body: docB, wantCode: 204, wantDoc: docB, wantETag: "-", wantEmpty: true},
			{name: "put gzip tag never matches", method: "PUT", header: h("If-Match", `"$O-gzip"`), body: docB, wantCode: 412, wantDoc: docA, wantHeader: html},
			{name: "put gzip tag never matches, gzip accepted", method: "PUT", header: h("If-Match", `"$O-gzip"`, "Accept-Encoding", "gzip"), body: docB, wantCode: 412, wantDoc: docA},
			{name: "put without precondition", method: "PUT", body: docB, wantCode: 204, wantDoc: docB, wantETag: "-"},
			{name: "create", method: "PUT", path: listNo, header: h("If-None-Match", "*"), body: docB, wantCode: 201, wantDoc: docB, wantETag: "-", wantHeader: map[string]string{"Location": listNo, "Content-Type": "text/html; charset=iso-8859-1"}},
			{name: "create exists", method: "PUT", header: h("If-None-Match", "*"), body: docB, wantCode: 412, wantDoc: docA, wantHeader: html},
			{name: "create over gzip tag", method: "PUT", header: h("If-None-Match", `"$O-gzip"`), body: docB, wantCode: 412, wantDoc: docA},
			{name: "put stale", method: "PUT", header: h("If-Match", `"0-0000000000000"`), body: docB, wantCode: 412, wantDoc: docA},
			{name: "put If-Match on missing", method: "PUT", path: listNo, header: h("If-Match", "$E"), body: docB, wantCode: 412},
			{name: "post", method: "POST", body: docB, wantCode: 405, wantDoc: docA, wantHeader: map[string]string{"Allow": "GET, HEAD, PUT, DELETE"}},
		})
	})
	t.Run("fresh", func(t *testing.T) {
		// The clock never moves: every document was written just now.
		clock := newFakeClock()
		runProfileCases(t, []fakeapi.Option{fakeapi.WithProfile(fakeapi.ProfileWebDAV), fakeapi.WithClock(clock.Now)}, []profileCase{
			{name: "get", method: "GET", wantCode: 200, wantDoc: docA, wantBody: docA, wantETag: "W/$E"},
			{name: "get gzip", method: "GET", header: h("Accept-Encoding", "gzip"), wantCode: 200, wantDoc: docA, wantGunzip: docA, wantETag: `W/"$O-gzip"`},
			{name: "get unchanged", method: "GET", header: h("If-None-Match", "W/$E"), wantCode: 304, wantDoc: docA, wantETag: "W/$E"},
			{name: "put strong tag", method: "PUT", header: h("If-Match", "$E"), body: docB, wantCode: 412, wantDoc: docA},
			{name: "put weak tag", method: "PUT", header: h("If-Match", "W/$E"), body: docB, wantCode: 412, wantDoc: docA},
			{name: "put star", method: "PUT", header: h("If-Match", "*"), body: docB, wantCode: 204, wantDoc: docB},
		})
	})
}

// TestWebDAVWeakWindow follows one document through the weak window with
// a fake clock: weak after each write, strong from one second on.
func TestWebDAVWeakWindow(t *testing.T) {
	clock := newFakeClock()
	s, ts := start(t, fakeapi.WithProfile(fakeapi.ProfileWebDAV), fakeapi.WithClock(clock.Now))
	strong := mustSet(t, s, listA, docA)
	c := rawClient(t)
	get := func() string {
		t.Helper()
		return mustCall(t, c, "GET", ts.URL+listA, "", nil).header.Get("ETag")
	}
	if got := get(); got != "W/"+strong {
		t.Fatalf("just written: ETag %q, want W/%s", got, strong)
	}
	clock.Advance(fakeapi.DefaultWeakWindow - time.Millisecond)
	if got := get(); got != "W/"+strong {
		t.Fatalf("just inside the window: ETag %q, want W/%s", got, strong)
	}
	clock.Advance(time.Millisecond)
	if got := get(); got != strong {
		t.Fatalf("after the window: ETag %q, want %s", got, strong)
	}
	if res := mustCall(t, c, "PUT", ts.URL+listA, docB, map[string]string{"If-Match": strong}); res.code != 204 {
		t.Fatalf("PUT with the strong tag = %d, want 204", res.code)
	}
	_, next, _ := s.Get(listA)
	if got := get(); got != "W/"+next {
		t.Fatalf("after the PUT: ETag %q, want W/%s", got, next)
	}
	if v := s.History(listA); v != nil {
		t.Errorf("history without WithHistory: %v", v)
	}
}

// TestWebDAVGzipLivelock shows the trap of Apache bug 45023: a client that
// lets its transport negotiate gzip reads a "-gzip" tag that If-Match never
// matches, however often it retries; asking for identity gets a tag that
// works.
func TestWebDAVGzipLivelock(t *testing.T) {
	s, ts := start(t, fakeapi.WithProfile(fakeapi.ProfileWebDAV), fakeapi.WithWeakWindow(0))
	strong := mustSet(t, s, listA, docA)
	transparent := ts.Client() // adds Accept-Encoding: gzip and decodes
	for range 3 {
		resp, err := transparent.Get(ts.URL + listA)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		tag := resp.Header.Get("ETag")
		if !resp.Uncompressed || string(body) != docA || tag != strings.TrimSuffix(strong, `"`)+`-gzip"` {
			t.Fatalf("GET: uncompressed %v, body %q, ETag %q", resp.Uncompressed, body, tag)
		}
		if res := mustCall(t, transparent, "PUT", ts.URL+listA, docB, map[string]string{"If-Match": tag}); res.code != http.StatusPreconditionFailed {
			t.Fatalf("PUT with %s = %d, want 412", tag, res.code)
		}
	}
	res := mustCall(t, rawClient(t), "GET", ts.URL+listA, "", map[string]string{"Accept-Encoding": "identity"})
	if res.code != 200 || res.header.Get("ETag") != strong {
		t.Fatalf("identity GET = %d with ETag %q, want %s", res.code, res.header.Get("ETag"), strong)
	}
	if res := mustCall(t, rawClient(t), "PUT", ts.URL+listA, docB, map[string]string{"If-Match": strong}); res.code != 204 {
		t.Fatalf("PUT with the identity tag = %d, want 204", res.code)
	}
}
