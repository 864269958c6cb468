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
	"slices"
	"testing"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// quirkyReport is what the quirky profile answers to a successful PUT.
const quirkyReport = `{"status":"ok","stored":true,"items":[]}`

func TestQuirkyProfile(t *testing.T) {
	h := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	moved := func(loc string) map[string]string { return map[string]string{"Location": loc} }
	runProfileCases(t, []fakeapi.Option{fakeapi.WithProfile(fakeapi.ProfileQuirky)}, []profileCase{
		{name: "get", method: "GET", wantCode: 200, wantDoc: docA, wantBody: docA, wantETag: "$E"},
		{name: "get unchanged", method: "GET", header: h("If-None-Match", "$E"), wantCode: 304, wantDoc: docA, wantETag: "$E"},
		{name: "put answers a report", method: "PUT", header: h("If-Match", "$E"), body: docB, wantCode: 200, wantDoc: docB, wantBody: quirkyReport, wantStoredETag: true, wantHeader: map[string]string{"Content-Type": "application/json"}},
		{name: "create answers 200 and a report", method: "PUT", path: listNo, header: h("If-None-Match", "*"), body: docB, wantCode: 200, wantDoc: docB, wantBody: quirkyReport, wantStoredETag: true, wantHeader: map[string]string{"Location": "-"}},
		{name: "put stale", method: "PUT", header: h("If-Match", `"stale"`), body: docB, wantCode: 412, wantDoc: docA},
		{name: "put without precondition", method: "PUT", body: docB, wantCode: 428, wantDoc: docA},
		{name: "put trailing slash", method: "PUT", path: listA + "/", header: h("If-Match", "$E"), body: docB, wantCode: 301, wantETag: "-", wantHeader: moved(listA)},
		{name: "put trailing slashes", method: "PUT", path: listA + "//", header: h("If-Match", "$E"), body: docB, wantCode: 301, wantHeader: moved(listA)},
		{name: "put trailing slash with query", method: "PUT", path: listA + "/?v=1", header: h("If-Match", "$E"), body: docB, wantCode: 301, wantHeader: moved(listA + "?v=1")},
		{name: "put trailing slash escaped", method: "PUT", path: "/lists/a%20b/", header: h("If-None-Match", "*"), body: docB, wantCode: 301, wantHeader: moved("/lists/a%20b")},
		{name: "get trailing slash", method: "GET", path: listA + "/", wantCode: 301, wantHeader: moved(listA)},
		{name: "delete trailing slash", method: "DELETE", path: listA + "/", header: h("If-Match", "$E"), wantCode: 301, wantHeader: moved(listA)},
		{name: "root is not redirected", method: "GET", path: "/", wantCode: 404},
		{name: "no redirect to another host", method: "GET", path: "//evil.example/", wantCode: 404, wantHeader: map[string]string{"Location": "-"}},
	})
}

// TestQuirkyRedirectedPut shows what a trailing-slash PUT does: nothing is
// stored, and a client that follows the redirect, as Go's does by turning
// the PUT into a GET, sees a 200 for a write that never happened.
func TestQuirkyRedirectedPut(t *testing.T) {
	s, ts := start(t, fakeapi.WithProfile(fakeapi.ProfileQuirky))
	etag := mustSet(t, s, listA, docA)
	res := mustCall(t, ts.Client(), "PUT", ts.URL+listA+"/", docB, map[string]string{"If-Match": etag})
	if res.code != 200 || string(res.body) != docA || res.header.Get("ETag") != etag {
		t.Fatalf("followed PUT = %d %q (ETag %s), want the 200 of a GET of the unchanged document", res.code, res.body, res.header.Get("ETag"))
	}
	if got := s.Paths(); !slices.Equal(got, []string{listA}) || !docEquals(s, listA, docA) {
		t.Fatalf("paths %v, document %v: the redirected PUT stored something", got, docEquals(s, listA, docA))
	}
	st := s.Stats()
	if st.Count("PUT", 301) != 1 || st.Count("GET", 200) != 1 || st.Commits != 0 {
		t.Errorf("stats %v, commits %d", st.Requests, st.Commits)
	}
}
