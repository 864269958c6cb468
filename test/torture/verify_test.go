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
