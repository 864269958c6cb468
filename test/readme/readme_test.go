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
	"bufio"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// command is one shell command of a ```sh block, with the comment that
// follows it on its line and where it stands.
type command struct {
	file    string // relative to the repository's root
	line    int
	text    string
	comment string
}

// at says where the command stands, for failure messages.
func (c command) at() string { return fmt.Sprintf("%s line %d", c.file, c.line) }

// documents are the files whose commands the tests check, relative to the
// repository's root: the README and every page under docs/, at any depth.
func documents(t *testing.T) []string {
	t.Helper()
	_, pages := repo(t)
	return pages
}

// readmeCommands returns the commands of every ```sh block of the README
// and of every page under docs/, file by file, in order.
func readmeCommands(t *testing.T) []command {
	t.Helper()
	var cmds []command
	for _, file := range documents(t) {
		cs := fileCommands(t, file)
		if file == "README.md" && len(cs) == 0 {
			t.Fatal("no ```sh commands found in README.md")
		}
		cmds = append(cmds, cs...)
	}
	return cmds
}

// fileCommands returns the commands of the ```sh blocks of one file.
func fileCommands(t *testing.T, file string) []command {
	t.Helper()
	f, err := os.Open(filepath.Join("../..", file))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	var cmds []command
	var cur *command
	inBlock := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```sh"):
			inBlock = true
			continue
		case strings.HasPrefix(line, "```"):
			inBlock = false
			continue
		case !inBlock:
			continue
		}
		text, comment, _ := strings.Cut(line, "  #")
		text = strings.TrimSpace(text)
		if cur == nil {
			cmds = append(cmds, command{file: file, line: n})
			cur = &cmds[len(cmds)-1]
		}
		cur.comment = strings.TrimSpace(comment)
		if cont, ok := strings.CutSuffix(text, `\`); ok {
			cur.text += strings.TrimSpace(cont) + " "
			continue
		}
		cur.text += text
		cur = nil
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cmds
}

// TestReadmeCommands runs every curl command of the README and of the
// pages under docs/ against the fake list server, renders every kustomize directory it applies, and dry-runs
// every make target it names (CI runs make test itself; the demo runs the
// rest end to end). Helm commands are checked against the chart's values
// (test/chart renders the chart), images loaded into kind against the
// Makefile's, namespace labels and manifest paths for validity, the
// addresses of release files against the names make release gives them
// (hack/release builds and checks a release), and the checksum command
// against a SHA256SUMS like a release's. A command of another kind fails the test: add a check
// for it here.
func TestReadmeCommands(t *testing.T) {
	api, err := fakeapi.New(fakeapi.WithToken("demo-token"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)

	for _, c := range readmeCommands(t) {
		t.Run(strings.Fields(c.text)[0]+"@"+path.Base(c.file)+":"+strconv.Itoa(c.line), func(t *testing.T) {
			switch {
			case strings.HasPrefix(c.text, "make "):
				checkMake(t, c)
			case strings.HasPrefix(c.text, "curl "):
				if _, err := api.Set("/lists/allow", []byte(`{"items":["a"],"owner":"demo"}`)); err != nil {
					t.Fatal(err)
				}
				checkCurl(t, c, srv.URL)
			case strings.HasPrefix(c.text, "helm install "), strings.HasPrefix(c.text, "helm upgrade "):
				checkHelm(t, c)
			case strings.HasPrefix(c.text, "kind load docker-image "):
				checkImages(t, c, strings.Fields(c.text)[3:])
			case strings.HasPrefix(c.text, "kubectl create namespace "):
				checkNamespaceName(t, c)
			case strings.HasPrefix(c.text, "kubectl label namespace "):
				checkLabels(t, c, strings.Fields(c.text)[4:])
			case strings.HasPrefix(c.text, "kubectl apply --server-side -f https://"):
				checkReleaseURL(t, c, strings.Fields(c.text)[4], func(string) string { return "install.yaml" })
			case strings.HasPrefix(c.text, "kubectl apply --server-side -f "):
				checkManifests(t, c, strings.Fields(c.text)[4])
			case strings.HasPrefix(c.text, "sha256sum "):
				checkSHA256SUM(t, c)
			case strings.HasPrefix(c.text, "cosign "):
				checkCosign(t, c)
			case strings.HasPrefix(c.text, "digest=$("):
				checkDigestOfInstall(t, c)
			case strings.HasPrefix(c.text, "kubectl apply -k "):
				dir := strings.Fields(c.text)[3]
				out, err := exec.Command("kubectl", "kustomize", filepath.Join("../..", dir)).CombinedOutput()
				if err != nil {
					t.Fatalf("%s: kubectl kustomize %s: %v\n%s", c.at(), dir, err, out)
				}
			case strings.HasPrefix(c.text, "kubectl "):
				checkUninstallKubectl(t, c)
			default:
				t.Fatalf("%s: no check for %q; add one to this test", c.at(), c.text)
			}
		})
	}
}

var placeholder = regexp.MustCompile(`<[a-z]+>`)

func checkMake(t *testing.T, c command) {
	args := append([]string{"-n", "-C", "../.."}, strings.Fields(placeholder.ReplaceAllString(c.text, "x"))[1:]...)
	out, err := exec.Command("make", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: make %v: %v\n%s", c.at(), args, err, out)
	}
}

// checkCurl runs the command against the fake server and checks the answer
// against the comment: a status code, or a strong ETag.
func checkCurl(t *testing.T, c command, base string) {
	text := strings.ReplaceAll(c.text, "http://127.0.0.1:8090", base)
	out, err := exec.Command("bash", "-o", "pipefail", "-c", text).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %s: %v\n%s", c.at(), text, err, out)
	}
	got := strings.TrimSpace(string(out))
	switch want := strings.Fields(c.comment)[0]; {
	case strings.HasPrefix(want, "strong"):
		if !regexp.MustCompile(`(?i)^etag: "[^"]+"$`).MatchString(got) {
			t.Fatalf("%s: want a strong ETag, got %q", c.at(), got)
		}
	default:
		if !strings.HasPrefix(got, "HTTP/1.1 "+want) {
			t.Fatalf("%s: want status %s, got %q", c.at(), want, got)
		}
	}
}

// uninstallKubectl are the kubectl commands (other than apply -k) the README
// and docs/ may run: those of the Uninstall section of docs/install.md, which
// internal/controller's TestUninstallDocumentedOrder replays against a
// kube-apiserver. Each is the command's verb and resource.
var uninstallKubectl = map[string]bool{
	"get externallists":                              true,
	"patch externallist":                             true,
	"patch listentry":                                true,
	"delete externallists":                           true,
	"delete listentries":                             true,
	"scale deployment listkeeper-controller-manager": true,
}

// checkUninstallKubectl checks a kubectl command of the Uninstall section:
// a verb and resource the replay knows, names the CRDs define, and a patch
// payload that is JSON.
func checkUninstallKubectl(t *testing.T, c command) {
	f := strings.Fields(c.text)
	if len(f) < 3 {
		t.Fatalf("%s: %q is too short", c.at(), c.text)
	}
	key := f[1] + " " + f[2]
	if f[1] == "scale" {
		key += " " + f[3]
	}
	if !uninstallKubectl[key] {
		t.Fatalf("%s: %q is not a command the Uninstall replay (internal/controller TestUninstallDocumentedOrder) knows", c.at(), c.text)
	}
	if m := regexp.MustCompile(`-p '([^']*)'`).FindStringSubmatch(c.text); f[1] == "patch" {
		var v map[string]any
		if m == nil || json.Unmarshal([]byte(m[1]), &v) != nil {
			t.Fatalf("%s: the patch payload of %q is not a JSON object", c.at(), c.text)
		}
	}
}
