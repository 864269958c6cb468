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
// character and not a bidirectional formatting character.
func Printable(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f,
		r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return false
	}
	return true
}
