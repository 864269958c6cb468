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

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// TestTortureCatchesBrokenServers runs short rounds against servers broken
// on purpose and checks that the torture finds each break: the checks are
// only worth their green when they can go red.
func TestTortureCatchesBrokenServers(t *testing.T) {
	tests := []struct {
		name string
		wrap func(api *fakeapi.Server, next http.Handler) http.Handler
		// want are fragments that some problem must contain each.
		want []string
	}{
		{
			// A server that ignores If-Match: every stale write wins, so
			// concurrent changes overwrite each other.
			name: "lost updates",
			wrap: func(_ *fakeapi.Server, next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Method == http.MethodPut && r.Header.Get("If-Match") != "" {
						r.Header.Set("If-Match", "*")
					}
					next.ServeHTTP(w, r)
				})
			},
			want: []string{"porcupine per-id check: history is not linearizable", "disappeared, but no removal of it was in flight (lost)"},
		},
		{
			// A server (or a cache in front of it) that answers some GETs
			// with the previous version and its ETag: writes still fail
			// their precondition, but reads go back in time.
			name: "stale reads",
			wrap: func(api *fakeapi.Server, next http.Handler) http.Handler {
				var n atomic.Int64
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Method == http.MethodGet && n.Add(1)%7 == 0 {
						if h := api.History(r.URL.Path); len(h) >= 2 {
							old := h[len(h)-2]
							w.Header().Set("ETag", old.ETag)
							w.Header().Set("Content-Type", "application/json")
							_, _ = w.Write(old.Body)
							return
						}
					}
					next.ServeHTTP(w, r)
				})
			},
			want: []string{"porcupine per-id check: history is not linearizable", "visualisation: "},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig(7)
			cfg.Phases, cfg.OpsPerPhase = 2, 8
			cfg.ArtifactDir = t.TempDir()
			cfg.wrap = tt.wrap
			cfg.CheckTimeout = 3 * time.Second
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			rep, err := Run(ctx, cfg)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if rep.Passed() || rep.Totals.Violations == 0 {
				t.Fatalf("the torture passed against a broken server: %s", rep.Totals.Summary())
			}
			all := strings.Join(rep.Problems, "\n")
			for _, w := range tt.want {
				if !strings.Contains(all, w) {
					t.Errorf("no problem mentions %q:\n%.3000s", w, all)
				}
			}
			t.Logf("%d problems, the first: %.300s", len(rep.Problems), rep.Problems[0])
		})
	}
}
