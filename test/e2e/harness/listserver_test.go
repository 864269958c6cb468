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

package harness

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// fakeAPIBin returns bin/fakeapi, built into a temp dir when bin/ lacks it.
func fakeAPIBin(ctx context.Context, t *testing.T) string {
	t.Helper()
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bins, err := FindBinaries(ctx, root, filepath.Join(root, "bin"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return bins.FakeAPI
}

func TestListServerKillRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the fakeapi binary")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	sup := NewSupervisor(dir)
	defer sup.StopAll()
	seed := []byte(`{"owner":"test","items":["a","b"]}`)
	s, err := StartListServer(ctx, sup, ListServerOptions{
		Bin: fakeAPIBin(ctx, t), Token: "t0ken", History: true, StateFile: filepath.Join(dir, "state.json"),
		Seed: []SeedDoc{{Path: "/l", Body: seed}},
	})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := s.Document(ctx, "/l")
	if err != nil || !slices.Equal(doc.Items, []string{"a", "b"}) || doc.Field("owner") != "test" {
		t.Fatalf("Document = %+v, %v", doc, err)
	}
	if _, err := s.Document(ctx, "/missing"); !isStatus(err, http.StatusNotFound) {
		t.Errorf("Document of a missing path: %v, want a 404 StatusError", err)
	}
	put(ctx, t, s, "/l", `{"owner":"test","items":["a","b","c"]}`)
	addr := s.Addr()

	s.Kill()
	if !s.Proc().Exited() || sup.Err() != nil {
		t.Fatalf("after Kill: exited %v, supervisor error %v", s.Proc().Exited(), sup.Err())
	}
	if _, err := s.Document(ctx, "/l"); err == nil {
		t.Fatal("a killed server answered")
	}
	if err := s.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if s.Addr() != addr || s.Restarts() != 1 {
		t.Errorf("after Restart: address %s (want %s), restarts %d", s.Addr(), addr, s.Restarts())
	}
	doc, err = s.Document(ctx, "/l")
	if err != nil || !slices.Equal(doc.Items, []string{"a", "b", "c"}) {
		t.Fatalf("after Restart the state file gave %+v, %v; want the committed a, b, c", doc, err)
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Before the kill: two reads (one a 404), a HEAD and a PUT; after it
	// one read. Only the reads through Document count as the harness's.
	if st.Total != 5 || s.Reads() != 3 || st.Count("GET", 200) != 2 || st.Count("PUT", 200) != 1 || st.Count("GET", 404) != 1 {
		t.Errorf("stats over the restart = %+v, reads %d; want 5 requests, 3 of them reads", st, s.Reads())
	}
	// The new process's history starts with the version it loaded: the
	// PUT before the kill.
	if h, err := s.History(ctx, "/l"); err != nil || len(h) != 1 || !strings.Contains(string(h[0].Body), `"c"`) || h[0].Time.IsZero() {
		t.Errorf("history of the new process = %d versions, %v; want the one it loaded (a, b, c) at its commit time", len(h), err)
	}
}

// TestListServerSetFaults switches the write hold of the fakeapi binary on
// and off at run time and reads it back.
func TestListServerSetFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the fakeapi binary")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sup := NewSupervisor(t.TempDir())
	defer sup.StopAll()
	s, err := StartListServer(ctx, sup, ListServerOptions{Bin: fakeAPIBin(ctx, t), Token: "t0ken",
		Seed: []SeedDoc{{Path: "/l", Body: []byte(`{"items":[]}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	const hold = 300 * time.Millisecond
	want := fakeapi.Faults{RateHoldWrites: 1, HoldWrites: hold}
	if err := s.SetFaults(ctx, want); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Faults(ctx); err != nil || got != want {
		t.Fatalf("Faults = %+v, %v; want %+v", got, err, want)
	}
	begin := time.Now()
	put(ctx, t, s, "/l", `{"items":["a"]}`)
	if took := time.Since(begin); took < hold {
		t.Errorf("a write with the hold on took %v, want at least %v", took, hold)
	}
	if err := s.SetFaults(ctx, fakeapi.Faults{}); err != nil {
		t.Fatal(err)
	}
	begin = time.Now()
	put(ctx, t, s, "/l", `{"items":["a","b"]}`)
	if took := time.Since(begin); took >= hold {
		t.Errorf("a write with the hold off took %v", took)
	}
	if st, err := s.Stats(ctx); err != nil || st.Faults[fakeapi.FaultHoldWrite] != 1 {
		t.Errorf("Stats = %+v, %v; want one hold", st, err)
	}
	if err := s.SetFaults(ctx, fakeapi.Faults{RateHoldWrites: 2}); err == nil {
		t.Error("SetFaults accepted a rate of 2")
	}
}

// put writes body to path, conditional on the current ETag.
func put(ctx context.Context, t *testing.T, s *ListServer, path, body string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodHead, s.URL(path), nil)
	req.Header.Set("Authorization", "Bearer "+s.Token())
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if !json.Valid([]byte(body)) {
		t.Fatalf("invalid JSON %s", body)
	}
	req, _ = http.NewRequestWithContext(ctx, http.MethodPut, s.URL(path), strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.Token())
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("If-Match", resp.Header.Get("ETag"))
	resp, err = httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("PUT %s: %s", path, resp.Status)
	}
}

func isStatus(err error, code int) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Code == code
}
