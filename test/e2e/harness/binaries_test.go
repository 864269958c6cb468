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
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestRepoRoot(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "cmd", "manager")); err != nil {
		t.Errorf("RepoRoot = %s, which lacks cmd/manager: %v", root, err)
	}
}

func TestFindBinaries(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	binDir := t.TempDir()
	for _, name := range []string{"manager", "fakeapi"} {
		if err := os.WriteFile(filepath.Join(binDir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	found, err := FindBinaries(ctx, root, binDir, t.TempDir())
	if err != nil || found.Built || found.Manager != filepath.Join(binDir, "manager") || found.FakeAPI != filepath.Join(binDir, "fakeapi") {
		t.Errorf("FindBinaries with both present = %+v, %v; want them, not built", found, err)
	}

	if testing.Short() {
		t.Skip("building the binaries takes a while")
	}
	buildDir := t.TempDir()
	built, err := FindBinaries(ctx, root, t.TempDir(), buildDir)
	if err != nil {
		t.Fatal(err)
	}
	if !built.Built || CheckBinaries(built.Manager, built.FakeAPI) != nil || filepath.Dir(built.Manager) != buildDir {
		t.Errorf("FindBinaries with none present = %+v; want both built into %s", built, buildDir)
	}
}
