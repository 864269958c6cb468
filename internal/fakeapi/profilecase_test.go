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
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// profileCase is one request to a fresh server, built with a profile, that
// holds docA at listA with ETag $E, whose opaque part (without quotes) is
// $O, and generation $G.
type profileCase struct {
	name   string
	method string
	path   string            // default listA
	header map[string]string // "$E", "$O" and "$G" are replaced
	body   string

	wantCode int
	wantDoc  string // document at path afterwards; "" means none
	// wantETag is a regular expression the whole ETag header must match,
	// in which "$E" and "$O" stand for the ETag of docA and its opaque part;
	// "-" means no ETag header and "" checks nothing.
	wantETag       string
	wantStoredETag bool              // the ETag answered is the one now stored
	wantBody       string            // the exact body, when not ""
	wantEmpty      bool              // the body must be empty
	wantGunzip     string            // the body gunzips to this, when not ""
	wantErrCode    string            // the code of an XML error body, when not ""
	wantHeader     map[string]string // headers that must have these values ("-": absent)
	// wantGeneration checks x-goog-generation: "-" absent, "$G" the
	// generation of docA, "new" the stored generation, above $G; ""
	// checks nothing.
	wantGeneration string
}

// rawClient sends exactly the headers it is given (no transparent gzip)
// and never follows redirects.
func rawClient(t *testing.T) *http.Client {
	t.Helper()
	tr := &http.Transport{DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

func runProfileCases(t *testing.T, opts []fakeapi.Option, cases []profileCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			s, ts := start(t, opts...)
			etag := mustSet(t, s, listA, docA)
			gen, _ := s.Generation(listA)
			path := tt.path
			if path == "" {
				path = listA
			}
			header := map[string]string{}
			vars := strings.NewReplacer("$E", etag, "$O", strings.Trim(etag, `"`), "$G", strconv.FormatInt(gen, 10))
			for k, v := range tt.header {
				header[k] = vars.Replace(v)
			}
			res := mustCall(t, rawClient(t), tt.method, ts.URL+path, tt.body, header)
			if res.code != tt.wantCode {
				t.Fatalf("status = %d, want %d (body %q)", res.code, tt.wantCode, res.body)
			}
			if !docEquals(s, path, tt.wantDoc) {
				got, _, _ := s.Get(path)
				t.Errorf("document at %s = %q, want %q", path, got, tt.wantDoc)
			}
			checkETagHeader(t, res.header, tt.wantETag, etag)
			if _, stored, _ := s.Get(path); tt.wantStoredETag && res.header.Get("ETag") != stored {
				t.Errorf("answered ETag %q, stored %q", res.header.Get("ETag"), stored)
			}
			if tt.wantBody != "" && string(res.body) != tt.wantBody {
				t.Errorf("body = %q, want %q", res.body, tt.wantBody)
			}
			if tt.wantEmpty && len(res.body) != 0 {
				t.Errorf("body = %q, want none", res.body)
			}
			if tt.wantGunzip != "" {
				checkGzip(t, res, tt.wantGunzip)
			}
			if tt.wantErrCode != "" {
				if got := xmlErrorCode(t, res); got != tt.wantErrCode {
					t.Errorf("error code = %q, want %q (body %s)", got, tt.wantErrCode, res.body)
				}
			}
			checkGenerationHeader(t, s, path, res.header, tt.wantGeneration, gen)
			for k, want := range tt.wantHeader {
				got, ok := res.header[http.CanonicalHeaderKey(k)]
				switch {
				case want == "-" && ok:
					t.Errorf("%s = %q, want none", k, got)
				case want != "-" && res.header.Get(k) != want:
					t.Errorf("%s = %q, want %q", k, res.header.Get(k), want)
				}
			}
		})
	}
}

// checkETagHeader checks the ETag header against a profileCase.wantETag.
func checkETagHeader(t *testing.T, h http.Header, want, etag string) {
	t.Helper()
	got, ok := h["Etag"]
	switch want {
	case "":
	case "-":
		if ok {
			t.Errorf("ETag = %q, want none", got)
		}
	default:
		opaque := strings.Trim(etag, `"`)
		re := regexp.MustCompile("^(?:" + strings.NewReplacer("$E", regexp.QuoteMeta(etag), "$O", regexp.QuoteMeta(opaque)).Replace(want) + ")$")
		if !ok || len(got) != 1 || !re.MatchString(got[0]) {
			t.Errorf("ETag = %q, want one matching %s", got, re)
		}
	}
}

// checkGenerationHeader checks x-goog-generation against a
// profileCase.wantGeneration; seeded is the generation of docA.
func checkGenerationHeader(t *testing.T, s *fakeapi.Server, path string, h http.Header, want string, seeded int64) {
	t.Helper()
	got, ok := h[http.CanonicalHeaderKey(fakeapi.HeaderGeneration)]
	stored, _ := s.Generation(path)
	switch want {
	case "":
	case "-":
		if ok {
			t.Errorf("%s = %q, want none", fakeapi.HeaderGeneration, got)
		}
	case "$G":
		if h.Get(fakeapi.HeaderGeneration) != strconv.FormatInt(seeded, 10) {
			t.Errorf("%s = %q, want %d", fakeapi.HeaderGeneration, got, seeded)
		}
	case "new":
		if h.Get(fakeapi.HeaderGeneration) != strconv.FormatInt(stored, 10) || stored <= seeded {
			t.Errorf("%s = %q, stored %d, want the stored one above %d", fakeapi.HeaderGeneration, got, stored, seeded)
		}
	default:
		t.Fatalf("unknown wantGeneration %q", want)
	}
}

// xmlError is the part of S3's and Azure's XML error bodies that tests
// look at.
type xmlError struct {
	XMLName   xml.Name `xml:"Error"`
	Code      string   `xml:"Code"`
	Message   string   `xml:"Message"`
	Resource  string   `xml:"Resource"`
	RequestID string   `xml:"RequestId"`
}

// xmlErrorCode checks that res has an XML error body and returns its code.
func xmlErrorCode(t *testing.T, res result) string {
	t.Helper()
	if ct := res.header.Get("Content-Type"); ct != "application/xml" {
		t.Errorf("Content-Type = %q, want application/xml", ct)
	}
	if !strings.HasPrefix(string(res.body), "<?xml ") {
		t.Errorf("body %q does not start with an XML declaration", res.body)
	}
	var e xmlError
	if err := xml.Unmarshal(res.body, &e); err != nil {
		t.Fatalf("error body %q: %v", res.body, err)
	}
	return e.Code
}

// checkGzip checks that res is gzip-compressed and holds want.
func checkGzip(t *testing.T, res result, want string) {
	t.Helper()
	if ce := res.header.Get("Content-Encoding"); ce != "gzip" {
		t.Errorf("Content-Encoding = %q, want gzip", ce)
	}
	zr, err := gzip.NewReader(bytes.NewReader(res.body))
	if err != nil {
		t.Fatalf("body %q: %v", res.body, err)
	}
	got, err := io.ReadAll(zr)
	if err != nil || string(got) != want {
		t.Errorf("body gunzips to %q, %v; want %q", got, err, want)
	}
}
