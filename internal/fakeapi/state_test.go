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
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// dirEntries lists the names in dir.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestStateFileRestart(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "state.json")
	// Bytes that a re-encoding would change: spacing, "<", a trailing newline.
	const odd = "{ \"items\" : [\"<a>\", \"b&c\"] }\n"
	seen := map[string]bool{}

	s1, ts1 := start(t, fakeapi.WithStateFile(file))
	if got := dirEntries(t, dir); !slices.Equal(got, []string{"state.json"}) {
		t.Fatalf("after New: dir holds %v, want only state.json", got)
	}
	res := mustCall(t, ts1.Client(), "PUT", ts1.URL+listA, docA, map[string]string{"If-None-Match": "*"})
	seen[res.header.Get("ETag")] = true
	res = mustCall(t, ts1.Client(), "PUT", ts1.URL+listA, odd, map[string]string{"If-Match": res.header.Get("ETag")})
	if res.code != 200 {
		t.Fatalf("PUT = %d", res.code)
	}
	lastA := res.header.Get("ETag")
	seen[lastA] = true
	seen[mustSet(t, s1, "/lists/b", docB)] = true
	seen[mustSet(t, s1, "/lists/c", docB)] = true
	if err := s1.Delete("/lists/c"); err != nil {
		t.Fatal(err)
	}
	// Crash: the first server is simply abandoned; nothing is flushed.
	ts1.Close()

	s2, ts2 := start(t, fakeapi.WithStateFile(file))
	body, etag, ok := s2.Get(listA)
	if !ok || string(body) != odd || etag != lastA {
		t.Fatalf("after restart %s = %q %s %v, want %q %s", listA, body, etag, ok, odd, lastA)
	}
	if !docEquals(s2, "/lists/b", docB) || !docEquals(s2, "/lists/c", "") {
		t.Fatalf("after restart Paths = %v", s2.Paths())
	}
	// A client holding the pre-restart tag can still write, and gets a tag
	// never served before.
	res = mustCall(t, ts2.Client(), "PUT", ts2.URL+listA, docB, map[string]string{"If-Match": lastA})
	if res.code != 200 {
		t.Fatalf("PUT with the pre-restart tag = %d", res.code)
	}
	for range 3 {
		etag := res.header.Get("ETag")
		if seen[etag] {
			t.Fatalf("ETag %s repeated after restart", etag)
		}
		seen[etag] = true
		res = mustCall(t, ts2.Client(), "PUT", ts2.URL+listA, docA, map[string]string{"If-Match": etag})
	}
	if got := dirEntries(t, dir); !slices.Equal(got, []string{"state.json"}) {
		t.Errorf("dir holds %v, want only state.json (no temp files)", got)
	}

	// The acknowledged write is on disk for the next process.
	s3, err := fakeapi.New(fakeapi.WithStateFile(file))
	if err != nil {
		t.Fatal(err)
	}
	if _, etag, _ := s3.Get(listA); etag != res.header.Get("ETag") {
		t.Errorf("third start sees %s, want %s", etag, res.header.Get("ETag"))
	}
	if info, err := os.Stat(file); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("state file mode = %v (%v), want 0600", info.Mode().Perm(), err)
	}
}

func TestStateFileRejectsBadContent(t *testing.T) {
	tests := []struct {
		name, content string
	}{
		{"not json", "{"},
		{"wrong format", `{"format":2,"seq":1,"documents":{}}`},
		{"body not json", `{"format":1,"seq":1,"documents":{"/a":{"etag":"v1-x","seq":1,"body":"{"}}}`},
		{"seq beyond counter", `{"format":1,"seq":1,"documents":{"/a":{"etag":"v9-x","seq":9,"body":"[]"}}}`},
		{"empty etag", `{"format":1,"seq":1,"documents":{"/a":{"etag":"","seq":1,"body":"[]"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(file, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := fakeapi.New(fakeapi.WithStateFile(file)); err == nil {
				t.Fatal("New succeeded, want an error")
			}
		})
	}
	t.Run("unwritable location", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "no", "such", "dir", "state.json")
		if _, err := fakeapi.New(fakeapi.WithStateFile(file)); err == nil {
			t.Fatal("New succeeded, want an error")
		}
	})
}

// TestStateFileWriteFailure checks that a commit that cannot be persisted
// is answered 500 and not applied.
func TestStateFileWriteFailure(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	s, ts := start(t, fakeapi.WithStateFile(filepath.Join(dir, "state.json")))
	etag := mustSet(t, s, listA, docA)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	res := mustCall(t, ts.Client(), "PUT", ts.URL+listA, docB, map[string]string{"If-Match": etag})
	if res.code != 500 {
		t.Fatalf("PUT with an unwritable state file = %d, want 500", res.code)
	}
	if _, got, _ := s.Get(listA); got != etag || !docEquals(s, listA, docA) {
		t.Fatalf("document changed by a failed commit (ETag %s, was %s)", got, etag)
	}
	if _, err := s.Set(listA, []byte(docB)); err == nil {
		t.Fatal("Set succeeded with an unwritable state file")
	}
	if st := s.Stats(); st.Commits != 0 {
		t.Errorf("Commits = %d, want 0", st.Commits)
	}
	// Once the disk is back, writes work again with the old tag.
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	res = mustCall(t, ts.Client(), "PUT", ts.URL+listA, docB, map[string]string{"If-Match": etag})
	if res.code != 200 {
		t.Fatalf("PUT after recovery = %d, want 200", res.code)
	}
}

// TestStateFileRestartHistory: a server restarted from a state file starts
// its history with the versions it loaded, at the time they were
// committed, so the last commits before a crash (which the old process's
// history can no longer hand out) are in a history again.
func TestStateFileRestartHistory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "state.json")
	s1, _ := start(t, fakeapi.WithStateFile(file), fakeapi.WithHistory(true))
	if _, err := s1.Set("/a", []byte(`["x"]`)); err != nil {
		t.Fatal(err)
	}
	last, err := s1.Set("/a", []byte(`["x","y"]`))
	if err != nil {
		t.Fatal(err)
	}
	before := s1.History("/a")

	s2, _ := start(t, fakeapi.WithStateFile(file), fakeapi.WithHistory(true))
	after := s2.History("/a")
	if len(after) != 1 {
		t.Fatalf("the restarted server's history has %d versions, want the loaded one", len(after))
	}
	got, want := after[0], before[len(before)-1]
	if got.ETag != last || got.ETag != want.ETag || !got.Time.Equal(want.Time) || string(got.Body) != `["x","y"]` {
		t.Errorf("loaded version = %s at %s %s, want %s at %s %s", got.ETag, got.Time, got.Body, want.ETag, want.Time, want.Body)
	}
	s3, _ := start(t, fakeapi.WithStateFile(file))
	if h := s3.History("/a"); len(h) != 0 {
		t.Errorf("without history, a restarted server recorded %d versions", len(h))
	}
}
