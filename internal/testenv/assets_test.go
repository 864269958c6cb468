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
