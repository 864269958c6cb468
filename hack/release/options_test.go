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
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestChartVersion(t *testing.T) {
	for _, tc := range []struct {
		version, want string
		ok            bool
	}{
		{"v0.3.0", "0.3.0", true},
		{"v1.2.3-rc.1", "1.2.3-rc.1", true},
		{"v1.2.3+build.5", "1.2.3+build.5", true},
		{"0.3.0", "", false},
		{"v0.3", "", false},
		{"dd38683-dirty", "", false},
		{"dev", "", false},
		{"v01.2.3", "", false},
	} {
		got, err := ChartVersion(tc.version)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("ChartVersion(%q) = %q, %v, want %q (ok %v)", tc.version, got, err, tc.want, tc.ok)
		}
	}
}

func TestSplitRef(t *testing.T) {
	for _, tc := range []struct {
		ref, repo, tag string
		ok             bool
	}{
		{"ghcr.io/listkeeper/listkeeper:v0.3.0", "ghcr.io/listkeeper/listkeeper", "v0.3.0", true},
		{"localhost:5000/listkeeper:dev", "localhost:5000/listkeeper", "dev", true},
		{"listkeeper:dev", "listkeeper", "dev", true},
		{"ghcr.io/listkeeper/listkeeper", "", "", false},
		{"ghcr.io/listkeeper/listkeeper@sha256:0000000000000000000000000000000000000000000000000000000000000000", "", "", false},
		{"Upper/case:tag", "", "", false},
	} {
		repo, tag, err := splitRef(tc.ref)
		if repo != tc.repo || tag != tc.tag || (err == nil) != tc.ok {
			t.Errorf("splitRef(%q) = %q, %q, %v, want %q, %q (ok %v)", tc.ref, repo, tag, err, tc.repo, tc.tag, tc.ok)
		}
	}
}

func TestParseFlags(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	o, err := parseFlags("release", []string{
		"--version", "v0.3.0", "--revision", "abc", "--manager-image", "r/m:t", "--fakeapi-image", "r/f:t",
		"--platforms", "linux/arm64",
	}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.Version != "v0.3.0" || o.Revision != "abc" || o.ManagerImage != "r/m:t" || o.FakeAPIImage != "r/f:t" ||
		o.Out != "dist" || o.Root != "." || !o.Created.Equal(time.Unix(1700000000, 0)) ||
		len(o.Platforms) != 1 || o.Platforms[0].OS != "linux" || o.Platforms[0].Architecture != "arm64" {
		t.Errorf("options %+v", o)
	}
	o, err = o.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if want := "-s -X github.com/listkeeper/listkeeper/internal/version.Version=v0.3.0 -X github.com/listkeeper/listkeeper/internal/version.Revision=abc"; o.LDFlags != want {
		t.Errorf("ldflags %q, want %q", o.LDFlags, want)
	}
	for _, args := range [][]string{
		{"--platforms", "linux"},
		{"--platforms", "linux/arm/v7"},
		{"extra"},
	} {
		if _, err := parseFlags("image", args, io.Discard); err == nil {
			t.Errorf("parseFlags(%q): want an error", args)
		}
	}
	if _, err := (Options{Out: "dist", Version: "v0.3.0", ManagerImage: "r/m", FakeAPIImage: "r/f:t"}).withDefaults(); err == nil {
		t.Error("withDefaults accepted an image without a tag")
	}
}

// TestMakefileRelease checks that make release runs this command with the
// flags the tests build with: the default linker flags are the Makefile's
// LDFLAGS with -s, the images are IMG and IMG_FAKEAPI.
func TestMakefileRelease(t *testing.T) {
	dir, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("make", "-n", "-C", dir, "release", "VERSION=v9.9.9", "REVISION=rev", "SOURCE_DATE_EPOCH=5").CombinedOutput()
	if err != nil {
		t.Fatalf("make -n release: %v\n%s", err, out)
	}
	mgr, fake, err := makefileImages(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"go -C hack/release run . release ",
		`--root "` + dir + `"`,
		`--out "` + filepath.Join(dir, "dist") + `"`,
		`--signing-key ""`,
		`--version "v9.9.9"`,
		`--revision "rev"`,
		`--ldflags "` + LDFlags("v9.9.9", "rev") + `"`,
		`--source-date-epoch "5"`,
		`--manager-image "` + mgr + `"`,
		`--fakeapi-image "` + fake + `"`,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("make release does not run %s:\n%s", want, out)
		}
	}
}
