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
