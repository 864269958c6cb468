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
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParsePointer(t *testing.T) {
	tests := []struct {
		in      string
		want    Pointer
		wantErr bool
	}{
		{"", nil, false},
		{"/items", Pointer{"items"}, false},
		{"/a/b/0", Pointer{"a", "b", "0"}, false},
		{"/a~1b/c~0d", Pointer{"a/b", "c~d"}, false},
		{"/", Pointer{""}, false},
		{"items", nil, true},
		{"/a~2", nil, true},
		{"/a~", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParsePointer(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParsePointer(%q) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if err == nil && got.String() != tt.in {
				t.Errorf("String() = %q, want %q", got.String(), tt.in)
			}
		})
	}
}
