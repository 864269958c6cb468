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
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	api := flag.String("api", "api/v1alpha1", "directory of the API package, relative to the working directory")
	out := flag.String("out", "docs/api.md", "file to write")
	flag.Parse()
	if err := write(*api, *out); err != nil {
		fmt.Fprintln(os.Stderr, "apidocs:", err)
		os.Exit(1)
	}
}

// write renders the package in dir and writes the page to out.
func write(dir, out string) error {
	page, err := generate(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(out), err)
	}
	if err := os.WriteFile(out, page, 0o644); err != nil { //nolint:gosec // the page is world-readable like the rest of the repository
		return fmt.Errorf("write %s: %w", out, err)
	}
	return nil
}

// generate reads the API package in dir and returns its reference page,
// which names the package by dir with forward slashes.
func generate(dir string) ([]byte, error) {
	p, err := loadPackage(dir)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	return render(p, filepath.ToSlash(filepath.Clean(dir)))
}
