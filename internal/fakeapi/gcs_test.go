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
	"encoding/base64"
	"encoding/binary"
	"encoding/xml"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// gcsHeader builds request headers from key/value pairs, with a bearer
// token first unless the pairs set Authorization themselves.
func gcsHeader(kv ...string) map[string]string {
	m := map[string]string{"Authorization": "Bearer t"}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func TestGCSProfile(t *testing.T) {
	h, gen := gcsHeader, fakeapi.HeaderIfGenerationMatch
	meta := fakeapi.HeaderIfMetagenerationMatch
	anon := map[string]string{}
	stored := map[string]string{
		fakeapi.HeaderMetageneration:     "1",
		"x-goog-stored-content-length":   strconv.Itoa(len(docA)),
		"x-goog-stored-content-encoding": "identity",
	}
	runProfileCases(t, []fakeapi.Option{fakeapi.WithProfile(fakeapi.ProfileGCS)}, []profileCase{
		// Reads: anonymous reads work (a public object), the ETag is the
		// quoted MD5, the generation comes along; If-Match and
		// If-None-Match apply to reads.
		{name: "get", method: "GET", header: anon, wantCode: 200, wantDoc: docA, wantBody: docA, wantETag: quotedMD5(docA), wantGeneration: "$G", wantHeader: stored},
		{name: "head", method: "HEAD", header: anon, wantCode: 200, wantDoc: docA, wantEmpty: true, wantETag: "$E", wantGeneration: "$G"},
		{name: "get unchanged", method: "GET", header: h("If-None-Match", "$E"), wantCode: 304, wantDoc: docA, wantETag: "$E", wantEmpty: true, wantGeneration: "-"},
		{name: "get If-Match stale", method: "GET", header: h("If-Match", `"0"`), wantCode: 412, wantDoc: docA, wantErrCode: "PreconditionFailed", wantGeneration: "-"},
		{name: "get If-Match current", method: "GET", header: h("If-Match", "$E"), wantCode: 200, wantDoc: docA, wantBody: docA, wantGeneration: "$G"},
		{name: "get generation current", method: "GET", header: h(gen, "$G"), wantCode: 200, wantDoc: docA, wantBody: docA, wantGeneration: "$G"},
		{name: "get generation stale", method: "GET", header: h(gen, "1"), wantCode: 412, wantDoc: docA, wantErrCode: "PreconditionFailed"},
		{name: "get missing", method: "GET", path: listNo, wantCode: 404, wantErrCode: "NoSuchKey", wantGeneration: "-"},

		// Writes by generation.
		{name: "put generation current", method: "PUT", header: h(gen, "$G"), body: docB, wantCode: 200, wantDoc: docB, wantETag: quotedMD5(docB), wantStoredETag: true, wantEmpty: true, wantGeneration: "new"},
		{name: "put same content keeps the tag, not the generation", method: "PUT", header: h(gen, "$G"), body: docA, wantCode: 200, wantDoc: docA, wantETag: "$E", wantGeneration: "new"},
		{name: "put generation stale", method: "PUT", header: h(gen, "1"), body: docB, wantCode: 412, wantDoc: docA, wantErrCode: "PreconditionFailed", wantGeneration: "-"},
		{name: "put generation 0 over existing", method: "PUT", header: h(gen, "0"), body: docB, wantCode: 412, wantDoc: docA, wantErrCode: "PreconditionFailed"},
		{name: "create with generation 0", method: "PUT", path: listNo, header: h(gen, "0"), body: docB, wantCode: 200, wantDoc: docB, wantStoredETag: true, wantEmpty: true, wantGeneration: "new"},
		{name: "put generation on missing object", method: "PUT", path: listNo, header: h(gen, "$G"), body: docB, wantCode: 412, wantErrCode: "PreconditionFailed"},
		{name: "put generation and metageneration", method: "PUT", header: h(gen, "$G", meta, "1"), body: docB, wantCode: 200, wantDoc: docB, wantGeneration: "new"},
		{name: "put metageneration stale", method: "PUT", header: h(gen, "$G", meta, "2"), body: docB, wantCode: 412, wantDoc: docA, wantErrCode: "PreconditionFailed"},
		{name: "put generation with space", method: "PUT", header: h(gen, " $G "), body: docB, wantCode: 200, wantDoc: docB},
		{name: "put generation not a number", method: "PUT", header: h(gen, "abc"), body: docB, wantCode: 400, wantDoc: docA, wantErrCode: "InvalidArgument"},
		{name: "put generation negative", method: "PUT", header: h(gen, "-1"), body: docB, wantCode: 400, wantDoc: docA, wantErrCode: "InvalidArgument"},
		{name: "put invalid json", method: "PUT", header: h(gen, "$G"), body: `{`, wantCode: 400, wantDoc: docA, wantErrCode: "InvalidArgument"},

		// No 428, and If-Match and If-None-Match on a write are ignored,
		// as GCS applies them to reads only: each of these overwrites.
		{name: "put without precondition", method: "PUT", body: docB, header: h(), wantCode: 200, wantDoc: docB, wantGeneration: "new"},
		{name: "put If-Match stale is ignored", method: "PUT", header: h("If-Match", `"stale"`), body: docB, wantCode: 200, wantDoc: docB, wantGeneration: "new"},
		{name: "put If-Match on missing is ignored", method: "PUT", path: listNo, header: h("If-Match", "$E"), body: docB, wantCode: 200, wantDoc: docB},
		{name: "put If-None-Match star is ignored", method: "PUT", header: h("If-None-Match", "*"), body: docB, wantCode: 200, wantDoc: docB},
		{name: "put malformed If-Match is ignored", method: "PUT", header: h("If-Match", "nonsense"), body: docB, wantCode: 200, wantDoc: docB},
		{name: "put If-Match current, generation stale", method: "PUT", header: h("If-Match", "$E", gen, "1"), body: docB, wantCode: 412, wantDoc: docA, wantErrCode: "PreconditionFailed"},

		// Writes are never anonymous.
		{name: "put anonymous", method: "PUT", header: map[string]string{gen: "$G"}, body: docB, wantCode: 401, wantDoc: docA, wantErrCode: "AuthenticationRequired"},
		{name: "put empty bearer", method: "PUT", header: h("Authorization", "Bearer ", gen, "$G"), body: docB, wantCode: 401, wantDoc: docA, wantErrCode: "AuthenticationRequired"},
		{name: "put basic auth", method: "PUT", header: h("Authorization", "Basic dTpw", gen, "$G"), body: docB, wantCode: 401, wantDoc: docA, wantErrCode: "AuthenticationRequired"},
		{name: "delete anonymous", method: "DELETE", header: anon, wantCode: 401, wantDoc: docA, wantErrCode: "AuthenticationRequired"},

		{name: "delete generation stale", method: "DELETE", header: h(gen, "1"), wantCode: 412, wantDoc: docA, wantErrCode: "PreconditionFailed"},
		{name: "delete If-Match stale is ignored", method: "DELETE", header: h("If-Match", `"stale"`), wantCode: 204},
		{name: "delete generation current", method: "DELETE", header: h(gen, "$G"), wantCode: 204},
		{name: "delete missing", method: "DELETE", path: listNo, header: h(), wantCode: 404, wantErrCode: "NoSuchKey"},
		{name: "post", method: "POST", header: h(), body: docB, wantCode: 405, wantDoc: docA, wantErrCode: "MethodNotAllowed"},
	})
}

// TestGCSGenerationsNeverRepeat checks that generations grow with every
// version of every object, across deletion and re-creation, even when the
// clock stands still, and that they are the clock in microseconds when it
// moves.
func TestGCSGenerationsNeverRepeat(t *testing.T) {
	begin := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	var now atomic.Int64 // the clock, in nanoseconds since the epoch
	now.Store(begin.UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	s, ts := start(t, fakeapi.WithProfile(fakeapi.ProfileGCS), fakeapi.WithHistory(true), fakeapi.WithClock(clock))
	c := rawClient(t)
	var seen []int64
	step := func(method, path, body string, header map[string]string, wantCode int) {
		t.Helper()
		res := mustCall(t, c, method, ts.URL+path, body, header)
		if res.code != wantCode {
			t.Fatalf("%s %s = %d %s, want %d", method, path, res.code, res.body, wantCode)
		}
		if g := res.header.Get(fakeapi.HeaderGeneration); g != "" {
			n, err := strconv.ParseInt(g, 10, 64)
			if err != nil {
				t.Fatalf("%s = %q: %v", fakeapi.HeaderGeneration, g, err)
			}
			seen = append(seen, n)
		}
	}
	gen := func(path string) string {
		g, _ := s.Generation(path)
		return strconv.FormatInt(g, 10)
	}
	h := gcsHeader
	step("PUT", listA, docA, h(fakeapi.HeaderIfGenerationMatch, "0"), 200)
	if seen[0] != begin.UnixMicro() {
		t.Errorf("first generation %d, want the clock in microseconds %d", seen[0], begin.UnixMicro())
	}
	step("PUT", listA, docB, h(fakeapi.HeaderIfGenerationMatch, gen(listA)), 200)
	step("PUT", "/lists/other", docA, h(), 200)
	step("DELETE", listA, "", h(fakeapi.HeaderIfGenerationMatch, gen(listA)), 204)
	step("PUT", listA, docA, h(fakeapi.HeaderIfGenerationMatch, "0"), 200) // re-created
	now.Store(begin.Add(-time.Hour).UnixNano())                            // the clock goes back
	step("PUT", listA, docA, h(fakeapi.HeaderIfGenerationMatch, gen(listA)), 200)
	now.Store(begin.Add(time.Hour).UnixNano())
	step("PUT", listA, docB, h(), 200)
	if want := clock().UnixMicro(); seen[len(seen)-1] != want {
		t.Errorf("generation after the clock moved on = %d, want %d", seen[len(seen)-1], want)
	}

	if !slices.IsSorted(seen) || len(slices.Compact(slices.Clone(seen))) != len(seen) {
		t.Fatalf("generations answered %v, want strictly increasing", seen)
	}
	hist := s.History(listA)
	for i := 1; i < len(hist); i++ {
		if hist[i].Generation <= hist[i-1].Generation {
			t.Fatalf("history generations %d then %d", hist[i-1].Generation, hist[i].Generation)
		}
	}
	if !hist[2].Deleted || hist[3].Generation <= hist[2].Generation {
		t.Errorf("the re-created object's generation %d is not above the deletion's %d", hist[3].Generation, hist[2].Generation)
	}
}

// TestGCSObjectHeaders checks the x-goog-hash of a read and of a write
// answer against the stored body: CRC32C (big-endian) and MD5, base64.
func TestGCSObjectHeaders(t *testing.T) {
	s, ts := start(t, fakeapi.WithProfile(fakeapi.ProfileGCS))
	mustSet(t, s, listA, docA)
	c := rawClient(t)
	want := func(body string) []string {
		var crc [4]byte
		binary.BigEndian.PutUint32(crc[:], crc32.Checksum([]byte(body), crc32.MakeTable(crc32.Castagnoli)))
		sum := md5.Sum([]byte(body))
		return []string{"crc32c=" + base64.StdEncoding.EncodeToString(crc[:]), "md5=" + base64.StdEncoding.EncodeToString(sum[:])}
	}
	res := mustCall(t, c, "GET", ts.URL+listA, "", nil)
	if got := res.header.Values("x-goog-hash"); !slices.Equal(got, want(docA)) {
		t.Errorf("GET x-goog-hash = %q, want %q", got, want(docA))
	}
	res = mustCall(t, c, "PUT", ts.URL+listA, docB, gcsHeader(fakeapi.HeaderIfGenerationMatch, res.header.Get(fakeapi.HeaderGeneration)))
	if got := res.header.Values("x-goog-hash"); res.code != 200 || !slices.Equal(got, want(docB)) {
		t.Errorf("PUT = %d, x-goog-hash = %q, want %q", res.code, got, want(docB))
	}
	if got := res.header.Get("x-goog-stored-content-length"); got != strconv.Itoa(len(docB)) {
		t.Errorf("PUT x-goog-stored-content-length = %q", got)
	}
}

// TestGCSErrorBody checks the whole shape of a GCS error answer.
func TestGCSErrorBody(t *testing.T) {
	s, ts := start(t, fakeapi.WithProfile(fakeapi.ProfileGCS))
	mustSet(t, s, listA, docA)
	res := mustCall(t, rawClient(t), "PUT", ts.URL+listA, docB, gcsHeader(fakeapi.HeaderIfGenerationMatch, "1"))
	if res.code != 412 || res.header.Get("Content-Type") != "application/xml" {
		t.Fatalf("status %d, Content-Type %q", res.code, res.header.Get("Content-Type"))
	}
	const decl = `<?xml version='1.0' encoding='UTF-8'?>`
	if !strings.HasPrefix(string(res.body), decl+"<Error><Code>PreconditionFailed</Code><Message>") {
		t.Errorf("body %s", res.body)
	}
	var e xmlError
	if err := xml.Unmarshal(res.body, &e); err != nil {
		t.Fatal(err)
	}
	if e.Message == "" || e.Resource != "" || e.RequestID != "" {
		t.Errorf("error %+v: want a message and neither S3's Resource nor RequestId", e)
	}
}

// TestGCSStateFileKeepsGenerations checks that generations survive a
// restart with a state file, that the next one is still above them, and
// that a state file written before generations existed gets them.
func TestGCSStateFileKeepsGenerations(t *testing.T) {
	file := filepath.Join(t.TempDir(), "state.json")
	opts := []fakeapi.Option{fakeapi.WithProfile(fakeapi.ProfileGCS), fakeapi.WithStateFile(file)}
	s1, err := fakeapi.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	mustSet(t, s1, listA, docA)
	mustSet(t, s1, listNo, docA)
	if err := s1.Delete(listNo); err != nil {
		t.Fatal(err)
	}
	g1, _ := s1.Generation(listA)

	// A clock far behind: only the persisted high-water mark keeps the
	// next generation above the deleted object's.
	past := func() time.Time { return time.Unix(1, 0) }
	s2, err := fakeapi.New(append(opts, fakeapi.WithClock(past))...)
	if err != nil {
		t.Fatal(err)
	}
	if g, ok := s2.Generation(listA); !ok || g != g1 {
		t.Fatalf("generation after restart = %d, %v; want %d", g, ok, g1)
	}
	mustSet(t, s2, listNo, docB)
	if g, _ := s2.Generation(listNo); g <= g1+1 {
		t.Errorf("generation of the re-created object = %d, want above %d and the deletion's", g, g1)
	}

	old := `{"format":1,"seq":2,"documents":{"/b":{"etag":"v2-x","seq":2,"body":"[]"},"/a":{"etag":"v1-x","seq":1,"body":"[]"}}}`
	if err := os.WriteFile(file, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	s3, err := fakeapi.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	ga, _ := s3.Generation("/a")
	gb, _ := s3.Generation("/b")
	if ga <= 0 || gb <= ga {
		t.Errorf("generations given to an old state file: /a %d, /b %d; want positive, in path order", ga, gb)
	}
}

// TestGCSNotModifiedHidesANewGeneration pins a trap of MD5 ETags: after
// A, B and A again, a read that revalidates with A's ETag gets 304 (the
// content is the same) although the generation moved on twice, and the
// 304 does not say so. A client that keeps the generation of its first
// read gets 412 on its next write and must read again without
// If-None-Match.
func TestGCSNotModifiedHidesANewGeneration(t *testing.T) {
	s, ts := start(t, fakeapi.WithProfile(fakeapi.ProfileGCS))
	c := rawClient(t)
	mustSet(t, s, listA, docA)
	first := mustCall(t, c, "GET", ts.URL+listA, "", nil)
	mustSet(t, s, listA, docB)
	mustSet(t, s, listA, docA)

	res := mustCall(t, c, "GET", ts.URL+listA, "", map[string]string{"If-None-Match": first.header.Get("ETag")})
	if res.code != 304 || res.header.Get(fakeapi.HeaderGeneration) != "" {
		t.Fatalf("revalidation = %d with generation %q, want 304 without one", res.code, res.header.Get(fakeapi.HeaderGeneration))
	}
	res = mustCall(t, c, "PUT", ts.URL+listA, docB, gcsHeader(fakeapi.HeaderIfGenerationMatch, first.header.Get(fakeapi.HeaderGeneration)))
	if res.code != 412 {
		t.Fatalf("write with the first read's generation = %d, want 412", res.code)
	}
	res = mustCall(t, c, "GET", ts.URL+listA, "", nil)
	res = mustCall(t, c, "PUT", ts.URL+listA, docB, gcsHeader(fakeapi.HeaderIfGenerationMatch, res.header.Get(fakeapi.HeaderGeneration)))
	if res.code != 200 {
		t.Fatalf("write after a full read = %d, want 200", res.code)
	}
}
