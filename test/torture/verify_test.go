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

package torture

import "testing"

// TestFinalPresence checks which final presences of an ID its changes allow,
// for IDs added once and removed once as for IDs changed many times.
func TestFinalPresence(t *testing.T) {
	const ok, amb = OutcomeOK, OutcomeAmbiguous
	tests := []struct {
		name                      string
		ops                       []Record
		mayBePresent, mayBeAbsent bool
	}{
		{"added ok", []Record{add("x", 0, 10, ok)}, true, false},
		{"added ok, then removed ok", []Record{add("x", 0, 10, ok), remove("x", 20, 30, ok)}, false, true},
		{"added ok, then removed ambiguously", []Record{add("x", 0, 10, ok), remove("x", 20, 30, amb)}, true, true},
		{"added ambiguously", []Record{add("x", 0, 10, amb)}, true, true},
		{"added ambiguously, then removed ok", []Record{add("x", 0, 10, amb), remove("x", 20, 30, ok)}, true, true},
		{"removed ambiguously, never added", []Record{remove("x", 0, 10, amb)}, false, true},
		{"added and removed at once", []Record{add("x", 0, 10, ok), remove("x", 5, 30, ok)}, true, true},
		{"added, removed, added again", []Record{add("x", 0, 10, ok), remove("x", 20, 30, ok), add("x", 40, 50, ok)}, true, false},
		{"removed ok while an add overlapped, then added", []Record{remove("x", 0, 10, ok), add("x", 5, 8, ok), add("x", 20, 30, ok)}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := synthetic(t, nil)
			p, ab := a.finalPresence(tt.ops)
			if p != tt.mayBePresent || ab != tt.mayBeAbsent {
				t.Fatalf("may be present %v, absent %v; want %v, %v", p, ab, tt.mayBePresent, tt.mayBeAbsent)
			}
		})
	}
}
