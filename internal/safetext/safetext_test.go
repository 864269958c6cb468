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

package safetext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestShort(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"plain", 100, "plain"},
		{"ok\x1b[31mred", 100, "ok\uFFFD[31mred"},
		{"line\nbreak\ttab", 100, "line\uFFFDbreak\uFFFDtab"},
		{"admin\u202egnp.exe", 100, "admin\uFFFDgnp.exe"},
		{"c1\u0085", 100, "c1\uFFFD"},
		{"in\u200bvisible\ufeff\u2028\U000E0041\u061c", 100, "in\uFFFDvisible\uFFFD\uFFFD\uFFFD\uFFFD"},
		{"café-東京", 100, "café-東京"},
		{strings.Repeat("a", 10), 4, "aaaa…"},
		{"ééé", 5, "éé…"},
		{"", 10, ""},
	}
	for _, tt := range tests {
		got := Short(tt.in, tt.max)
		if got != tt.want {
			t.Errorf("Short(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("Short(%q) is not valid UTF-8", tt.in)
		}
	}
}

func FuzzShort(f *testing.F) {
	f.Add("ok\x1b[31m", 10)
	f.Fuzz(func(t *testing.T, s string, limit int) {
		if limit < 0 || limit > 1<<16 {
			return
		}
		got := Short(s, limit)
		if len(got) > limit+len("…") {
			t.Fatalf("len %d > %d", len(got), limit)
		}
		for _, r := range got {
			if !Printable(r) {
				t.Fatalf("unprintable %U in %q", r, got)
			}
		}
	})
}
