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
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ModulePath is the module whose root RepoRoot finds.
const ModulePath = "github.com/listkeeper/listkeeper"

// AssetsEnv is the environment variable that names the directory of the
// kube-apiserver and etcd binaries. When it is set it wins over bin/k8s.
const AssetsEnv = "KUBEBUILDER_ASSETS"

// RepoRoot walks up from the working directory to the directory whose
// go.mod declares ModulePath. go test runs a package's tests in the
// package's directory, so tests anywhere in the module find the root.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if modulePathOf(filepath.Join(dir, "go.mod")) == ModulePath {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod of %s above the working directory", ModulePath)
		}
		dir = parent
	}
}

// modulePathOf returns the module path declared by the go.mod at path, or
// "".
func modulePathOf(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// DefaultAssets returns $KUBEBUILDER_ASSETS when it is set, else
// <root>/bin/k8s, where 'make envtest-assets' builds them.
func DefaultAssets(root string) string {
	if a := os.Getenv(AssetsEnv); a != "" {
		return a
	}
	return filepath.Join(root, "bin", "k8s")
}

// CheckAssets returns an error that says what to do when dir lacks the
// kube-apiserver or etcd binary.
func CheckAssets(dir string) error {
	if dir == "" {
		return errors.New("no envtest assets: set KUBEBUILDER_ASSETS or run 'make envtest-assets' to build bin/k8s")
	}
	for _, name := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("envtest assets %s lack %s (%w): run 'make envtest-assets', or set KUBEBUILDER_ASSETS to a directory holding kube-apiserver and etcd", dir, name, err)
		}
	}
	return nil
}
