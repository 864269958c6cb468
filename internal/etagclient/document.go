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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// Document is a JSON document with the byte span of its items array located.
// Everything outside the span is kept byte for byte on write, and so is every
// item that a write does not touch. A Document is immutable and safe to
// share.
//
// A Document holds one copy of the document's bytes: the items are
// substrings of it, except those spelled with escapes, which are decoded
// apart. It costs the document's size, plus 16 bytes an item.
type Document struct {
	raw        string   // the document, as read or written
	start, end int      // raw[start:end] is the items array
	items      []string // the decoded items
	// escaped lists, by item, the spans in raw of the items whose bytes are
	// not their text in quotes (escapes, or bytes that are not UTF-8), so
	// that an item another writer put there is written back exactly as it
	// came, even when it does not survive a decode ("\ud800"). Any other
	// item is spelled as its text in quotes.
	escaped []span
}

// span locates item number item of a Document in its raw[start:end],
// quotes included.
type span struct{ item, start, end int32 }

// maxDocumentBytes is the largest document a Document can hold: spans are
// stored as int32 offsets.
const maxDocumentBytes = 1<<31 - 1

// ParseDocument checks that raw is one JSON value, finds the array that p
// points at, and decodes it as strings. Errors wrap ErrNotJSON or ErrNotArray;
// an object on the pointer's path that has the next token as a key twice
// wraps ErrDuplicateKey. The Document keeps a copy of raw: the caller may
// reuse raw.
func ParseDocument(raw []byte, p Pointer) (*Document, error) {
	return parseDocument(raw, p, math.MaxInt)
}

// parseDocument is ParseDocument for a document of at most maxItems items:
// a longer one fails with ErrTooManyItems once the count passes the limit,
// before anything of it is copied or decoded.
func parseDocument(raw []byte, p Pointer, maxItems int) (*Document, error) {
	if len(raw) > maxDocumentBytes {
		return nil, fmt.Errorf("%w: %d bytes", ErrTooLarge, len(raw))
	}
	if !json.Valid(raw) {
		return nil, ErrNotJSON
	}
	start, end, err := findSpan(raw, p)
	if err != nil {
		return nil, err
	}
	if raw[start] != '[' {
		return nil, fmt.Errorf("%w: %s is not an array", ErrNotArray, describe(p))
	}
	n, err := countStrings(raw, start, end, maxItems)
	switch {
	case errors.Is(err, errTooMany):
		return nil, fmt.Errorf("%w: %s holds more than %d, the limit (--max-items raises it)", ErrTooManyItems, describe(p), maxItems)
	case err != nil:
		return nil, fmt.Errorf("%w: %s %w", ErrNotArray, describe(p), err)
	}
	d := &Document{raw: string(raw), start: start, end: end}
	if err := d.decodeItems(n); err != nil {
		return nil, fmt.Errorf("%w: %s %w", ErrNotArray, describe(p), err)
	}
	return d, nil
}

// decodeItems decodes the n strings of the items array, which countStrings
// has checked. Items without escapes, the common case on large lists, are
// taken as substrings of raw; the others go through encoding/json.
func (d *Document) decodeItems(n int) error {
	d.items = make([]string, 0, n)
	raw, end := d.raw, d.end
	for i := skipSeparators(raw, d.start+1, end); i < end && raw[i] != ']'; i = skipSeparators(raw, i, end) {
		j, escaped := stringEnd(raw, i)
		if text := raw[i+1 : j-1]; !escaped && utf8.ValidString(text) {
			d.items = append(d.items, text)
		} else {
			var s string
			if err := json.Unmarshal([]byte(raw[i:j]), &s); err != nil {
				return fmt.Errorf("holds an undecodable string: %w", err)
			}
			d.escaped = append(d.escaped, span{item: int32(len(d.items)), start: int32(i), end: int32(j)})
			d.items = append(d.items, s)
		}
		i = j
	}
	return nil
}

// Items returns the IDs on the list, in order. The slice must not be modified.
func (d *Document) Items() []string { return d.items }

// Bytes returns a copy of the document as it was read or written.
func (d *Document) Bytes() []byte { return []byte(d.raw) }

// size returns the size of the document in bytes.
func (d *Document) size() int { return len(d.raw) }

// body returns a reader of the document, for a request body: each attempt
// reads the one copy the Document holds.
func (d *Document) body() (io.Reader, error) { return strings.NewReader(d.raw), nil }

// Outside returns a copy of the bytes before and after the items array:
// what a write must never change.
func (d *Document) Outside() (before, after []byte) {
	return []byte(d.raw[:d.start]), []byte(d.raw[d.end:])
}

// ItemBytes returns a copy of item i as it appears in the document, quotes
// and escapes included.
func (d *Document) ItemBytes(i int) []byte { return []byte(d.spelling(i)) }

// spelling returns item i as it appears in the document, quotes and
// escapes included.
func (d *Document) spelling(i int) string {
	k, found := slices.BinarySearchFunc(d.escaped, int32(i), func(s span, i int32) int { return int(s.item - i) })
	if found {
		return d.raw[d.escaped[k].start:d.escaped[k].end]
	}
	return `"` + d.items[i] + `"`
}

// NewDocument builds the smallest document in which p leads to an empty
// array: "[]" for the empty pointer, {"items":[]} for "/items", and so on.
// A pointer through an array index cannot be created.
func NewDocument(p Pointer) (*Document, error) {
	var v any = []string{}
	for i := len(p) - 1; i >= 0; i-- {
		v = map[string]any{p[i]: v}
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("build document: %w", err)
	}
	return ParseDocument(raw, p)
}
