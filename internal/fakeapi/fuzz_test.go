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
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// fuzzBoot stands for the random boot ID in tags built by the fuzz targets.
const fuzzBoot = "0123456789abcdef"

// FuzzIfMatchHeader checks the parsing and comparison of If-Match and
// If-None-Match: no panic; a parsed list matches exactly as RFC 9110 says
// (strong comparison for If-Match, weak for If-None-Match, "*" for any
// document); a tag the server issued always matches itself and its W/ form
// never satisfies If-Match; a tag the client accepts parses as one strong
// tag; and the handler answers a PUT and a GET with the code the parsed
// list implies. "$ETAG" in the header stands for the stored document's tag.
func FuzzIfMatchHeader(f *testing.F) {
	for _, s := range []string{`"v1-a"`, `W/"v1-a"`, `*`, ` * `, `"a", W/"b" ,"c"`, "\"a\"\n\"b\"", `$ETAG`, `W/$ETAG`, `"x", $ETAG`, `""`, `"a"x`, `w/"a"`, `"a" "b"`, `,,"a",,`, `"\x80"`, ``} {
		f.Add(s, uint64(1))
	}
	f.Fuzz(func(t *testing.T, header string, seq uint64) {
		// A tag the server issues matches itself, strongly and weakly, and
		// its weak form only weakly.
		issuedOpaque := opaqueTag(seq, fuzzBoot)
		issued := quote(issuedOpaque)
		self, err := parseETagList([]string{issued})
		if err != nil || !self.matchStrong(true, issuedOpaque, false) || !self.matchWeak(true, issuedOpaque) {
			t.Fatalf("issued tag %s does not match itself: %+v, %v", issued, self, err)
		}
		if _, err := etagclient.ValidateETag(issued); err != nil {
			t.Fatalf("the client refuses the issued tag %s: %v", issued, err)
		}
		weak, err := parseETagList([]string{"W/" + issued})
		if err != nil || weak.matchStrong(true, issuedOpaque, false) || !weak.matchWeak(true, issuedOpaque) {
			t.Fatalf("W/%s: strong match %v, weak match %v, %v", issued, weak.matchStrong(true, issuedOpaque, false), weak.matchWeak(true, issuedOpaque), err)
		}

		values := strings.Split(strings.ReplaceAll(header, "$ETAG", issued), "\n")
		l, err := parseETagList(values)
		if ref, ok := refParse(values); ok != (err == nil) || (ok && (ref.any != l.any || fmt.Sprint(ref.tags) != fmt.Sprint(l.tags))) {
			t.Fatalf("parseETagList(%q) = %+v, %v; RFC 9110 grammar: %+v, valid %v", values, l, err, ref, ok)
		}
		if err != nil {
			if !errors.Is(err, errMalformedETag) {
				t.Fatalf("parseETagList(%q): unexpected error %v", values, err)
			}
		} else {
			checkList(t, values, l, issuedOpaque)
			// The issued tag added to any valid list makes it match.
			with, err := parseETagList(append(values, issued))
			if !l.any && (err != nil || !with.matchStrong(true, issuedOpaque, false)) {
				t.Fatalf("%q plus the issued tag: %+v, %v", values, with, err)
			}
		}
		// A tag the client accepts is one strong tag to the server.
		if tag, err := etagclient.ValidateETag(header); err == nil {
			one, err := parseETagList([]string{tag})
			if err != nil || one.any || len(one.tags) != 1 || one.tags[0].weak || quote(one.tags[0].opaque) != tag {
				t.Fatalf("the client accepts %q but the server parses it as %+v, %v", tag, one, err)
			}
		}
		checkHandler(t, header)
	})
}

// refParse is a reference parser of RFC 9110's If-Match and If-None-Match:
// "*" / #entity-tag, where the list elements are separated by commas and
// OWS (space and horizontal tab only), and empty elements, even a list of
// nothing but empty elements, are allowed. Several header lines form one
// list.
func refParse(values []string) (etagList, bool) {
	const ows = " \t"
	s := strings.Trim(strings.Join(values, ","), ows)
	if s == "*" {
		return etagList{present: true, any: true}, true
	}
	l := etagList{present: true}
	for {
		s = strings.TrimLeft(s, ows+",")
		if s == "" {
			return l, true
		}
		var tag entityTag
		if rest, ok := strings.CutPrefix(s, "W/"); ok {
			tag.weak, s = true, rest
		}
		if s == "" || s[0] != '"' {
			return etagList{}, false
		}
		end := 1
		for end < len(s) && s[end] != '"' {
			if c := s[end]; c < 0x21 || c == 0x7f {
				return etagList{}, false
			}
			end++
		}
		if end == len(s) {
			return etagList{}, false
		}
		tag.opaque = s[1:end]
		l.tags = append(l.tags, tag)
		s = strings.TrimLeft(s[end+1:], ows)
		if s != "" && s[0] != ',' {
			return etagList{}, false
		}
	}
}

// checkList checks a parsed list against the definitions of RFC 9110.
func checkList(t *testing.T, values []string, l etagList, issuedOpaque string) {
	t.Helper()
	if !l.present {
		t.Fatalf("%q parsed as absent", values)
	}
	if l.any != (strings.TrimSpace(strings.Join(values, ",")) == "*") || (l.any && len(l.tags) > 0) {
		t.Fatalf("%q: any = %v with %d tags", values, l.any, len(l.tags))
	}
	candidates := []string{issuedOpaque, "", "other"}
	var b strings.Builder
	for i, tag := range l.tags {
		if !validOpaque(tag.opaque) {
			t.Fatalf("%q: tag %q has a character outside etagc", values, tag.opaque)
		}
		candidates = append(candidates, tag.opaque)
		if i > 0 {
			b.WriteString(", ")
		}
		if tag.weak {
			b.WriteString("W/")
		}
		b.WriteString(quote(tag.opaque))
	}
	for _, o := range candidates {
		strong, weak := l.any, l.any
		for _, tag := range l.tags {
			strong = strong || (!tag.weak && tag.opaque == o)
			weak = weak || tag.opaque == o
		}
		if got := l.matchStrong(true, o, false); got != strong {
			t.Fatalf("%q: matchStrong(%q) = %v, want %v", values, o, got, strong)
		}
		if got := l.matchWeak(true, o); got != weak {
			t.Fatalf("%q: matchWeak(%q) = %v, want %v", values, o, got, weak)
		}
		if l.matchStrong(true, o, true) != l.any {
			t.Fatalf("%q: a weak current tag matched strongly", values)
		}
		if l.matchStrong(false, o, false) || l.matchWeak(false, o) {
			t.Fatalf("%q matched a missing document", values)
		}
	}
	// The tags survive printing and parsing again.
	if !l.any {
		again, err := parseETagList([]string{b.String()})
		if err != nil || fmt.Sprint(again.tags) != fmt.Sprint(l.tags) {
			t.Fatalf("%q printed as %q parses to %+v, %v", values, b.String(), again, err)
		}
	}
}

// checkHandler sends header as If-Match on a PUT and as If-None-Match on a
// GET, and checks the codes against what the parsed list implies.
func checkHandler(t *testing.T, header string) {
	t.Helper()
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	tag, err := s.Set("/l", []byte(`["a"]`))
	if err != nil {
		t.Fatal(err)
	}
	values := strings.Split(strings.ReplaceAll(header, "$ETAG", tag), "\n")
	l, perr := parseETagList(values)
	opaque := strings.Trim(tag, `"`)

	put := httptest.NewRequest(http.MethodPut, "/l", strings.NewReader(`["b"]`))
	put.Header["If-Match"] = values
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, put)
	want := http.StatusPreconditionFailed
	switch {
	case perr != nil:
		want = http.StatusBadRequest
	case l.matchStrong(true, opaque, false):
		want = http.StatusOK
	}
	if rec.Code != want {
		t.Fatalf("PUT with If-Match %q: %d, want %d", values, rec.Code, want)
	}

	s2, err := New()
	if err != nil {
		t.Fatal(err)
	}
	tag2, err := s2.Set("/l", []byte(`["a"]`))
	if err != nil {
		t.Fatal(err)
	}
	values = strings.Split(strings.ReplaceAll(header, "$ETAG", tag2), "\n")
	l, perr = parseETagList(values)
	get := httptest.NewRequest(http.MethodGet, "/l", nil)
	get.Header["If-None-Match"] = values
	rec = httptest.NewRecorder()
	s2.ServeHTTP(rec, get)
	want = http.StatusOK
	switch {
	case perr != nil:
		want = http.StatusBadRequest
	case l.matchWeak(true, strings.Trim(tag2, `"`)):
		want = http.StatusNotModified
	}
	if rec.Code != want {
		t.Fatalf("GET with If-None-Match %q: %d, want %d", values, rec.Code, want)
	}
	if (want == http.StatusOK || want == http.StatusNotModified) && rec.Header().Get("ETag") != tag2 {
		t.Fatalf("GET answered %d with ETag %q, want %q", rec.Code, rec.Header().Get("ETag"), tag2)
	}
}
