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

package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

// TestFakeAPIStoreLeavesOutTheOutsideWriter runs the fake list server
// binary and the demo's outside writer against it, with nobody else
// writing: the store's counts, which the demo reports as the operator's,
// must then be empty, while the server's counts by client show the
// writer's requests under its own name.
func TestFakeAPIStoreLeavesOutTheOutsideWriter(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the fakeapi binary")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bins, err := harness.FindBinaries(ctx, root, filepath.Join(root, "bin"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sup := harness.NewSupervisor(t.TempDir())
	defer sup.StopAll()
	srv, err := harness.StartListServer(ctx, sup, harness.ListServerOptions{
		Bin: bins.FakeAPI, Token: sampleToken, Seed: []harness.SeedDoc{{Path: listPath, Body: []byte(`{"owner":"demo","items":["by"]}`)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	store := &fakeAPIStore{srv: srv}
	base, err := store.stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w := store.outsideWriter(harness.OutsideIDs(outsidePrefix, 2))
	w.Interval, w.Jitter = time.Millisecond, time.Millisecond
	d := &demo{outside: w}
	stop := d.startOutside(ctx)
	deadline := time.Now().Add(10 * time.Second)
	for w.Counts().Edits < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil { // a second stop is harmless
		t.Fatal(err)
	}
	end, err := store.stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := end.sub(base)
	c := w.Counts()
	if c.Edits < 3 {
		t.Fatalf("the outside writer committed %d edits", c.Edits)
	}
	if got.Total != 0 || got.count(200, 412) != 0 || got.Conflicts != 0 {
		t.Errorf("the operator's requests = %d (%v), want none: the outside writer's are left out", got.Total, got.Requests)
	}
	if n := got.Agents[harness.OutsideAgent][200]; n != c.Requests["GET"][200]+c.Requests["PUT"][200] {
		t.Errorf("the server counted %d 200s for %s, the writer %v", n, harness.OutsideAgent, c.Requests)
	}
	doc, err := store.document(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if missing, unexpected := w.Check(doc.Items); len(missing)+len(unexpected) != 0 || doc.Field("owner") != docOwner {
		t.Errorf("document %+v: missing %v, unexpected %v", doc, missing, unexpected)
	}
	if ours := d.ours(doc.Items); len(ours) != 1 || ours[0] != "by" {
		t.Errorf("ours(%v) = %v, want only the bystander", doc.Items, ours)
	}
}
