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

package ownership

import (
	"testing"

	"github.com/listkeeper/listkeeper/internal/listconfig"
	"github.com/listkeeper/listkeeper/internal/membership"
)

func TestDocumentIDOf(t *testing.T) {
	const url = "http://127.0.0.1:8090/lists/allow?token=x"
	fromURL := listconfig.DocumentIDOfURL(url)
	if fromURL == "" || fromURL != listconfig.DocumentIDOfURL("HTTP://127.0.0.1:8090/lists/allow") {
		t.Fatalf("DocumentIDOfURL(%s) = %q", url, fromURL)
	}
	tests := []struct {
		name string
		obj  map[string]any
		want string
	}{
		{"from spec.url", map[string]any{"spec": map[string]any{"url": url}}, fromURL},
		{"published", map[string]any{"spec": map[string]any{"url": url}, "status": map[string]any{"documentID": "abc"}}, "abc"},
		{"published empty", map[string]any{"spec": map[string]any{"url": url}, "status": map[string]any{"documentID": ""}}, fromURL},
		{"no http URL", map[string]any{"spec": map[string]any{"wafv2": map[string]any{}}}, ""},
	}
	for _, tt := range tests {
		if got := DocumentIDOf(tt.obj); got != tt.want {
			t.Errorf("%s: DocumentIDOf = %q, want %q", tt.name, got, tt.want)
		}
	}
	if got, want := Bucket(fromURL, membership.DefaultBuckets), membership.Bucket(listconfig.DocumentBucketKey(fromURL), membership.DefaultBuckets); got != want {
		t.Errorf("Bucket = %d, want %d", got, want)
	}
}
