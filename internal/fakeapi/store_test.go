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
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

func TestDirectAccessors(t *testing.T) {
	s, err := fakeapi.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, path, body string
	}{
		{"invalid json", listA, `{`},
		{"relative path", "lists/a", docA},
		{"admin path", "/_fakeapi/stats", docA},
	} {
		t.Run("Set rejects "+tt.name, func(t *testing.T) {
			if _, err := s.Set(tt.path, []byte(tt.body)); err == nil {
				t.Fatal("Set succeeded, want an error")
			}
		})
	}

	in := []byte(docA)
	etag, err := s.Set(listA, in)
	if err != nil {
		t.Fatal(err)
	}
	in[0] = 'X' // the Server must have copied the body
	body, got, ok := s.Get(listA)
	if !ok || string(body) != docA || got != etag {
		t.Fatalf("Get = %q %q %v, want %q %q true", body, got, ok, docA, etag)
	}
	body[0] = 'X' // and must hand out copies
	if !docEquals(s, listA, docA) {
		t.Fatal("Get returned the stored slice")
	}
	mustSet(t, s, "/lists/b", "[]")
	if got, want := s.Paths(), []string{listA, "/lists/b"}; !slices.Equal(got, want) {
		t.Fatalf("Paths = %v, want %v", got, want)
	}
	if err := s.Delete(listA); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(listA); err != nil {
		t.Fatalf("second Delete: %v", err)
	}
	if _, _, ok := s.Get(listA); ok {
		t.Fatal("document still there after Delete")
	}
}

// TestETagsNeverRepeat writes, deletes and re-creates documents on two
// paths and on two servers, and checks that no tag is ever seen twice.
func TestETagsNeverRepeat(t *testing.T) {
	seen := map[string]string{}
	note := func(t *testing.T, etag, what string) {
		t.Helper()
		if etag == "" {
			t.Fatalf("%s: no ETag", what)
		}
		if prev, dup := seen[etag]; dup {
			t.Fatalf("%s: ETag %s already served for %s", what, etag, prev)
		}
		seen[etag] = what
	}
	for srv := range 2 {
		s, ts := start(t)
		c := ts.Client()
		for _, path := range []string{listA, "/lists/b"} {
			// The same bodies on every server and path.
			res := mustCall(t, c, "PUT", ts.URL+path, docA, map[string]string{"If-None-Match": "*"})
			note(t, res.header.Get("ETag"), fmt.Sprintf("server %d create %s", srv, path))
			for i := range 3 {
				res = mustCall(t, c, "PUT", ts.URL+path, docA, map[string]string{"If-Match": res.header.Get("ETag")})
				note(t, res.header.Get("ETag"), fmt.Sprintf("server %d put %d %s", srv, i, path))
			}
			if res := mustCall(t, c, "DELETE", ts.URL+path, "", map[string]string{"If-Match": res.header.Get("ETag")}); res.code != 204 {
				t.Fatalf("DELETE = %d", res.code)
			}
			note(t, mustSet(t, s, path, docA), fmt.Sprintf("server %d re-create %s", srv, path))
		}
	}
}

func TestHistory(t *testing.T) {
	s, ts := start(t, fakeapi.WithHistory(true))
	e1 := mustSet(t, s, listA, docA)
	res := mustCall(t, ts.Client(), "PUT", ts.URL+listA, docB, map[string]string{"If-Match": e1})
	if res.code != 200 {
		t.Fatalf("PUT = %d", res.code)
	}
	if res := mustCall(t, ts.Client(), "DELETE", ts.URL+listA, "", map[string]string{"If-Match": res.header.Get("ETag")}); res.code != 204 {
		t.Fatalf("DELETE = %d", res.code)
	}
	h := s.History(listA)
	if len(h) != 3 {
		t.Fatalf("History has %d versions, want 3: %+v", len(h), h)
	}
	wantETags := []string{e1, res.header.Get("ETag")}
	for i, v := range h {
		if i > 0 && v.Seq <= h[i-1].Seq {
			t.Errorf("version %d: Seq %d not after %d", i, v.Seq, h[i-1].Seq)
		}
		if i < 2 && v.ETag != wantETags[i] {
			t.Errorf("version %d: ETag %s, want %s", i, v.ETag, wantETags[i])
		}
	}
	if string(h[0].Body) != docA || string(h[1].Body) != docB || !h[2].Deleted || h[2].Body != nil {
		t.Errorf("History bodies = %q %q %q (deleted %v)", h[0].Body, h[1].Body, h[2].Body, h[2].Deleted)
	}

	// The admin route serves the same.
	hres := mustCall(t, ts.Client(), "GET", ts.URL+"/_fakeapi/history?path="+listA, "", nil)
	var served []fakeapi.Version
	if err := json.Unmarshal(hres.body, &served); err != nil || len(served) != 3 {
		t.Fatalf("/_fakeapi/history = %d %s (%v)", hres.code, hres.body, err)
	}

	if off, _ := fakeapi.New(); off.History(listA) != nil {
		t.Error("History without WithHistory is not nil")
	}
}

func TestStats(t *testing.T) {
	s, ts := start(t)
	c := ts.Client()
	etag := mustSet(t, s, listA, docA)
	mustCall(t, c, "GET", ts.URL+listA, "", nil)
	mustCall(t, c, "GET", ts.URL+listA, "", map[string]string{"If-None-Match": etag})
	mustCall(t, c, "GET", ts.URL+listNo, "", nil)
	mustCall(t, c, "PUT", ts.URL+listA, docB, map[string]string{"If-Match": etag})
	mustCall(t, c, "PUT", ts.URL+listA, docB, map[string]string{"If-Match": etag})
	mustCall(t, c, "GET", ts.URL+"/_fakeapi/healthz", "", nil) // not counted

	st := s.Stats()
	for _, w := range []struct {
		method string
		code   int
		want   int64
	}{
		{"GET", 200, 1}, {"GET", 304, 1}, {"GET", 404, 1}, {"PUT", 200, 1}, {"PUT", 412, 1},
	} {
		if got := st.Count(w.method, w.code); got != w.want {
			t.Errorf("Count(%s, %d) = %d, want %d", w.method, w.code, got, w.want)
		}
	}
	if st.Total != 5 || st.Commits != 1 || st.CountCode(200) != 2 {
		t.Errorf("Total %d Commits %d CountCode(200) %d, want 5 1 2", st.Total, st.Commits, st.CountCode(200))
	}

	// The admin route serves the same, and DELETE resets.
	res := mustCall(t, c, "GET", ts.URL+"/_fakeapi/stats", "", nil)
	var served fakeapi.Stats
	if err := json.Unmarshal(res.body, &served); err != nil {
		t.Fatalf("decode /_fakeapi/stats %s: %v", res.body, err)
	}
	if served.Count("PUT", 412) != 1 || served.Total != 5 {
		t.Errorf("served stats = %+v", served)
	}
	if res := mustCall(t, c, "DELETE", ts.URL+"/_fakeapi/stats", "", nil); res.code != 204 {
		t.Fatalf("DELETE /_fakeapi/stats = %d", res.code)
	}
	if st := s.Stats(); st.Total != 0 || st.Commits != 0 || len(st.Requests) != 0 {
		t.Errorf("after reset: %+v", st)
	}
}
