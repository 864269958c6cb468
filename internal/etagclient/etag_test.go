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
	"errors"
	"net/http"
	"testing"
)

func TestParseETag(t *testing.T) {
	tests := []struct {
		name   string
		values []string
		want   string
		err    error
	}{
		{"strong", []string{`"v1"`}, `"v1"`, nil},
		{"strong with spaces around", []string{` "abc-1" `}, `"abc-1"`, nil},
		{"empty quoted is valid", []string{`""`}, `""`, nil},
		{"missing", nil, "", ErrMissingETag},
		{"blank", []string{" "}, "", ErrMissingETag},
		{"weak", []string{`W/"v1"`}, "", ErrWeakETag},
		{"unquoted", []string{`v1`}, "", ErrMalformedETag},
		{"inner quote", []string{`"a"b"`}, "", ErrMalformedETag},
		{"inner space", []string{`"a b"`}, "", ErrMalformedETag},
		{"two headers", []string{`"a"`, `"b"`}, "", ErrMalformedETag},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for _, v := range tt.values {
				h.Add("ETag", v)
			}
			got, err := ParseETag(h)
			if !errors.Is(err, tt.err) {
				t.Fatalf("ParseETag = %q, %v; want error %v", got, err, tt.err)
			}
			if tt.err != nil && !errors.Is(err, ErrUnsafeServer) {
				t.Errorf("%v does not wrap ErrUnsafeServer", err)
			}
			if got != tt.want {
				t.Errorf("ParseETag = %q, want %q", got, tt.want)
			}
		})
	}
}
