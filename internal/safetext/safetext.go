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

// Package safetext makes text that the operator did not write (a server's
// answer, a header, an ID) safe to put into condition messages, events and
// logs: printable, and short.
package safetext

import (
	"strings"
	"unicode/utf8"
)

// Short returns s cut to at most limit bytes (on a rune boundary, ending in
// "…" when cut), with every control character (C0, DEL, C1: terminal
// escapes, newlines) and bidirectional formatting character replaced by
// U+FFFD, so that the text can neither rewrite a terminal nor reorder what
// is shown around it.
func Short(s string, limit int) string {
	var b strings.Builder
	b.Grow(min(len(s), limit+len("…")))
	for i, r := range s {
		if i+utf8.RuneLen(r) > limit {
			b.WriteString("…")
			break
		}
		if !Printable(r) {
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Printable reports whether r may be shown as it is: not a control
// character, not a bidirectional formatting character, and not one that is
// invisible or breaks a line where no control character does (soft hyphen,
// zero-width characters, joiners, line and paragraph separators, the byte
// order mark, the interlinear annotation characters and the tag
// characters). Two strings that differ only by such characters look the
// same on a screen, and a message could be made to look like another.
// The API's rule on spec.id (api/v1alpha1) refuses the same characters.
func Printable(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f, r == 0xad, r == 0x61c, r == 0x180e,
		r >= 0x200b && r <= 0x200f, r >= 0x2028 && r <= 0x202e, r >= 0x2060 && r <= 0x2069,
		r == 0xfeff, r >= 0xfff9 && r <= 0xfffb, r >= 0xe0000 && r <= 0xe007f:
		return false
	}
	return true
}
