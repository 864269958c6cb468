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
		t.Fatalf("%s: %s is not the address of a file of a listkeeper release", c.at(), url)
	}
	if w := want(m[1]); m[2] != w {
		t.Errorf("%s: release v%s has no file %s: make release writes %s", c.at(), m[1], m[2], w)
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
		t.Fatalf("%s: %q does not check %s", c.at(), c.text, sumsFile)
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
		t.Fatalf("%s: %s: %v\n%s", c.at(), c.text, err, out)
	}
}

// checkCosign checks a cosign command of the README against what make
// release writes (hack/release): the public key cosign.pub, the signature
// SHA256SUMS.sig over SHA256SUMS, SLSA v1 provenance (cosign's type
// slsaprovenance1); and, since a release is signed offline with a key and
// never recorded in Rekor, --insecure-ignore-tlog=true, without which
// cosign looks for a transparency-log entry and fails.
func checkCosign(t *testing.T, c command) {
	t.Helper()
	f := strings.Fields(c.text)
	var src []byte
	for _, name := range []string{"sign.go", "provenance.go"} {
		b, err := os.ReadFile(filepath.Join("../../hack/release", name))
		if err != nil {
			t.Fatal(err)
		}
		src = append(src, b...)
	}
	for _, written := range []string{`PublicKeyFile = "cosign.pub"`, `SumsSignatureFile = SumsFile + ".sig"`, `in_toto/slsa_provenance/v1"`} {
		if !strings.Contains(string(src), written) {
			t.Fatalf("hack/release no longer has %s, which %s relies on", written, c.at())
		}
	}
	if !strings.Contains(c.text, "--key cosign.pub") || !strings.Contains(c.text, "--insecure-ignore-tlog=true") {
		t.Errorf("%s: %q wants --key cosign.pub and --insecure-ignore-tlog=true", c.at(), c.text)
	}
	switch f[1] {
	case "verify-blob":
		if !strings.Contains(c.text, "--signature "+sumsFile+".sig "+sumsFile) {
			t.Errorf("%s: %q does not check %s.sig against %s", c.at(), c.text, sumsFile, sumsFile)
		}
	case "verify-attestation":
		if !strings.Contains(c.text, "--type slsaprovenance1") {
			t.Errorf("%s: %q does not ask for the SLSA v1 provenance make release attests", c.at(), c.text)
		}
		fallthrough
	case "verify":
		if last := f[len(f)-1]; !strings.HasPrefix(last, "ghcr.io/listkeeper/listkeeper@") {
			t.Errorf("%s: %q does not verify the manager's image by digest", c.at(), c.text)
		}
	default:
		t.Errorf("%s: cosign %s is not one of the checks a release supports", c.at(), f[1])
	}
}

// checkDigestOfInstall runs the README's command that takes the manager's
// image digest out of install.yaml on an install.yaml like the one make
// release writes (the image as repository:tag@digest) and checks that it
// finds the digest.
func checkDigestOfInstall(t *testing.T, c command) {
	t.Helper()
	const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	dir := t.TempDir()
	install := "kind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n      - image: ghcr.io/listkeeper/listkeeper:v0.3.0@" + digest + "\n"
	if err := os.WriteFile(filepath.Join(dir, "install.yaml"), []byte(install), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-o", "pipefail", "-c", c.text+`; printf %s "$digest"`)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != digest {
		t.Fatalf("%s: %s: %v, found %q, want %s", c.at(), c.text, err, out, digest)
	}
}
