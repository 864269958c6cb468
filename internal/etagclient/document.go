package etagclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Pointer is a parsed RFC 6901 JSON pointer: the reference tokens, unescaped.
// The zero Pointer refers to the whole document.
type Pointer []string

// ParsePointer parses an RFC 6901 JSON pointer. "" is the whole document;
// otherwise it must start with "/", and "~" may only appear as "~0" or "~1".
func ParsePointer(s string) (Pointer, error) {
	if s == "" {
		return nil, nil
	}
	if s[0] != '/' {
		return nil, fmt.Errorf("json pointer %q must be empty or start with '/'", s)
	}
	parts := strings.Split(s[1:], "/")
	p := make(Pointer, len(parts))
	for i, part := range parts {
		for j := 0; j < len(part); j++ {
			if part[j] == '~' && (j+1 == len(part) || (part[j+1] != '0' && part[j+1] != '1')) {
				return nil, fmt.Errorf("json pointer %q: '~' must be followed by '0' or '1'", s)
			}
		}
		p[i] = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
	}
	return p, nil
}

// String returns the pointer in its RFC 6901 form.
func (p Pointer) String() string {
	var b strings.Builder
	for _, tok := range p {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

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

// Apply returns the document with the changes applied in order (see the
// package function Apply), and whether anything changed. When nothing
// changes, d itself is returned. Items that stay keep their exact bytes;
// added items are encoded without HTML escaping; the array is written
// without white space between items.
func (d *Document) Apply(changes ...Change) (*Document, bool, error) {
	plan := planEdit(d.items, changes)
	if !plan.changed {
		return d, false, nil
	}
	next, err := d.rewrite(plan)
	if err != nil {
		return nil, false, err
	}
	return next, true, nil
}

// WithItems returns a new document that is d with its items array replaced by
// items, all of them freshly encoded. Every byte outside the array stays as
// it was.
func (d *Document) WithItems(items []string) (*Document, error) {
	drop := make([]bool, len(d.items))
	for i := range drop {
		drop[i] = true
	}
	return d.rewrite(editPlan{drop: drop, add: items, changed: true})
}

// rewrite builds the document that plan describes: d's kept items, byte for
// byte, then the added ones.
func (d *Document) rewrite(plan editPlan) (*Document, error) {
	n := d.end - d.start + 2
	for _, id := range plan.add {
		n += len(id) + 3
	}
	arr := make([]byte, 0, n)
	arr = append(arr, '[')
	items := make([]string, 0, len(d.items)+len(plan.add))
	spans := make([]int32, 0, 2*cap(items))
	for i, it := range d.items {
		if plan.drop != nil && plan.drop[i] {
			continue
		}
		if len(items) > 0 {
			arr = append(arr, ',')
		}
		at := d.start + len(arr)
		arr = append(arr, d.ItemBytes(i)...)
		items = append(items, it)
		spans = append(spans, int32(at), int32(d.start+len(arr)))
	}
	for _, id := range plan.add {
		if len(items) > 0 {
			arr = append(arr, ',')
		}
		at := d.start + len(arr)
		var err error
		if arr, err = appendString(arr, id); err != nil {
			return nil, fmt.Errorf("encode item: %w", err)
		}
		items = append(items, id)
		spans = append(spans, int32(at), int32(d.start+len(arr)))
	}
	arr = append(arr, ']')
	if len(d.raw)-(d.end-d.start)+len(arr) > maxDocumentBytes {
		return nil, fmt.Errorf("%w: the new document would exceed 2 GiB", ErrTooLarge)
	}
	raw := make([]byte, 0, len(d.raw)-(d.end-d.start)+len(arr))
	raw = append(raw, d.raw[:d.start]...)
	raw = append(raw, arr...)
	raw = append(raw, d.raw[d.end:]...)
	return &Document{raw: raw, start: d.start, end: d.start + len(arr), items: items, spans: spans}, nil
}

// appendString appends s as a JSON string, without HTML escaping. Plain
// printable ASCII, by far the common case, is copied as it is; anything else
// goes through encoding/json.
func appendString(dst []byte, s string) ([]byte, error) {
	if plainASCII(s) {
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"'), nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return append(dst, bytes.TrimRight(buf.Bytes(), "\n")...), nil
}

// plainASCII reports whether s needs no escaping in a JSON string.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i]; b < 0x20 || b > 0x7e || b == '"' || b == '\\' {
			return false
		}
	}
	return true
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

func describe(p Pointer) string {
	if len(p) == 0 {
		return "the document"
	}
	return fmt.Sprintf("pointer %q", p.String())
}

// findSpan returns the byte span of the value that p points at in raw, which
// must be valid JSON. Every object on the way must name the next token only
// once: parsers disagree about which duplicate wins (most take the last), so
// editing one of them could change a list that others read differently.
func findSpan(raw []byte, p Pointer) (int, int, error) {
	start, end := 0, len(raw)
	for start < end && isSpace(raw[start]) {
		start++
	}
	for end > start && isSpace(raw[end-1]) {
		end--
	}
	for depth, tok := range p {
		var err error
		switch raw[start] {
		case '{':
			start, end, err = memberSpan(raw, start, end, tok)
		case '[':
			start, end, err = elementSpan(raw, start, end, tok)
		default:
			return 0, 0, fmt.Errorf("%w: %s: not an object or array", ErrNotArray, describe(p[:depth]))
		}
		switch {
		case errors.Is(err, errDuplicateMember):
			return 0, 0, fmt.Errorf("%w: %s: %w", ErrDuplicateKey, describe(p[:depth+1]), err)
		case err != nil:
			return 0, 0, fmt.Errorf("%w: %s: %w", ErrNotArray, describe(p[:depth+1]), err)
		}
	}
	return start, end, nil
}

var (
	errNoSuchMember    = errors.New("no such member")
	errDuplicateMember = errors.New("the key appears more than once in its object")
)

// memberSpan returns the span of the value of key in the object
// raw[start:end], after checking that no other member has that key.
func memberSpan(raw []byte, start, end int, key string) (int, int, error) {
	dec := json.NewDecoder(bytes.NewReader(raw[start:end]))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // '{'
		return 0, 0, err
	}
	vs, ve := -1, -1
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return 0, 0, err
		}
		k, _ := t.(string)
		if k != key {
			if err := skipValue(dec); err != nil {
				return 0, 0, err
			}
			continue
		}
		if vs >= 0 {
			return 0, 0, errDuplicateMember
		}
		vs = skipSpace(raw, start+int(dec.InputOffset()))
		if err := skipValue(dec); err != nil {
			return 0, 0, err
		}
		ve = start + int(dec.InputOffset())
	}
	if vs < 0 {
		return 0, 0, errNoSuchMember
	}
	return vs, ve, nil
}

// elementSpan returns the span of element tok (a decimal index without
// leading zeros) of the array raw[start:end].
func elementSpan(raw []byte, start, end int, tok string) (int, int, error) {
	n, err := strconv.Atoi(tok)
	if err != nil || n < 0 || (len(tok) > 1 && tok[0] == '0') {
		return 0, 0, fmt.Errorf("%q is not an array index", tok)
	}
	dec := json.NewDecoder(bytes.NewReader(raw[start:end]))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // '['
		return 0, 0, err
	}
	for i := 0; i < n; i++ {
		if !dec.More() {
			return 0, 0, errNoSuchMember
		}
		if err := skipValue(dec); err != nil {
			return 0, 0, err
		}
	}
	if !dec.More() {
		return 0, 0, errNoSuchMember
	}
	vs := skipSpace(raw, start+int(dec.InputOffset()))
	if err := skipValue(dec); err != nil {
		return 0, 0, err
	}
	return vs, start + int(dec.InputOffset()), nil
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// skipValue consumes one whole value. Decoding into a RawMessage uses the
// decoder's fast scanner instead of one Token call per element, which matters
// for arrays of 100,000 IDs.
func skipValue(dec *json.Decoder) error {
	var skip json.RawMessage
	if err := dec.Decode(&skip); err != nil {
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		return err
	}
	return nil
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space, ':' or ','. Those are what separates a decoder's offset
// from the start of the next value.
func skipSpace(raw []byte, i int) int {
	for i < len(raw) {
		switch raw[i] {
		case ' ', '\t', '\n', '\r', ':', ',':
			i++
		default:
			return i
		}
	}
	return i
}
