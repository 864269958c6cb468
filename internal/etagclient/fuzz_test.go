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

package etagclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// FuzzParsePointer checks that ParsePointer never panics, that String gives
// back the text of every valid pointer, and that any tokens survive
// String then ParsePointer.
func FuzzParsePointer(f *testing.F) {
	for _, s := range []string{"", "/", "/items", "/a~1b/~0c", "/0/items", "~", "/~2", "/a~", "items", "//", "/ü/\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePointer(s)
		if err != nil {
			if p != nil {
				t.Fatalf("ParsePointer(%q) returned %q with error %v", s, p, err)
			}
		} else {
			if got := p.String(); got != s {
				t.Fatalf("ParsePointer(%q).String() = %q", s, got)
			}
			again, err := ParsePointer(p.String())
			if err != nil || !slices.Equal(again, p) {
				t.Fatalf("ParsePointer(%q) = %q, its String %q parses to %q, %v", s, p, p.String(), again, err)
			}
		}
		// Any tokens, escaped by String, parse back to themselves.
		tokens := Pointer(strings.Split(s, "/"))
		back, err := ParsePointer(tokens.String())
		if err != nil || !slices.Equal(back, tokens) {
			t.Fatalf("tokens %q: String %q parses to %q, %v", tokens, tokens.String(), back, err)
		}
	})
}

// splitIDs turns a comma-separated fuzz input into IDs.
func splitIDs(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// FuzzDocumentEdit checks the edit of a document: whatever ParseDocument
// accepts, applying a change rewrites only the items span (every byte
// before and after it stays), applying it again changes nothing (Apply is
// idempotent and WithItems stable), and re-parsing the output yields
// exactly the new items, in the same span.
func FuzzDocumentEdit(f *testing.F) {
	f.Add([]byte(`{"items":["a","b"]}`), "/items", "c", "a", "")
	f.Add([]byte(`["x"]`), "", "y,x", "", "")
	f.Add([]byte(` {"k": {"items" : [ "a" , "b" ] , "z":1} } `), "/k/items", "", "b", "a,b")
	f.Add([]byte(`[[],["a"]]`), "/1", "b", "", "")
	f.Add([]byte(`{"a/b":{"m~n":["q"]}}`), "/a~1b/m~0n", "\u2028<&>", "q", "")
	f.Add([]byte(`{"items":["a","a","b"]}`), "/items", "a", "b", "")
	f.Fuzz(func(t *testing.T, raw []byte, ptr, add, remove, retain string) {
		p, err := ParsePointer(ptr)
		if err != nil {
			return
		}
		ch := Change{Add: splitIDs(add), Remove: splitIDs(remove)}
		if retain != "" {
			ch.RetainOnly = splitIDs(retain)
			if retain == "-" {
				ch.RetainOnly = []string{}
			}
		}
		if ch.Validate() != nil {
			return
		}
		orig := bytes.Clone(raw)
		d, err := ParseDocument(raw, p)
		if err != nil {
			if !errors.Is(err, ErrInvalidDocument) {
				t.Fatalf("ParseDocument error %v does not wrap ErrInvalidDocument", err)
			}
			return
		}
		// The span holds exactly the items.
		var spanItems []string
		if err := json.Unmarshal(raw[d.start:d.end], &spanItems); err != nil || !slices.Equal(nonNil(spanItems), d.Items()) {
			t.Fatalf("span %q decodes to %q (%v), items are %q", raw[d.start:d.end], spanItems, err, d.Items())
		}

		items, changed := Apply(d.Items(), ch)
		if !bytes.Equal(raw, orig) {
			t.Fatal("ParseDocument or Apply modified the input")
		}
		if changed == slices.Equal(items, d.Items()) {
			t.Fatalf("Apply reported changed=%v, but items went from %q to %q", changed, d.Items(), items)
		}
		nd, err := d.WithItems(items)
		if err != nil {
			t.Fatalf("WithItems(%q): %v", items, err)
		}
		out := nd.Bytes()
		if !bytes.Equal(raw, orig) {
			t.Fatal("WithItems modified the original document")
		}
		// Outside the span nothing changes.
		if !bytes.HasPrefix(out, raw[:d.start]) || !bytes.HasSuffix(out, raw[d.end:]) || len(out) < len(raw[:d.start])+len(raw[d.end:]) {
			t.Fatalf("bytes outside the items span changed:\n in: %q\nout: %q", raw, out)
		}
		if !json.Valid(out) {
			t.Fatalf("the edited document is not JSON: %q", out)
		}
		// Re-parsing yields exactly the new items, in the span WithItems says.
		re, err := ParseDocument(out, p)
		if err != nil {
			t.Fatalf("the edited document does not parse: %v\n%q", err, out)
		}
		if !slices.Equal(re.Items(), nonNil(items)) {
			t.Fatalf("re-parsed items %q, want %q (document %q)", re.Items(), items, out)
		}
		if !slices.Equal(nd.Items(), re.Items()) || re.start != nd.start || re.end != nd.end {
			t.Fatalf("WithItems result (items %q, span %d:%d) differs from its re-parse (items %q, span %d:%d)", nd.Items(), nd.start, nd.end, re.Items(), re.start, re.end)
		}
		// Applying the change again changes nothing, and so does writing.
		again, changedAgain := Apply(re.Items(), ch)
		if changedAgain || !slices.Equal(again, re.Items()) {
			t.Fatalf("Apply is not idempotent: %q then %q (changed %v)", items, again, changedAgain)
		}
		nd2, err := re.WithItems(again)
		if err != nil || !bytes.Equal(nd2.Bytes(), out) {
			t.Fatalf("WithItems is not stable: %q then %q (%v)", out, nd2.Bytes(), err)
		}
		// Document.Apply gives the same items and keeps the bytes of every
		// item it did not add, in order.
		ad, _, err := d.Apply(ch)
		if err != nil {
			t.Fatalf("Document.Apply: %v", err)
		}
		if !slices.Equal(ad.Items(), nonNil(items)) {
			t.Fatalf("Document.Apply items %q, Apply items %q", ad.Items(), items)
		}
		if b, a := ad.Outside(); !bytes.Equal(b, raw[:d.start]) || !bytes.Equal(a, raw[d.end:]) {
			t.Fatalf("Document.Apply changed bytes outside the items span: %q", ad.Bytes())
		}
		spellings := map[string][][]byte{}
		for i, id := range d.Items() {
			spellings[id] = append(spellings[id], d.ItemBytes(i))
		}
		for i, id := range ad.Items() {
			if s := spellings[id]; len(s) > 0 {
				if !bytes.Equal(ad.ItemBytes(i), s[0]) {
					t.Fatalf("item %q kept as %q, read as %q", id, ad.ItemBytes(i), s[0])
				}
				spellings[id] = s[1:]
			}
		}
		if reAd, err := ParseDocument(ad.Bytes(), p); err != nil || !slices.Equal(reAd.Items(), ad.Items()) {
			t.Fatalf("Document.Apply output %q does not re-parse to its items: %v", ad.Bytes(), err)
		}
		// Every ID the change adds is there, every ID it removes is not.
		for _, id := range ch.Add {
			if !slices.Contains(re.Items(), id) {
				t.Fatalf("added %q is not on the re-parsed list %q", id, re.Items())
			}
		}
		for _, id := range ch.Remove {
			if slices.Contains(re.Items(), id) {
				t.Fatalf("removed %q is on the re-parsed list %q", id, re.Items())
			}
		}
	})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// FuzzParseETag checks that ValidateETag and ParseETag never panic, accept
// only strong quoted tags, which survive validation again unchanged, and
// refuse every weak (W/) tag.
func FuzzParseETag(f *testing.F) {
	for _, s := range []string{`"v1-abc"`, `W/"v1"`, `""`, `"`, ` "a" `, `"a b"`, `"\x80"`, `w/"a"`, `"a"x`, `"a", "b"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tag, err := ValidateETag(s)
		check := func(what, in, tag string, err error) {
			if strings.HasPrefix(in, "W/") {
				if err == nil || !errors.Is(err, ErrWeakETag) {
					t.Fatalf("%s(%q) accepted a weak tag: %q, %v", what, in, tag, err)
				}
				return
			}
			if err != nil {
				if tag != "" || !errors.Is(err, ErrUnsafeServer) {
					t.Fatalf("%s(%q) = %q, %v: an error must wrap ErrUnsafeServer and return no tag", what, in, tag, err)
				}
				return
			}
			if tag != in || len(tag) < 2 || tag[0] != '"' || tag[len(tag)-1] != '"' || strings.HasPrefix(tag, "W/") {
				t.Fatalf("%s(%q) = %q: not the strong quoted tag as sent", what, in, tag)
			}
			if strings.ContainsAny(tag[1:len(tag)-1], "\" \t\r\n\x7f") {
				t.Fatalf("%s(%q) accepted a tag with a forbidden character", what, in)
			}
			if again, err := ValidateETag(tag); err != nil || again != tag {
				t.Fatalf("ValidateETag(%q) = %q, %v after %s accepted it", tag, again, err, what)
			}
		}
		check("ValidateETag", s, tag, err)
		h := http.Header{}
		h.Set("ETag", s)
		if strings.TrimSpace(s) == "" {
			if _, err := ParseETag(h); !errors.Is(err, ErrMissingETag) {
				t.Fatalf("ParseETag(%q): %v, want ErrMissingETag", s, err)
			}
			return
		}
		tag, err = ParseETag(h)
		check("ParseETag", strings.TrimSpace(s), tag, err)
	})
}
