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

package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRepoRoot(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if got := modulePathOf(filepath.Join(root, "go.mod")); got != ModulePath {
		t.Errorf("RepoRoot() = %s, whose go.mod declares %q", root, got)
	}
}

func TestDefaultAssets(t *testing.T) {
	root := filepath.FromSlash("/repo")
	t.Setenv(AssetsEnv, "")
	if got, want := DefaultAssets(root), filepath.Join(root, "bin", "k8s"); got != want {
		t.Errorf("DefaultAssets without %s = %s, want %s", AssetsEnv, got, want)
	}
	t.Setenv(AssetsEnv, "/user/assets")
	if got := DefaultAssets(root); got != "/user/assets" {
		t.Errorf("DefaultAssets with %s set = %s; the user's setting must win", AssetsEnv, got)
	}
}

func TestCheckAssets(t *testing.T) {
	dir := t.TempDir()
	if err := CheckAssets(dir); err == nil {
		t.Error("CheckAssets of an empty directory succeeded")
	}
	if err := CheckAssets(""); err == nil {
		t.Error("CheckAssets of no directory succeeded")
	}
	for _, name := range []string{"kube-apiserver", "etcd"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := CheckAssets(dir); err != nil {
		t.Errorf("CheckAssets = %v", err)
	}
}
