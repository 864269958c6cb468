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
	"errors"
	"fmt"
	"slices"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

func TestDocumentSplice(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		pointer string
		items   []string
		want    string
	}{
		{"root array", `["a","b"]`, "", []string{"a"}, `["a"]`},
		{"root array with space", " [ \"a\" ,\"b\" ] \n", "", []string{"b", "c"}, " [\"b\",\"c\"] \n"},
		{"object member, order and spacing kept",
			`{"z": 1, "items": ["a"], "b": {"items": ["q"]}, "n": 1.50}`, "/items", []string{"a", "x"},
			`{"z": 1, "items": ["a","x"], "b": {"items": ["q"]}, "n": 1.50}`},
		{"nested", `{"spec":{"allow":["a"],"deny":["d"]},"v":2}`, "/spec/allow", []string{}, `{"spec":{"allow":[],"deny":["d"]},"v":2}`},
		{"array index", `{"lists":[["a"],["b"]]}`, "/lists/1", []string{"c"}, `{"lists":[["a"],["c"]]}`},
		{"escaped key", `{"a/b":["x"]}`, "/a~1b", []string{"y"}, `{"a/b":["y"]}`},
		{"no html escaping", `[]`, "", []string{"<a&b>"}, `["<a&b>"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParsePointer(tt.pointer)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := ParseDocument([]byte(tt.raw), p)
			if err != nil {
				t.Fatalf("ParseDocument: %v", err)
			}
			next, err := doc.WithItems(tt.items)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(next.Bytes()); got != tt.want {
				t.Errorf("WithItems:\n got %s\nwant %s", got, tt.want)
			}
			again, err := ParseDocument(next.Bytes(), p)
			if err != nil {
				t.Fatalf("re-parse: %v", err)
			}
			if diff := cmp.Diff(tt.items, again.Items(), cmpNilEmpty); diff != "" {
				t.Errorf("items after re-parse (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseDocumentErrors(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		pointer string
		want    error
	}{
		{"html", `<html><body>Bad gateway</body></html>`, "", ErrNotJSON},
		{"truncated", `{"items":["a",`, "/items", ErrNotJSON},
		{"two values", `[] []`, "", ErrNotJSON},
		{"empty", ``, "", ErrNotJSON},
		{"object at root", `{"items":[]}`, "", ErrNotArray},
		{"numbers", `[1,2]`, "", ErrNotArray},
		{"mixed", `["a",null]`, "", ErrNotArray},
		{"missing member", `{"other":[]}`, "/items", ErrNotArray},
		{"through a string", `{"items":"a"}`, "/items/x", ErrNotArray},
		{"index out of range", `{"l":[[]]}`, "/l/1", ErrNotArray},
		{"bad index", `{"l":[[]]}`, "/l/01", ErrNotArray},
		{"null", `{"items":null}`, "/items", ErrNotArray},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParsePointer(tt.pointer)
			if err != nil {
				t.Fatal(err)
			}
			_, err = ParseDocument([]byte(tt.raw), p)
			if !errors.Is(err, tt.want) {
				t.Fatalf("ParseDocument(%s) = %v, want %v", tt.raw, err, tt.want)
			}
			if !errors.Is(err, ErrInvalidDocument) {
				t.Errorf("error %v does not wrap ErrInvalidDocument", err)
			}
		})
	}
}

func TestNewDocument(t *testing.T) {
	tests := []struct{ pointer, want string }{
		{"", `[]`},
		{"/items", `{"items":[]}`},
		{"/a/b", `{"a":{"b":[]}}`},
	}
	for _, tt := range tests {
		p, _ := ParsePointer(tt.pointer)
		doc, err := NewDocument(p)
		if err != nil {
			t.Fatalf("NewDocument(%q): %v", tt.pointer, err)
		}
		if got := string(doc.Bytes()); got != tt.want {
			t.Errorf("NewDocument(%q) = %s, want %s", tt.pointer, got, tt.want)
		}
	}
}

func TestParseDocumentItemLimit(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		pointer string
		limit   int
		want    error
	}{
		{"at the limit", `["a","b"]`, "", 2, nil},
		{"over the limit", `["a","b","c"]`, "", 2, ErrTooManyItems},
		{"over the limit, nested", `{"x":[1],"items":["a","b","c"],"y":{}}`, "/items", 2, ErrTooManyItems},
		{"a non-string within the limit", `["a",1,"c"]`, "", 2, ErrNotArray},
		{"empty", `[]`, "", 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParsePointer(tt.pointer)
			if err != nil {
				t.Fatal(err)
			}
			d, err := parseDocument([]byte(tt.raw), p, tt.limit)
			if !errors.Is(err, tt.want) || (err != nil) != (tt.want != nil) {
				t.Fatalf("parseDocument(%s, limit %d) = %v, want %v", tt.raw, tt.limit, err, tt.want)
			}
			if err != nil {
				if d != nil || !errors.Is(err, ErrInvalidDocument) {
					t.Errorf("parseDocument returned %v with %v, want no document and an ErrInvalidDocument", d, err)
				}
				return
			}
			if len(d.Items()) > tt.limit {
				t.Errorf("%d items, limit %d", len(d.Items()), tt.limit)
			}
		})
	}
}

// TestParseDocumentOverLimitAllocates checks that a document over the item
// limit is refused without decoding its items: the refusal of 100,000 items
// allocates next to nothing, however long the document.
func TestParseDocumentOverLimitAllocates(t *testing.T) {
	var b bytes.Buffer
	b.WriteByte('[')
	for i := range 100_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"id-%06d"`, i)
	}
	b.WriteByte(']')
	raw := b.Bytes()
	var err error
	allocs := testing.AllocsPerRun(5, func() { _, err = parseDocument(raw, nil, 10) })
	if !errors.Is(err, ErrTooManyItems) {
		t.Fatalf("parseDocument: %v, want ErrTooManyItems", err)
	}
	if allocs > 10 {
		t.Errorf("refusing %d bytes allocated %v times, want at most 10", len(raw), allocs)
	}
}

// within reports whether s lies inside the memory of doc.
func within(s, doc string) bool {
	if len(s) == 0 {
		return true
	}
	p, lo := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(doc)))
	return p >= lo && p+uintptr(len(s)) <= lo+uintptr(len(doc))
}

// TestDocumentKeepsOneCopy checks that a Document holds its bytes once:
// every item spelled without escapes is a substring of the document, after
// a parse and after each kind of edit, so that an edited document holds
// nothing of the one it was made from; and that the spellings of escaped
// items survive edits byte for byte.
func TestDocumentKeepsOneCopy(t *testing.T) {
	raw := `{"v":1, "items": [ "a", "caf\u00e9", "\ud800", "b\/c", "é", "plain" ], "w":"\u0041"}`
	p := Pointer{"items"}
	d, err := ParseDocument([]byte(raw), p)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"caf\u00e9": `"caf\u00e9"`, "\ufffd": `"\ud800"`, "b/c": `"b\/c"`}
	check := func(what string, d *Document) {
		t.Helper()
		for i, it := range d.Items() {
			spelled := string(d.ItemBytes(i))
			if w, ok := want[it]; ok {
				if spelled != w {
					t.Errorf("%s: item %q spelled %s, want %s", what, it, spelled, w)
				}
				continue
			}
			if spelled != `"`+it+`"` {
				t.Errorf("%s: item %q spelled %s", what, it, spelled)
			}
			if !within(it, d.raw) {
				t.Errorf("%s: item %q is a copy, not a substring of the document", what, it)
			}
		}
		again, err := ParseDocument(d.Bytes(), p)
		if err != nil || !slices.Equal(again.Items(), d.Items()) {
			t.Errorf("%s: re-parse gives %q, %v; want %q", what, again.Items(), err, d.Items())
		}
	}
	check("parse", d)
	edits := []struct {
		name string
		ch   Change
	}{
		{"remove", Change{Remove: []string{"a"}}},
		{"add", Change{Add: []string{"new", "ü", "tab\there", "\u2028"}}},
		{"retain", Change{RetainOnly: []string{"plain", "b/c", "\ufffd", "é", "new", "ü", "tab\there", "\u2028"}}},
	}
	want["tab\there"], want["\u2028"] = `"tab\there"`, `"\u2028"`
	for _, e := range edits {
		next, changed, err := d.Apply(e.ch)
		if err != nil || !changed {
			t.Fatalf("%s: Apply = %v, %v", e.name, changed, err)
		}
		check(e.name, next)
		for _, it := range next.Items() {
			if len(it) > 0 && within(it, d.raw) {
				t.Errorf("%s: item %q still points into the document it was edited from", e.name, it)
			}
		}
		d = next
	}
}

// TestDocumentAllocations checks that reading and editing a document cost
// a few allocations, however many items it holds: items are not copied one
// by one.
func TestDocumentAllocations(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"items":[`)
	for i := range 10_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"id-%06d"`, i)
	}
	b.WriteString(`],"v":1}`)
	raw := b.Bytes()
	p := Pointer{"items"}
	d, err := ParseDocument(raw, p)
	if err != nil {
		t.Fatal(err)
	}
	ch := Change{Remove: []string{"id-000005"}, Add: []string{"new"}}
	tests := []struct {
		name string
		op   func() error
	}{
		{"parse", func() error { _, err := ParseDocument(raw, p); return err }},
		{"edit", func() error { _, _, err := d.Apply(ch); return err }},
	}
	for _, tt := range tests {
		var err error
		if allocs := testing.AllocsPerRun(5, func() { err = tt.op() }); allocs > 20 {
			t.Errorf("%s of 10,000 items: %v allocations, want at most 20", tt.name, allocs)
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}
