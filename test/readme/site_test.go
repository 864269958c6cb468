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
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"unicode"
)

// mapPage and mapHeading are where the map of the documentation is: the
// README's "Documentation" section, which lists every page of docs/.
const (
	mapPage    = "README.md"
	mapHeading = "Documentation"
)

// sitePages returns the pages of the documentation in fsys (the
// repository's root): the README and every Markdown file under docs/, by
// slash-separated path, sorted.
func sitePages(fsys fs.FS) ([]string, error) {
	pages := []string{mapPage}
	err := fs.WalkDir(fsys, "docs", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			pages = append(pages, p)
		}
		return nil
	})
	slices.Sort(pages[1:])
	return pages, err
}

// link is one inline Markdown link of a page, outside code.
type link struct {
	line   int
	target string // as written: path, #anchor, or path#anchor
}

var (
	inlineLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	codeSpan   = regexp.MustCompile("`[^`]*`")
	heading    = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	htmlAnchor = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
)

// prose calls f with each line of text that is not inside a fenced code
// block, and its number.
func prose(text string, f func(n int, line string)) {
	fence := ""
	for i, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case fence == "" && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")):
			fence = t[:3]
		case fence != "" && strings.HasPrefix(t, fence):
			fence = ""
		case fence == "":
			f(i+1, line)
		}
	}
}

// links returns the links of text, code spans and code blocks left out.
func links(text string) []link {
	var out []link
	prose(text, func(n int, line string) {
		for _, m := range inlineLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
			out = append(out, link{line: n, target: m[1]})
		}
	})
	return out
}

// anchors returns the anchors GitHub gives the headings of text (and the
// explicit <a id> ones): lower case, punctuation dropped, spaces as
// hyphens, a repeated one suffixed -1, -2, ...
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	prose(text, func(_ int, line string) {
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
		m := heading.FindStringSubmatch(line)
		if m == nil {
			return
		}
		slug := slugOf(m[2])
		if n := seen[slug]; n > 0 {
			out[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	})
	return out
}

// slugOf is GitHub's anchor of a heading's text.
func slugOf(h string) string {
	h = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`).ReplaceAllString(h, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}

// resolve returns the file and anchor a link of page names, the file
// relative to the repository's root; ok is false for a link that leaves
// the repository (a URL, mailto:, or a path above the root).
func resolve(page, target string) (file, anchor string, ok bool) {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return "", "", false
	}
	file, anchor, _ = strings.Cut(target, "#")
	if file == "" {
		return page, anchor, true
	}
	file = path.Join(path.Dir(page), file)
	if file == ".." || strings.HasPrefix(file, "../") {
		return "", "", false
	}
	return file, anchor, true
}

// checkLinks returns a problem for every relative link of the pages that
// names no file or directory of fsys, or an anchor its Markdown file does
// not have.
func checkLinks(fsys fs.FS, pages []string) []string {
	var problems []string
	texts := map[string]string{}
	read := func(p string) (string, error) {
		if t, ok := texts[p]; ok {
			return t, nil
		}
		b, err := fs.ReadFile(fsys, p)
		texts[p] = string(b)
		return string(b), err
	}
	for _, page := range pages {
		text, err := read(page)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		for _, l := range links(text) {
			file, anchor, ok := resolve(page, l.target)
			if !ok {
				if !strings.Contains(l.target, "://") && !strings.HasPrefix(l.target, "mailto:") {
					problems = append(problems, fmt.Sprintf("%s:%d: %s leaves the repository", page, l.line, l.target))
				}
				continue
			}
			if _, err := fs.Stat(fsys, file); err != nil {
				problems = append(problems, fmt.Sprintf("%s:%d: %s: no such file %s", page, l.line, l.target, file))
				continue
			}
			if anchor == "" || !strings.HasSuffix(file, ".md") {
				continue
			}
			t, err := read(file)
			if err != nil {
				problems = append(problems, err.Error())
				continue
			}
			if !anchors(t)[anchor] {
				problems = append(problems, fmt.Sprintf("%s:%d: %s: %s has no heading #%s", page, l.line, l.target, file, anchor))
			}
		}
	}
	return problems
}

// section returns the lines of text under the level-2 heading title, up
// to the next heading of level 2 or above.
func section(text, title string) string {
	var out []string
	in := false
	prose(text, func(_ int, line string) {
		if m := heading.FindStringSubmatch(line); m != nil && len(m[1]) <= 2 {
			in = len(m[1]) == 2 && m[2] == title
			return
		}
		if in {
			out = append(out, line)
		}
	})
	return strings.Join(out, "\n")
}

// checkMap returns a problem for every page under docs/ that the map does
// not link to, and for every one that does not link back to the map.
func checkMap(fsys fs.FS, pages []string) []string {
	raw, err := fs.ReadFile(fsys, mapPage)
	if err != nil {
		return []string{err.Error()}
	}
	sec := section(string(raw), mapHeading)
	if sec == "" {
		return []string{fmt.Sprintf("%s has no section %q: the map of the documentation", mapPage, mapHeading)}
	}
	mapped := map[string]bool{}
	for _, l := range links(sec) {
		if file, _, ok := resolve(mapPage, l.target); ok {
			mapped[file] = true
		}
	}
	mapAnchor := slugOf(mapHeading)
	var problems []string
	for _, page := range pages {
		if page == mapPage {
			continue
		}
		if !mapped[page] {
			problems = append(problems, fmt.Sprintf("%s is not reachable from the map (%s, %q): add it there", page, mapPage, mapHeading))
		}
		text, err := fs.ReadFile(fsys, page)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		back := false
		for _, l := range links(string(text)) {
			if file, anchor, ok := resolve(page, l.target); ok && file == mapPage && anchor == mapAnchor {
				back = true
			}
		}
		if !back {
			problems = append(problems, fmt.Sprintf("%s has no link back to the map (%s#%s)", page, mapPage, mapAnchor))
		}
	}
	return problems
}

// repo is the repository's root as a file system.
func repo(t *testing.T) (fs.FS, []string) {
	t.Helper()
	fsys := os.DirFS("../..")
	pages, err := sitePages(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) < 10 {
		t.Fatalf("found only %v", pages)
	}
	return fsys, pages
}

// TestDocsLinks: every relative link of the README and of every page under
// docs/ names a file of the repository, and an anchor it links to is a
// heading of that file.
func TestDocsLinks(t *testing.T) {
	fsys, pages := repo(t)
	for _, p := range checkLinks(fsys, pages) {
		t.Error(p)
	}
}

// TestDocsMap: the README's Documentation section links to every page
// under docs/, and every one of them links back to it.
func TestDocsMap(t *testing.T) {
	fsys, pages := repo(t)
	for _, p := range checkMap(fsys, pages) {
		t.Error(p)
	}
}

// TestSiteChecksFail: the checks above find what they are for, on small
// trees: a page the map leaves out, a page with no way back, a broken link
// and a broken anchor; and find nothing on a tree without them.
func TestSiteChecksFail(t *testing.T) {
	const (
		readme = "# x\n\n## Documentation\n\n- [Guide](docs/guide.md)\n- [Ops](docs/ops/run.md#running)\n\n## Other\n\n[Lost](docs/lost.md)\n"
		back   = "[Documentation map](../README.md#documentation)\n"
		back2  = "[Documentation map](../../README.md#documentation)\n"
	)
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string // substrings of the problems, in order; none for a good tree
	}{
		{"good", map[string]string{
			"README.md":       strings.Replace(readme, "\n## Other\n\n[Lost](docs/lost.md)\n", "", 1),
			"docs/guide.md":   "# Guide\n\n" + back + "\nSee [running](ops/run.md#running).\n",
			"docs/ops/run.md": "# Running\n\n" + back2 + "\n```sh\n# not a heading\n```\n",
		}, nil},
		{"not on the map", map[string]string{
			"README.md":       readme,
			"docs/guide.md":   "# Guide\n\n" + back,
			"docs/ops/run.md": "# Running\n\n" + back2,
			"docs/lost.md":    "# Lost\n\n" + back,
		}, []string{"docs/lost.md is not reachable from the map"}},
		{"no way back", map[string]string{
			"README.md":       strings.Replace(readme, "\n## Other\n\n[Lost](docs/lost.md)\n", "", 1),
			"docs/guide.md":   "# Guide\n\n[The README](../README.md)\n",
			"docs/ops/run.md": "# Running\n\n" + back2,
		}, []string{"docs/guide.md has no link back to the map"}},
		{"a map link in code is no link", map[string]string{
			"README.md":       strings.Replace(readme, "\n## Other\n\n[Lost](docs/lost.md)\n", "", 1),
			"docs/guide.md":   "# Guide\n\n`" + strings.TrimSpace(back) + "`\n",
			"docs/ops/run.md": "# Running\n\n```md\n" + back2 + "```\n",
		}, []string{"docs/guide.md has no link back", "docs/ops/run.md has no link back"}},
		{"broken link and anchor", map[string]string{
			"README.md":       strings.Replace(readme, "#running", "#walking", 1),
			"docs/guide.md":   "# Guide\n\n" + back,
			"docs/ops/run.md": "# Running\n\n" + back2,
		}, []string{"README.md:6: docs/ops/run.md#walking: docs/ops/run.md has no heading #walking", "README.md:10: docs/lost.md: no such file"}},
		{"an anchor only in a code block is no anchor", map[string]string{
			"README.md":       strings.Replace(readme, "\n## Other\n\n[Lost](docs/lost.md)\n", "", 1),
			"docs/guide.md":   "```sh\n# Running\n```\n" + back,
			"docs/ops/run.md": back2 + "\n[guide](../guide.md#running)\n",
		}, []string{"README.md:6: docs/ops/run.md#running: docs/ops/run.md has no heading", "docs/ops/run.md:3: ../guide.md#running: docs/guide.md has no heading"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstestFS(tc.files)
			pages, err := sitePages(fsys)
			if err != nil {
				t.Fatal(err)
			}
			got := append(checkLinks(fsys, pages), checkMap(fsys, pages)...)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d problems, want %d:\n%s", len(got), len(tc.want), strings.Join(got, "\n"))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d: %q, want it to say %q", i, got[i], w)
				}
			}
		})
	}
}

// TestSlugOf: headings of the docs as GitHub anchors them.
func TestSlugOf(t *testing.T) {
	for h, want := range map[string]string{
		"Reconcile now: `listkeeper.dev/reconcile-requested-at`": "reconcile-now-listkeeperdevreconcile-requested-at",
		"ExternalList (`xl`): where a list lives":                "externallist-xl-where-a-list-lives",
		"Why not a mutex, or leader election?":                   "why-not-a-mutex-or-leader-election",
		"Credentials (`spec.auth`)":                              "credentials-specauth",
		"ListkeeperAbsent":                                       "listkeeperabsent",
		"See [the contract](list-api.md) first":                  "see-the-contract-first",
		"Quick start in a cluster (kind or minikube)":            "quick-start-in-a-cluster-kind-or-minikube",
	} {
		if got := slugOf(h); got != want {
			t.Errorf("slugOf(%q) = %q, want %q", h, got, want)
		}
	}
}

// fstestFS is a file system of the files given, by path.
func fstestFS(files map[string]string) fs.FS {
	m := fstest.MapFS{}
	for p, text := range files {
		m[p] = &fstest.MapFile{Data: []byte(text)}
	}
	return m
}
