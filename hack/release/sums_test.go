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
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSHA256SUMS checks that SHA256SUMS lists every other file of the
// release but its own signature, with its SHA-256.
func TestSHA256SUMS(t *testing.T) {
	requireRelease(t)
	raw, err := os.ReadFile(filepath.Join(opts.Out, SumsFile))
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, line := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok || !hexSHA256.MatchString(sum) {
			t.Fatalf("%s: line %q is not '<sha256>  <name>'", SumsFile, line)
		}
		got, err := fileSHA256(filepath.Join(opts.Out, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		if got != sum {
			t.Errorf("%s: %s has SHA-256 %s, the file %s", SumsFile, name, sum, got)
		}
		listed = append(listed, name)
	}
	entries, err := os.ReadDir(opts.Out)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		if e.Name() != SumsFile && e.Name() != SumsSignatureFile {
			files = append(files, e.Name())
		}
	}
	if !slices.Equal(listed, files) {
		t.Errorf("%s lists %q, the release holds %q", SumsFile, listed, files)
	}
}
