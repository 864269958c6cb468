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
	"fmt"
	"strings"
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

func describe(p Pointer) string {
	if len(p) == 0 {
		return "the document"
	}
	return fmt.Sprintf("pointer %q", p.String())
}
