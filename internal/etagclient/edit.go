package etagclient

import (
	"bytes"
	"encoding/json"
	"fmt"
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
