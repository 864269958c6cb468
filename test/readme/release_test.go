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

package readme

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// releaseURL is the address of a file attached to a GitHub release of
// listkeeper: the tag vX.Y.Z[-pre], then the file's name.
var releaseURL = regexp.MustCompile(`^https://github\.com/listkeeper/listkeeper/releases/download/v(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)/([^/]+)$`)

// checkReleaseURL checks that url names a file of a release that make
// release writes (hack/release): want is that file's name for the chart
// version X.Y.Z of the tag vX.Y.Z.
func checkReleaseURL(t *testing.T, c command, url string, want func(version string) string) {
	t.Helper()
	m := releaseURL.FindStringSubmatch(url)
	if m == nil {
		t.Fatalf("README line %d: %s is not the address of a file of a listkeeper release", c.line, url)
	}
	if w := want(m[1]); m[2] != w {
		t.Errorf("README line %d: release v%s has no file %s: make release writes %s", c.line, m[1], m[2], w)
	}
}

// sumsFile is the name of the checksum file make release writes.
const sumsFile = "SHA256SUMS"

// checkSHA256SUM runs a sha256sum command of the README in a directory
// like the one a user downloads part of a release to: SHA256SUMS as make
// release writes it (hack/release's SumsFile, two files listed) and one of
// the files. The command must succeed and say the file is OK.
func checkSHA256SUM(t *testing.T, c command) {
	t.Helper()
	if f := strings.Fields(c.text); f[len(f)-1] != sumsFile {
		t.Fatalf("README line %d: %q does not check %s", c.line, c.text, sumsFile)
	}
	src, err := os.ReadFile("../../hack/release/release.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), `SumsFile = "`+sumsFile+`"`) {
		t.Fatalf("hack/release no longer writes %s", sumsFile)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "install.yaml"), []byte("kind: Namespace\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sums := "cf2e4f5d0c1d3d4e2b6b7ea6f6d3f5ddf2ba5e0d32d4e1a9cc7da4d6d2b3bcb5  listkeeper-0.3.0.tgz\n"
	out, err := exec.Command("sha256sum", filepath.Join(dir, "install.yaml")).Output()
	if err != nil {
		t.Fatal(err)
	}
	sum, _, _ := strings.Cut(string(out), " ")
	sums += sum + "  install.yaml\n"
	if err := os.WriteFile(filepath.Join(dir, sumsFile), []byte(sums), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", c.text)
	cmd.Dir = dir
	out, err = cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "install.yaml: OK" {
		t.Fatalf("README line %d: %s: %v\n%s", c.line, c.text, err, out)
	}
}
