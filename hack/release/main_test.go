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
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"
)

// The release under test: what `make release VERSION=testVersion` writes,
// with the Makefile's default images, built once for every test.
const (
	testVersion      = "v0.3.0"
	testChartVersion = "0.3.0"
	testRevision     = "0123456789abcdef0123456789abcdef01234567"
	testEpoch        = 1700000000
)

var (
	root  string   // the repository root
	opts  Options  // the release's options, defaults filled in
	bins  binaries // the binaries built for it
	built Result   // what the release wrote
	// warned is what the release said on stderr: it is signed with a
	// throwaway key.
	warned bytes.Buffer

	tmpDir    string    // removed when the tests end
	setupOnce sync.Once // builds the release for the first test that needs it
	// setupErr is why there is no release; every test that needs it fails
	// with it.
	setupErr error
)

// TestMain removes the release the tests built, if one did.
func TestMain(m *testing.M) {
	code := m.Run()
	if tmpDir != "" {
		_ = os.RemoveAll(tmpDir)
	}
	os.Exit(code)
}

// requireRelease builds the binaries and the release once, into a
// temporary directory, and fails t when that failed.
func requireRelease(t *testing.T) {
	t.Helper()
	setupOnce.Do(func() {
		if tmpDir, setupErr = os.MkdirTemp("", "release-test-"); setupErr == nil {
			setupErr = setup(tmpDir)
		}
	})
	if setupErr != nil {
		t.Fatalf("build the release: %v", setupErr)
	}
}

func setup(tmp string) error {
	var err error
	if root, err = repoRoot(); err != nil {
		return err
	}
	mgr, fake, err := makefileImages(root)
	if err != nil {
		return err
	}
	opts, err = Options{
		Root:         root,
		Out:          filepath.Join(tmp, "dist"),
		Version:      testVersion,
		Revision:     testRevision,
		Created:      time.Unix(testEpoch, 0),
		ManagerImage: mgr,
		FakeAPIImage: fake,
		Kubectl:      kubectlPath(),
		Warn:         &warned,
	}.withDefaults()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	start := time.Now()
	if bins, err = goBuild(ctx, opts, filepath.Join(tmp, "bin")); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "hack/release: built %d programs for %d platforms in %s\n", len(programs), len(opts.Platforms), time.Since(start).Round(time.Second))
	start = time.Now()
	if built, err = releaseFrom(ctx, opts, bins); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "hack/release: wrote the release in %s\n", time.Since(start).Round(time.Second))
	return nil
}

// repoRoot is the repository root: the tests run in hack/release.
func repoRoot() (string, error) { return filepath.Abs(filepath.Join("..", "..")) }

// makefileImages are the Makefile's default images, IMG and IMG_FAKEAPI.
func makefileImages(root string) (manager, fakeapi string, err error) {
	raw, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		return "", "", err
	}
	get := func(name string) (string, error) {
		m := regexp.MustCompile(`(?m)^` + name + ` \?= (\S+)$`).FindSubmatch(raw)
		if m == nil {
			return "", fmt.Errorf("the Makefile sets no default %s", name)
		}
		return string(m[1]), nil
	}
	if manager, err = get("IMG"); err != nil {
		return "", "", err
	}
	fakeapi, err = get("IMG_FAKEAPI")
	return manager, fakeapi, err
}

// kubectlPath is /usr/bin/kubectl when it is there, else kubectl from
// $PATH.
func kubectlPath() string {
	if st, err := os.Stat("/usr/bin/kubectl"); err == nil && !st.IsDir() {
		return "/usr/bin/kubectl"
	}
	return "kubectl"
}
