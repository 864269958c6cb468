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
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"testing"
)

// citation is a page of docs/ named in the text of a file, with the
// heading it cites after it: docs/install.md, "Uninstall" or
// docs/install.md ("Uninstall").
var citation = regexp.MustCompile(`docs/[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md(?:#([a-z0-9_-]+))?(?:,? \(?"([^"]+)")?`)

// citedIn are the kinds of file whose text may cite a page of docs/.
var citedIn = []string{".go", ".md", ".yaml", ".yml", ".txt", ".tpl", ".json", ".sh", "Makefile", "Dockerfile"}

// skipped are directories that hold no text of the project's own, and this
// package, whose tests cite pages that do not exist on purpose.
var skipped = map[string]bool{".git": true, "bin": true, "node_modules": true, "testdata": true, "test/readme": true}

// checkCitations returns a problem for every citation, in a file of fsys,
// of a page of docs/ that does not exist or of a heading the page does not
// have (a citation names a heading by its text, or by a prefix of it).
func checkCitations(fsys fs.FS) ([]string, int, error) {
	var problems []string
	n := 0
	headings := map[string][]string{}
	headingsOf := func(page string) ([]string, error) {
		if h, ok := headings[page]; ok {
			return h, nil
		}
		raw, err := fs.ReadFile(fsys, page)
		if err != nil {
			return nil, err
		}
		var h []string
		prose(string(raw), func(_ int, line string) {
			if m := heading.FindStringSubmatch(line); m != nil {
				h = append(h, m[2])
			}
		})
		headings[page] = h
		return h, nil
	}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skipped[d.Name()] || skipped[p] {
				return fs.SkipDir
			}
			return nil
		}
		cited := false
		for _, suffix := range citedIn {
			cited = cited || strings.HasSuffix(p, suffix)
		}
		if !cited {
			return nil
		}
		raw, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(raw), "\n") {
			for _, m := range citation.FindAllStringSubmatch(line, -1) {
				n++
				page, _, _ := strings.Cut(m[0], ".md")
				page += ".md"
				h, err := headingsOf(page)
				if err != nil {
					problems = append(problems, fmt.Sprintf("%s:%d: cites %s, which does not exist", p, i+1, page))
					continue
				}
				if anchor := m[1]; anchor != "" && !anchors(strings.Join(prefixed(h), "\n"))[anchor] {
					problems = append(problems, fmt.Sprintf("%s:%d: cites %s#%s, which has no such heading", p, i+1, page, anchor))
				}
				if title := m[2]; title != "" && !hasPrefixOf(h, title) {
					problems = append(problems, fmt.Sprintf("%s:%d: cites %s, %q, which has no such heading", p, i+1, page, title))
				}
			}
		}
		return nil
	})
	return problems, n, err
}

// prefixed turns heading texts back into heading lines.
func prefixed(h []string) []string {
	out := make([]string, len(h))
	for i, t := range h {
		out[i] = "## " + t
	}
	return out
}

// hasPrefixOf reports whether a heading of h starts with title, code
// spans compared without their backquotes.
func hasPrefixOf(h []string, title string) bool {
	plain := func(s string) string { return strings.ReplaceAll(s, "`", "") }
	for _, t := range h {
		if strings.HasPrefix(plain(t), plain(title)) {
			return true
		}
	}
	return false
}

// TestDocsCitations: wherever the repository's code, charts, manifests and
// documents name a page of docs/ (a comment, a message, a runbook URL),
// that page exists, and so does the heading they cite.
func TestDocsCitations(t *testing.T) {
	fsys, _ := repo(t)
	problems, n, err := checkCitations(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Fatalf("found only %d citations of docs/ pages; the pattern no longer matches them", n)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestCitationsCheckFails: a citation of a page that is gone, of a heading
// a page does not have, or of an anchor it does not have is found.
func TestCitationsCheckFails(t *testing.T) {
	fsys := fstestFS(map[string]string{
		"docs/ops.md":   "# Operations\n\n## Sizing\n\n```sh\n# Not a heading\n```\n",
		"cmd/x/main.go": "// See docs/ops.md, \"Sizing\", and docs/gone.md.\n// docs/ops.md (\"Not a heading\")\n",
		"charts/c.yaml": "url: https://example.com/blob/main/docs/ops.md#sizing\nother: https://example.com/blob/main/docs/ops.md#alerts\n",
	})
	problems, n, err := checkCitations(fsys)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`charts/c.yaml:2: cites docs/ops.md#alerts, which has no such heading`,
		`cmd/x/main.go:1: cites docs/gone.md, which does not exist`,
		`cmd/x/main.go:2: cites docs/ops.md, "Not a heading", which has no such heading`,
	}
	if n != 5 || strings.Join(problems, "\n") != strings.Join(want, "\n") {
		t.Errorf("%d citations, problems:\n%s\nwant 5 citations, problems:\n%s", n, strings.Join(problems, "\n"), strings.Join(want, "\n"))
	}
}
