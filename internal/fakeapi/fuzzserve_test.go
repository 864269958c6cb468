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

package fakeapi

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// listCodes are the codes the list routes may answer (without token,
// faults or state file): 301 only under quirky, 409 only under s3 and
// azure-blob, 401 only under gcs (a write without a bearer token). adminCodes are those of the /_fakeapi/ routes, where
// http.ServeMux also redirects paths that are not clean
// ("/_fakeapi/../l" -> 307 /l), which the package doc does not mention.
var (
	listCodes  = []int{200, 201, 204, 301, 304, 400, 401, 404, 405, 409, 412, 413, 415, 428}
	adminCodes = []int{200, 204, 301, 307, 308, 400, 404, 405}
)

// FuzzServeHTTP sends one random request to a fresh Server, built with the
// profile that the last input picks, holding one document, and checks: no
// panic; a documented status code; every stored document is valid JSON;
// the document at the request's path is either untouched or, after a
// successful PUT, exactly the body sent (never half-written), answered as
// the profile answers a PUT; a DELETE that succeeded removed it; GET and
// HEAD serve what is stored, with the profile's ETag (and under gcs its
// generation). "$ETAG" in a header value stands for the stored document's
// tag, "$GEN" for its generation.
func FuzzServeHTTP(f *testing.F) {
	f.Add("GET", "/l", "", []byte(nil), byte(0))
	f.Add("PUT", "/l", "If-Match: $ETAG\nContent-Type: application/json", []byte(`{"items":["b"]}`), byte(0))
	f.Add("PUT", "/new", "If-None-Match: *", []byte(`[]`), byte(0))
	f.Add("PUT", "/l", "If-Match: $ETAG", []byte(`{"items":["b"`), byte(0))
	f.Add("PUT", "/l", "If-Match: *\nContent-Type: text/plain", []byte(`1`), byte(0))
	f.Add("DELETE", "/l", "If-Match: $ETAG", []byte(nil), byte(0))
	f.Add("HEAD", "/l", "If-None-Match: W/$ETAG", []byte(nil), byte(0))
	f.Add("PATCH", "/l", "", []byte(`{}`), byte(0))
	f.Add("PUT", "/_fakeapi/faults", "", []byte(`{"rate503":0.5}`), byte(0))
	f.Add("GET", "/_fakeapi/history?path=/l", "", []byte(nil), byte(0))
	f.Add("PUT", "/l", "If-Match: $ETAG\nContent-Length: 3", []byte(`"x"`+strings.Repeat(" ", 300)), byte(0))
	for i := range Profiles() {
		b := byte(i)
		f.Add("PUT", "/l", "If-Match: $ETAG\nx-ms-blob-type: BlockBlob", []byte(`{"items":["b"]}`), b)
		f.Add("PUT", "/l", "If-Match: $ETAG\nx-ms-blob-type: BlockBlob", []byte(`{"items":["a"]}`), b)
		f.Add("PUT", "/new", "x-ms-blob-type: BlockBlob", []byte(`[]`), b)
		f.Add("PUT", "/l", "If-None-Match: *\nx-ms-blob-type: BlockBlob", []byte(`[]`), b)
		f.Add("PUT", "/l/", "If-Match: $ETAG", []byte(`[]`), b)
		f.Add("GET", "/l", "Accept-Encoding: gzip\nIf-None-Match: \"x\"", []byte(nil), b)
		f.Add("GET", "/l", "If-None-Match: $ETAG", []byte(nil), b)
		f.Add("PUT", "/l", "Authorization: Bearer t\nx-goog-if-generation-match: $GEN", []byte(`{"items":["b"]}`), b)
		f.Add("PUT", "/l", "Authorization: Bearer t\nx-goog-if-generation-match: 0", []byte(`[]`), b)
		f.Add("PUT", "/new", "Authorization: Bearer t\nx-goog-if-generation-match: 0", []byte(`[]`), b)
		f.Add("PUT", "/l", "Authorization: Bearer t\nIf-Match: \"stale\"", []byte(`[]`), b)
		f.Add("DELETE", "/l", "Authorization: Bearer t\nx-goog-if-generation-match: 1", []byte(nil), b)
	}
	f.Fuzz(func(t *testing.T, method, path, headers string, body []byte, profile byte) {
		ps := Profiles()
		p := ps[int(profile)%len(ps)]
		s, err := New(WithProfile(p), WithWeakWindow(0), WithMaxBodyBytes(256), WithHistory(true))
		if err != nil {
			t.Fatal(err)
		}
		seed := []byte(`{"items":["a"]}`)
		tag, err := s.Set("/l", seed)
		if err != nil {
			t.Fatal(err)
		}
		gen, _ := s.Generation("/l")
		vars := strings.NewReplacer("$ETAG", tag, "$GEN", strconv.FormatInt(gen, 10))
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		req, err := http.NewRequest(method, "http://fake.test"+path, bytes.NewReader(body))
		if err != nil {
			return
		}
		for _, line := range strings.Split(headers, "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok {
				req.Header.Add(strings.TrimSpace(k), strings.TrimSpace(vars.Replace(v)))
			}
		}
		rp := req.URL.Path
		oldBody, oldTag, oldOK := s.Get(rp)
		oldGen, _ := s.Generation(rp)
		oldVersions := len(s.History(rp))

		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)

		admin := strings.HasPrefix(rp, AdminPrefix)
		codes := listCodes
		if admin {
			codes = adminCodes
		}
		if !slices.Contains(codes, rec.Code) {
			t.Fatalf("%s: %s %q answered %d, not a documented code %v", p, method, path, rec.Code, codes)
		}
		for _, q := range s.Paths() {
			if b, _, _ := s.Get(q); !json.Valid(b) {
				t.Fatalf("the document at %q is not valid JSON: %q", q, b)
			}
		}
		newBody, newTag, newOK := s.Get(rp)
		committed := len(s.History(rp)) - oldVersions
		switch {
		case !admin && req.Method == http.MethodPut && rec.Code/100 == 2:
			if committed != 1 || !newOK || !bytes.Equal(newBody, body) {
				t.Fatalf("%s: PUT answered %d: %d versions, stored %q, sent %q", p, rec.Code, committed, newBody, body)
			}
			checkPutAnswer(t, p, rec, body, !oldOK, oldTag, newTag, bytes.Equal(oldBody, body))
			checkGeneration(t, s, p, rp, rec, oldGen)
		case !admin && req.Method == http.MethodDelete && rec.Code == 204:
			if committed != 1 || newOK || !oldOK {
				t.Fatalf("DELETE answered 204: %d versions, existed before %v, exists after %v", committed, oldOK, newOK)
			}
		default:
			if committed != 0 || newOK != oldOK || !bytes.Equal(newBody, oldBody) || newTag != oldTag {
				t.Fatalf("%s: %s %q answered %d but the document changed: %d versions, %q (%s) -> %q (%s)", p, method, path, rec.Code, committed, oldBody, oldTag, newBody, newTag)
			}
		}
		if !admin && (req.Method == http.MethodGet || req.Method == http.MethodHead) {
			checkServed(t, p, req, rec, oldTag, oldBody)
			if rec.Code == http.StatusOK {
				checkGeneration(t, s, p, rp, rec, 0)
			}
		}
		// No token is configured: only gcs refuses, and only anonymous
		// writes.
		_, bearer := bearerToken(req)
		if want := p == ProfileGCS && !admin && !isSafe(req.Method) && !bearer; (rec.Code == http.StatusUnauthorized) != want {
			t.Fatalf("%s: %s with Authorization %q answered %d", p, method, req.Header.Get("Authorization"), rec.Code)
		}
	})
}

// checkPutAnswer checks the answer to a PUT that committed, against what
// each profile's documentation promises.
func checkPutAnswer(t *testing.T, p Profile, rec *httptest.ResponseRecorder, sent []byte, created bool, oldTag, newTag string, sameContent bool) {
	t.Helper()
	code, etag, got := rec.Code, rec.Header().Get("ETag"), rec.Body.String()
	want := map[Profile]struct {
		created, replaced int
		etag              bool   // carries the new ETag
		body              string // "$SENT" for the document sent, "*" for anything
	}{
		ProfileStrict:    {201, 200, true, "$SENT"},
		ProfileS3:        {200, 200, true, ""},
		ProfileAzureBlob: {201, 201, true, ""},
		ProfileWebDAV:    {201, 204, false, "*"},
		ProfileQuirky:    {200, 200, true, putReport},
		ProfileGCS:       {200, 200, true, ""},
	}[p]
	wantCode := want.replaced
	if created {
		wantCode = want.created
	}
	if code != wantCode {
		t.Fatalf("%s: PUT answered %d, want %d (created %v)", p, code, wantCode, created)
	}
	if want.etag != (etag != "") || (want.etag && etag != newTag) {
		t.Fatalf("%s: PUT answered ETag %q, stored %s", p, etag, newTag)
	}
	if newTag == oldTag && (p != ProfileS3 && p != ProfileGCS || !sameContent) {
		t.Fatalf("%s: the new version kept the tag %s", p, oldTag)
	}
	switch wantBody := strings.ReplaceAll(want.body, "$SENT", string(sent)); {
	case want.body == "*" && (code == 204) != (got == ""):
		t.Fatalf("%s: PUT answered %d with body %q", p, code, got)
	case want.body != "*" && got != wantBody:
		t.Fatalf("%s: PUT answered with body %q, want %q", p, got, wantBody)
	}
}

// checkGeneration checks the x-goog-generation of an answer that carries
// the document at path: under gcs it is the stored generation, above
// before (the generation of the version a write replaced, 0 for none);
// under the other profiles there is none.
func checkGeneration(t *testing.T, s *Server, p Profile, path string, rec *httptest.ResponseRecorder, before int64) {
	t.Helper()
	got := rec.Header().Get(HeaderGeneration)
	if p != ProfileGCS {
		if got != "" {
			t.Fatalf("%s: answered %s %q", p, HeaderGeneration, got)
		}
		return
	}
	gen, _ := s.Generation(path)
	if got != strconv.FormatInt(gen, 10) || gen <= before || rec.Header().Get(HeaderMetageneration) != "1" {
		t.Fatalf("%s: answered generation %q, metageneration %q; stored %d, before %d", p, got, rec.Header().Get(HeaderMetageneration), gen, before)
	}
}

// checkServed checks a GET or HEAD answered 200 or 304: the ETag is the
// stored one (absent on an Azure 304; with "-gzip" when webdav compressed
// the body), and a GET's body is the stored document, or its gzip.
func checkServed(t *testing.T, p Profile, req *http.Request, rec *httptest.ResponseRecorder, oldTag string, oldBody []byte) {
	t.Helper()
	if rec.Code != 200 && rec.Code != 304 {
		return
	}
	gz := p == ProfileWebDAV && acceptsGzip(req.Header.Values("Accept-Encoding"))
	wantTag := oldTag
	if gz {
		wantTag = strings.TrimSuffix(oldTag, `"`) + gzipSuffix + `"`
	}
	if rec.Code == 304 && p == ProfileAzureBlob {
		wantTag = ""
	}
	if got := rec.Header().Get("ETag"); got != wantTag {
		t.Fatalf("%s: %s answered %d with ETag %q, want %q", p, req.Method, rec.Code, got, wantTag)
	}
	if rec.Code == 304 {
		if rec.Body.Len() != 0 {
			t.Fatalf("304 with a %d-byte body", rec.Body.Len())
		}
		return
	}
	if req.Method != http.MethodGet {
		return
	}
	got := rec.Body.Bytes()
	if gz {
		zr, err := gzip.NewReader(bytes.NewReader(got))
		if err != nil {
			t.Fatalf("%s: gzip body %q: %v", p, got, err)
		}
		if got, err = io.ReadAll(zr); err != nil {
			t.Fatalf("%s: gunzip: %v", p, err)
		}
	}
	if !bytes.Equal(got, oldBody) {
		t.Fatalf("%s: GET served %q, stored %q", p, got, oldBody)
	}
}
