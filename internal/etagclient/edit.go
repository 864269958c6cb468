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
	"fmt"
	"strings"
)

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
// byte, then the added ones. It measures the new document first, builds it
// in one allocation of that size, and then points the items into it, so
// that the new document holds none of d's memory.
func (d *Document) rewrite(plan editPlan) (*Document, error) {
	// The spellings of the added items that are not their text in
	// quotes; "" for the others.
	enc := make([]string, len(plan.add))
	for k, id := range plan.add {
		if plainASCII(id) {
			continue
		}
		s, err := encodeString(id)
		if err != nil {
			return nil, fmt.Errorf("encode item: %w", err)
		}
		if len(s) != len(id)+2 || s[1:len(s)-1] != id {
			enc[k] = s
		}
	}

	n, size := 0, len(d.raw)-(d.end-d.start)+len("[]")
	measure := func(item, spelling string) {
		if n > 0 {
			size++ // the comma
		}
		n++
		if spelling != "" {
			size += len(spelling)
		} else {
			size += len(item) + 2
		}
	}
	d.kept(plan.drop, measure)
	for k, id := range plan.add {
		measure(id, enc[k])
	}
	if size > maxDocumentBytes {
		return nil, fmt.Errorf("%w: the new document would exceed 2 GiB", ErrTooLarge)
	}

	var b strings.Builder
	b.Grow(size)
	b.WriteString(d.raw[:d.start])
	b.WriteByte('[')
	next := &Document{start: d.start, items: make([]string, 0, n)}
	write := func(item, spelling string) {
		if len(next.items) > 0 {
			b.WriteByte(',')
		}
		if spelling != "" {
			next.escaped = append(next.escaped, span{item: int32(len(next.items)), start: int32(b.Len()), end: int32(b.Len() + len(spelling))})
			b.WriteString(spelling)
		} else {
			b.WriteByte('"')
			b.WriteString(item)
			b.WriteByte('"')
		}
		next.items = append(next.items, item)
	}
	d.kept(plan.drop, write)
	for k, id := range plan.add {
		write(id, enc[k])
	}
	b.WriteByte(']')
	next.end = b.Len()
	b.WriteString(d.raw[d.end:])
	next.raw = b.String()
	next.repoint()
	return next, nil
}

// kept calls f, in order, with each item of d that drop (nil: none) does
// not drop, and with its spelling when it is not its text in quotes ("").
func (d *Document) kept(drop []bool, f func(item, spelling string)) {
	esc := d.escaped
	for i, it := range d.items {
		spelling := ""
		if len(esc) > 0 && int(esc[0].item) == i {
			spelling = d.raw[esc[0].start:esc[0].end]
			esc = esc[1:]
		}
		if drop == nil || !drop[i] {
			f(it, spelling)
		}
	}
}

// repoint makes each item that is spelled as its text in quotes a
// substring of raw, which rewrite built without white space around the
// commas.
func (d *Document) repoint() {
	at, esc := d.start+1, d.escaped
	for k, it := range d.items {
		if len(esc) > 0 && int(esc[0].item) == k {
			at = int(esc[0].end) + 1
			esc = esc[1:]
			continue
		}
		d.items[k] = d.raw[at+1 : at+1+len(it)]
		at += len(it) + 3 // the quotes and the comma
	}
}

// encodeString returns s as a JSON string, without HTML escaping.
func encodeString(s string) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return "", err
	}
	return strings.TrimRight(buf.String(), "\n"), nil
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
