package etagclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

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
