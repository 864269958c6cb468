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

package etagclient_test

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// TestRead checks that Read returns the items and the strong ETag, and
// revalidates its cached copy with If-None-Match.
func TestRead(t *testing.T) {
	tests := []struct {
		name    string
		pointer string
		initial string // "" for no document
		// between runs between the first and the second Read.
		between func(t *testing.T, e *fakeEnv)
		want    []string // items of the second Read
		// wantSecond is the fake server's answer to the second GET.
		wantSecond int
	}{
		{
			name:       "unchanged: 304 and the cached items",
			pointer:    "/items",
			initial:    `{"items":["a","b"],"x":{"y":1.50}}`,
			want:       []string{"a", "b"},
			wantSecond: http.StatusNotModified,
		},
		{
			name:       "changed behind the client's back: 200 and the new items",
			initial:    `["a","b"]`,
			between:    func(t *testing.T, e *fakeEnv) { e.set(t, `["b","c"]`) },
			want:       []string{"b", "c"},
			wantSecond: http.StatusOK,
		},
		{
			name:       "no document: Exists is false, twice",
			want:       []string{},
			wantSecond: http.StatusNotFound,
		},
		{
			name:       "deleted behind the client's back",
			initial:    `["a"]`,
			between:    func(t *testing.T, e *fakeEnv) { _ = e.api.Delete(listPath) },
			want:       []string{},
			wantSecond: http.StatusNotFound,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := startFake(t)
			if tt.initial != "" {
				e.set(t, tt.initial)
			}
			c := newClient(t, e.url, etagclient.WithItemsPointer(tt.pointer))
			ctx := context.Background()

			first, err := c.Read(ctx)
			if err != nil {
				t.Fatalf("first Read: %v", err)
			}
			checkSnapshot(t, "first Read", e, first)
			if tt.between != nil {
				tt.between(t, e)
			}
			second, err := c.Read(ctx)
			if err != nil {
				t.Fatalf("second Read: %v", err)
			}
			checkSnapshot(t, "second Read", e, second)
			if !slices.Equal(second.Items, tt.want) {
				t.Errorf("second Read items = %q, want %q", second.Items, tt.want)
			}

			reqs := e.rec.requests()
			if len(reqs) != 2 {
				t.Fatalf("requests = %q, want two GETs", e.rec.sequence())
			}
			if got := reqs[0].Header.Get("If-None-Match"); got != "" {
				t.Errorf("first GET sent If-None-Match %q", got)
			}
			if got := reqs[1].Header.Get("If-None-Match"); got != first.ETag {
				t.Errorf("second GET sent If-None-Match %q, want the first ETag %q", got, first.ETag)
			}
			if reqs[1].Code != tt.wantSecond {
				t.Errorf("second GET got %d, want %d", reqs[1].Code, tt.wantSecond)
			}
		})
	}
}

// checkSnapshot compares a Snapshot with the fake server's document.
func checkSnapshot(t *testing.T, what string, e *fakeEnv, s etagclient.Snapshot) {
	t.Helper()
	body, etag, ok := e.api.Get(listPath)
	if s.Exists != ok || s.ETag != etag || s.Bytes != len(body) {
		t.Errorf("%s = {Exists %v, ETag %q, Bytes %d}, want {%v, %q, %d}", what, s.Exists, s.ETag, s.Bytes, ok, etag, len(body))
	}
	if s.Items == nil {
		t.Errorf("%s: Items is nil, want an empty slice", what)
	}
	if _, err := etagclient.ValidateETag(s.ETag); ok && err != nil {
		t.Errorf("%s: ETag %q is not strong: %v", what, s.ETag, err)
	}
}
