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

package backend

import (
	"strconv"
	"strings"
	"testing"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// TestCanonicalPointerAgreesWithTheEngine: every token that
// CanonicalPointer writes as an array index is the index the engine reads
// through an array, and every other token is one the engine does not take
// for an index, so merging the spellings never merges two arrays of an
// array and never splits one.
func TestCanonicalPointerAgreesWithTheEngine(t *testing.T) {
	t.Parallel()
	raw := []byte(`{"l":[["i0"],["i1"],["i2"],["i3"],["i4"],["i5"],["i6"],["i7"],["i8"],["i9"],["i10"]]}`)
	for _, tok := range []string{"0", "+0", "-0", "00", "+00", "1", "+1", "01", "-1", "+10", "10", "1e0", " 1", "0x1", "", "-", "x", "١"} {
		t.Run(tok, func(t *testing.T) {
			p, err := etagclient.ParsePointer("/l/" + tok)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := etagclient.ParseDocument(raw, p)
			canon := CanonicalPointer("/l/" + tok)
			n, index := ArrayIndex(tok)
			switch {
			case err != nil && index:
				t.Errorf("CanonicalPointer takes %q for index %d (%s), the engine does not: %v", tok, n, canon, err)
			case err == nil && !index:
				t.Errorf("the engine reads %q as %v, CanonicalPointer does not take it for an index", tok, doc.Items())
			case err == nil && (doc.Items()[0] != "i"+strconv.Itoa(n) || canon != "/l/"+strconv.Itoa(n)):
				t.Errorf("the engine reads %q as %v, CanonicalPointer spells it %s", tok, doc.Items(), canon)
			}
		})
	}
	if got := CanonicalPointer("/a~1b/c~0d/+2"); got != "/a~1b/c~0d/2" {
		t.Errorf("CanonicalPointer = %q", got)
	}
	if got := CanonicalPointer(""); got != "" {
		t.Errorf("CanonicalPointer of the whole document = %q", got)
	}
}

// TestShownURL: what status.redactedURL, messages and logs show of a
// list's URL carries no query, no user info, and of a URL from a Secret
// only the scheme and host.
func TestShownURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		raw        string
		fromSecret bool
		want       string
	}{
		{"plain", "https://lists.example.com/a/b.json", false, "https://lists.example.com/a/b.json"},
		{"query dropped, keys too", "https://h.example/l.json?sig=SECRET&sv=2024", false, "https://h.example/l.json"},
		{"a token that is a query key", "https://h.example/l.json?SECRET_ONLY_KEY", false, "https://h.example/l.json"},
		{"user info dropped", "https://user:SECRET@h.example/l.json", false, "https://h.example/l.json"},
		{"from a Secret: scheme and host only", "https://acct.blob.core.windows.net/c/l.json?sig=SECRET&se=2030", true, "https://acct.blob.core.windows.net"},
		{"from a Secret: a token in the path", "https://u:SECRET@h.example:8443/hooks/SECRET/list?x=SECRET", true, "https://h.example:8443"},
		{"unparsable", "http://[::1", false, ""},
		{"no host", "/relative", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := ShownURL(tt.raw, tt.fromSecret)
			if got != tt.want {
				t.Errorf("ShownURL = %q, want %q", got, tt.want)
			}
			if strings.Contains(got, "SECRET") {
				t.Errorf("ShownURL leaks the secret: %q", got)
			}
		})
	}
}
