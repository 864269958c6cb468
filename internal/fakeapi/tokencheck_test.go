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

package fakeapi_test

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// tokenBook is a TokenCheck that knows one good token and records what
// it was asked.
type tokenBook struct {
	mu    sync.Mutex
	good  string
	asked []string
}

func (b *tokenBook) check(token string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.asked = append(b.asked, token)
	if token != b.good {
		return errors.New("unknown or expired token")
	}
	return nil
}

// TestTokenCheck checks WithTokenCheck under every profile: list requests
// and the guarded admin routes need a token the check accepts, refusals
// are 401 in the profile's error format, and healthz stays open.
func TestTokenCheck(t *testing.T) {
	for _, p := range fakeapi.Profiles() {
		t.Run(string(p), func(t *testing.T) {
			book := &tokenBook{good: "fresh"}
			s, ts := start(t, fakeapi.WithProfile(p), fakeapi.WithWeakWindow(0), fakeapi.WithTokenCheck(book.check))
			mustSet(t, s, listA, docA)
			c := rawClient(t)
			bearer := func(token string) map[string]string {
				return map[string]string{"Authorization": "Bearer " + token}
			}
			tests := []struct {
				name   string
				path   string
				header map[string]string
				want   int
			}{
				{"no token", listA, nil, 401},
				{"refused token", listA, bearer("stale"), 401},
				{"good token", listA, bearer("fresh"), 200},
				{"good token, scheme in lower case", listA, map[string]string{"Authorization": "bearer fresh"}, 200},
				{"admin without token", "/_fakeapi/stats", nil, 401},
				{"admin with refused token", "/_fakeapi/stats", bearer("stale"), 401},
				{"admin with good token", "/_fakeapi/stats", bearer("fresh"), 200},
				{"healthz", "/_fakeapi/healthz", nil, 200},
			}
			for _, tt := range tests {
				res := mustCall(t, c, "GET", ts.URL+tt.path, "", tt.header)
				if res.code != tt.want {
					t.Errorf("%s: %d, want %d", tt.name, res.code, tt.want)
				}
				if res.code == 401 && !strings.HasPrefix(tt.path, fakeapi.AdminPrefix) && res.header.Get("Content-Type") != errorContentType[p] {
					t.Errorf("%s: 401 with Content-Type %q, want %q", tt.name, res.header.Get("Content-Type"), errorContentType[p])
				}
			}
			if p == fakeapi.ProfileGCS {
				if got := xmlErrorCode(t, mustCall(t, c, "GET", ts.URL+listA, "", bearer("stale"))); got != "AuthenticationRequired" {
					t.Errorf("gcs 401 code = %q", got)
				}
			}
			book.mu.Lock()
			defer book.mu.Unlock()
			for _, asked := range book.asked {
				if asked == "" {
					t.Error("the check was asked about an empty token")
				}
			}
		})
	}
}

func TestTokenCheckExcludesToken(t *testing.T) {
	_, err := fakeapi.New(fakeapi.WithToken("t"), fakeapi.WithTokenCheck(func(string) error { return nil }))
	if err == nil {
		t.Fatal("New accepted WithToken and WithTokenCheck together")
	}
}
