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
	"strconv"
	"unicode/utf8"
)

// The scanning of a document that json.Valid accepted: each function
// below may assume valid JSON, and none allocates. They walk the bytes
// instead of decoding, so finding the items array of a large document
// costs no copy of it.

// text is what the scanners walk: the bytes read, or a Document's string.
type text interface{ ~string | ~[]byte }

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
			start, end, err = memberSpan(raw, start, tok)
		case '[':
			start, end, err = elementSpan(raw, start, tok)
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

// memberSpan returns the span of the value of key in the object that
// starts at raw[start], after checking that no other member has that key.
func memberSpan(raw []byte, start int, key string) (int, int, error) {
	vs, ve := -1, -1
	for i := skipSpace(raw, start+1); raw[i] != '}'; {
		ke, escaped := stringEnd(raw, i)
		match, err := keyIs(raw[i:ke], escaped, key)
		if err != nil {
			return 0, 0, err
		}
		v := skipSpace(raw, ke) // past the colon
		e := valueEnd(raw, v)
		if match {
			if vs >= 0 {
				return 0, 0, errDuplicateMember
			}
			vs, ve = v, e
		}
		i = skipSpace(raw, e) // past the comma
	}
	if vs < 0 {
		return 0, 0, errNoSuchMember
	}
	return vs, ve, nil
}

// keyIs reports whether the string token tok, with escapes or not, is key
// once decoded.
func keyIs(tok []byte, escaped bool, key string) (bool, error) {
	if !escaped && utf8.Valid(tok) {
		return string(tok[1:len(tok)-1]) == key, nil
	}
	var s string
	if err := json.Unmarshal(tok, &s); err != nil {
		return false, err
	}
	return s == key, nil
}

// elementSpan returns the span of element tok (a decimal index without
// leading zeros) of the array that starts at raw[start].
func elementSpan(raw []byte, start int, tok string) (int, int, error) {
	n, err := strconv.Atoi(tok)
	if err != nil || n < 0 || (len(tok) > 1 && tok[0] == '0') {
		return 0, 0, fmt.Errorf("%q is not an array index", tok)
	}
	for i, k := skipSpace(raw, start+1), 0; raw[i] != ']'; k++ {
		e := valueEnd(raw, i)
		if k == n {
			return i, e, nil
		}
		i = skipSpace(raw, e) // past the comma
	}
	return 0, 0, errNoSuchMember
}

// valueEnd returns the index just past the value that starts at raw[i].
func valueEnd(raw []byte, i int) int {
	switch raw[i] {
	case '"':
		e, _ := stringEnd(raw, i)
		return e
	case '{', '[':
		depth := 0
		for j := i; ; j++ {
			switch raw[j] {
			case '"':
				j, _ = stringEnd(raw, j)
				j-- // the loop steps past the closing quote
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
	default: // a number, true, false or null
		j := i
		for j < len(raw) && !isSpace(raw[j]) && raw[j] != ',' && raw[j] != '}' && raw[j] != ']' {
			j++
		}
		return j
	}
}

var errTooMany = errors.New("too many items")

// countStrings counts the items of the array raw[start:end] and checks
// that each is a string. It stops at the first item past limit, with
// errTooMany.
func countStrings(raw []byte, start, end, limit int) (int, error) {
	n := 0
	for i := skipSeparators(raw, start+1, end); i < end && raw[i] != ']'; i = skipSeparators(raw, i, end) {
		if raw[i] != '"' {
			if raw[i] == 'n' {
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
// a quote, and whether the string holds an escape.
func stringEnd[T text](raw T, i int) (int, bool) {
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

// skipSeparators returns the index of the first byte at or after i, before
// end, that is not JSON white space or a comma.
func skipSeparators[T text](raw T, i, end int) int {
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

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space, ':' or ','. Those are what separates one value from the
// next.
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

// CheckItemCount reports whether the array that p points at in raw, a
// JSON document, holds at most maxItems items, without decoding any of
// them: it fails with ErrTooManyItems past the limit. A backend whose
// provider's SDK decodes a whole answer at many times its size calls it on
// the answer's bytes first, so that an answer over the item limit costs
// only its bytes. It returns nil when raw is not JSON or p leads nowhere:
// judging the answer is left to the SDK.
func CheckItemCount(raw []byte, p Pointer, maxItems int) error {
	if !json.Valid(raw) {
		return nil
	}
	start, end, err := findSpan(raw, p)
	if err != nil {
		return nil //nolint:nilerr // a pointer that leads nowhere is the SDK's to report
	}
	if raw[start] != '[' {
		return nil
	}
	if _, err := countStrings(raw, start, end, maxItems); errors.Is(err, errTooMany) {
		return fmt.Errorf("%w: %s holds more than %d, the limit (--max-items raises it)", ErrTooManyItems, describe(p), maxItems)
	}
	return nil
}
