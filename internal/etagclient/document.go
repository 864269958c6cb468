package etagclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"
)

// Document is a JSON document with the byte span of its items array located.
// Everything outside the span is kept byte for byte on write, and so is every
// item that a write does not touch. A Document is immutable and safe to
// share.
type Document struct {
	raw        []byte
	start, end int      // raw[start:end] is the items array
	items      []string // the decoded items
	// spans[2i], spans[2i+1] delimit item i in raw, quotes included, so an
	// item another writer put there is written back exactly as it came,
	// escapes and all, even when it does not survive a decode ("\ud800").
	spans []int32
}

// maxDocumentBytes is the largest document a Document can hold: item spans
// are stored as int32 offsets.
const maxDocumentBytes = 1<<31 - 1

// ParseDocument checks that raw is one JSON value, finds the array that p
// points at, and decodes it as strings. Errors wrap ErrNotJSON or ErrNotArray;
// an object on the pointer's path that has the next token as a key twice
// wraps ErrDuplicateKey.
func ParseDocument(raw []byte, p Pointer) (*Document, error) {
	return parseDocument(raw, p, math.MaxInt)
}

// parseDocument is ParseDocument for a document of at most maxItems items:
// a longer one fails with ErrTooManyItems once the count passes the limit,
// before any item is decoded.
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
	items, spans, err := scanStrings(raw, start, end, n)
	if err != nil {
		return nil, fmt.Errorf("%w: %s %w", ErrNotArray, describe(p), err)
	}
	return &Document{raw: raw, start: start, end: end, items: items, spans: spans}, nil
}

var errTooMany = errors.New("too many items")

// countStrings counts the items of the array raw[start:end], which is
// valid JSON, and checks that each is a string. It stops at the first item
// past limit, with errTooMany.
func countStrings(raw []byte, start, end, limit int) (int, error) {
	n := 0
	for i := skipSeparators(raw, start+1, end); i < end && raw[i] != ']'; i = skipSeparators(raw, i, end) {
		if raw[i] != '"' {
			if bytes.HasPrefix(raw[i:end], []byte("null")) {
				return 0, errors.New("holds null")
			}
			return 0, errors.New("holds a value that is not a string")
		}
		if n == limit {
			return 0, errTooMany
		}
		n++
		i, _ = stringEnd(raw, i)
	}
	return n, nil
}

// stringEnd returns the index just past the string that starts at raw[i],
// a quote, in valid JSON, and whether the string holds an escape.
func stringEnd(raw []byte, i int) (int, bool) {
	j, escaped := i+1, false
	for raw[j] != '"' {
		if raw[j] == '\\' {
			escaped = true
			j++
		}
		j++
	}
	return j + 1, escaped
}

// scanStrings decodes the n strings of the array raw[start:end], which
// countStrings has checked, and returns each item's span. Items without
// escapes are taken as they are, the common case on large lists; the others
// go through encoding/json.
func scanStrings(raw []byte, start, end, n int) ([]string, []int32, error) {
	items := make([]string, 0, n)
	spans := make([]int32, 0, 2*n)
	for i := skipSeparators(raw, start+1, end); i < end && raw[i] != ']'; i = skipSeparators(raw, i, end) {
		j, escaped := stringEnd(raw, i)
		tok := raw[i:j]
		var s string
		if !escaped && utf8.Valid(tok) {
			s = string(tok[1 : len(tok)-1])
		} else if err := json.Unmarshal(tok, &s); err != nil {
			return nil, nil, fmt.Errorf("holds an undecodable string: %w", err)
		}
		items = append(items, s)
		spans = append(spans, int32(i), int32(j))
		i = j
	}
	return items, spans, nil
}

// skipSeparators returns the index of the first byte at or after i, before
// end, that is not JSON white space or a comma.
func skipSeparators(raw []byte, i, end int) int {
	for i < end {
		switch raw[i] {
		case ' ', '\t', '\n', '\r', ',':
			i++
		default:
			return i
		}
	}
	return i
}

// Items returns the IDs on the list, in order. The slice must not be modified.
func (d *Document) Items() []string { return d.items }

// Bytes returns the document as it was read or written. It must not be
// modified.
func (d *Document) Bytes() []byte { return d.raw }

// Outside returns the bytes before and after the items array: what a write
// must never change. The slices must not be modified.
func (d *Document) Outside() (before, after []byte) { return d.raw[:d.start], d.raw[d.end:] }

// ItemBytes returns item i as it appears in the document, quotes and
// escapes included. It must not be modified.
func (d *Document) ItemBytes(i int) []byte { return d.raw[d.spans[2*i]:d.spans[2*i+1]] }

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
