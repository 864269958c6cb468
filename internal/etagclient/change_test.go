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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestApply(t *testing.T) {
	tests := []struct {
		name    string
		items   []string
		changes []Change
		want    []string
		changed bool
	}{
		{"add appends", []string{"a", "b"}, []Change{{Add: []string{"c"}}}, []string{"a", "b", "c"}, true},
		{"add present is a no-op", []string{"a", "b"}, []Change{{Add: []string{"a"}}}, []string{"a", "b"}, false},
		{"remove keeps order", []string{"a", "b", "c", "d"}, []Change{{Remove: []string{"b"}}}, []string{"a", "c", "d"}, true},
		{"remove absent is a no-op", []string{"a"}, []Change{{Remove: []string{"x"}}}, []string{"a"}, false},
		{"remove drops every duplicate", []string{"a", "x", "b", "x"}, []Change{{Remove: []string{"x"}}}, []string{"a", "b"}, true},
		{"adds keep arrival order", nil, []Change{{Add: []string{"b"}}, {Add: []string{"a", "b"}}}, []string{"b", "a"}, true},
		{"later remove wins over earlier add", []string{"a"}, []Change{{Add: []string{"x"}}, {Remove: []string{"x"}}}, []string{"a"}, false},
		{"later add wins over earlier remove", []string{"a", "x"}, []Change{{Remove: []string{"x"}}, {Add: []string{"x"}}}, []string{"a", "x"}, false},
		{"later add wins over earlier remove when absent", []string{"a"}, []Change{{Remove: []string{"x"}}, {Add: []string{"x"}}}, []string{"a", "x"}, true},
		{"remove then add moves nothing when present", []string{"x", "a"}, []Change{{Remove: []string{"x"}}, {Add: []string{"x"}}}, []string{"x", "a"}, false},
		{"retain only", []string{"a", "b", "c"}, []Change{{RetainOnly: []string{"a", "c", "z"}}}, []string{"a", "c"}, true},
		{"retain with add", []string{"a", "b"}, []Change{{RetainOnly: []string{"a", "z"}, Add: []string{"z"}}}, []string{"a", "z"}, true},
		{"empty retain clears", []string{"a", "b"}, []Change{{RetainOnly: []string{}}}, []string{}, true},
		{"nil retain keeps", []string{"a", "b"}, []Change{{}}, []string{"a", "b"}, false},
		{"add after retain survives", []string{"a", "b"}, []Change{{RetainOnly: []string{"a"}}, {Add: []string{"b"}}}, []string{"a", "b"}, false},
		{"retain after add removes it", []string{"a"}, []Change{{Add: []string{"b"}}, {RetainOnly: []string{"a"}}}, []string{"a"}, false},
		{"empty list", []string{}, nil, []string{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig := append([]string(nil), tt.items...)
			got, changed := Apply(tt.items, tt.changes...)
			if changed != tt.changed {
				t.Errorf("changed = %v, want %v", changed, tt.changed)
			}
			if diff := cmp.Diff(tt.want, got, cmpNilEmpty); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(orig, tt.items, cmpNilEmpty); diff != "" {
				t.Errorf("Apply modified its input (-before +after):\n%s", diff)
			}
			// Idempotence: applying the same changes again changes nothing.
			if again, changed := Apply(got, tt.changes...); changed {
				t.Errorf("second Apply changed %v to %v", got, again)
			}
			if Holds(got, tt.changes...) != true {
				t.Errorf("Holds after Apply = false")
			}
		})
	}
}

var cmpNilEmpty = cmp.Transformer("nilToEmpty", func(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
})

func TestChangeValidate(t *testing.T) {
	long := string(make([]byte, MaxIDLength+1))
	tests := []struct {
		name    string
		change  Change
		wantErr bool
	}{
		{"ok", Change{Add: []string{"a"}, Remove: []string{"b"}}, false},
		{"zero", Change{}, false},
		{"empty id", Change{Add: []string{""}}, true},
		{"too long", Change{Remove: []string{long}}, true},
		{"too long in retain", Change{RetainOnly: []string{long}}, true},
		{"add and remove same id", Change{Add: []string{"a"}, Remove: []string{"a"}}, true},
		{"invalid utf-8", Change{Add: []string{"\x83"}}, true},
		{"253 multi-byte characters", Change{Add: []string{strings.Repeat("é", MaxIDLength)}}, false},
		{"254 characters", Change{Add: []string{strings.Repeat("é", MaxIDLength+1)}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.change.Validate(); (err != nil) != tt.wantErr {
				t.Errorf("Validate() = %v, wantErr %v", err, tt.wantErr)
			}
		})
	}
}
