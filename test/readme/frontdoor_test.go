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

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// The README is the front door: short, with its example on the first
// screen.
const (
	readmeMaxLines  = 400
	exampleMaxStart = 60
)

// yamlBlock is one ```yaml block of a page: the line its text starts on,
// and its text.
type yamlBlock struct {
	line int
	text string
}

// yamlBlocks returns the ```yaml blocks of text.
func yamlBlocks(text string) []yamlBlock {
	var out []yamlBlock
	var cur *yamlBlock
	for i, line := range strings.Split(text, "\n") {
		switch {
		case cur == nil && strings.TrimSpace(line) == "```yaml":
			out = append(out, yamlBlock{line: i + 2})
			cur = &out[len(out)-1]
		case cur != nil && strings.HasPrefix(strings.TrimSpace(line), "```"):
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
	}
	return out
}

// objects decodes the Kubernetes objects of a YAML block strictly into
// their Go types: a Secret, or a kind of listkeeper.dev/v1alpha1. A
// document without apiVersion and kind (Helm values, a ConfigMap's data)
// is not an object and is skipped; an object of another kind, or a field
// its type does not have, is an error.
func objects(b yamlBlock) ([]any, error) {
	var out []any
	for _, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(b.text, -1) {
		var tm struct{ APIVersion, Kind string }
		if err := yaml.Unmarshal([]byte(doc), &tm); err != nil {
			return nil, err
		}
		if tm.APIVersion == "" && tm.Kind == "" {
			continue
		}
		var obj any
		switch tm.APIVersion + " " + tm.Kind {
		case "v1 Secret":
			obj = &corev1.Secret{}
		case "listkeeper.dev/v1alpha1 ExternalList":
			obj = &v1alpha1.ExternalList{}
		case "listkeeper.dev/v1alpha1 ClusterExternalList":
			obj = &v1alpha1.ClusterExternalList{}
		case "listkeeper.dev/v1alpha1 ListEntry":
			obj = &v1alpha1.ListEntry{}
		default:
			return nil, fmt.Errorf("%s %s: no Go type to check it against; add one here", tm.APIVersion, tm.Kind)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), obj); err != nil {
			return nil, fmt.Errorf("%s: %w", tm.Kind, err)
		}
		out = append(out, obj)
	}
	return out, nil
}

// TestReadmeFrontDoor: the README is at most 400 lines, and its first YAML
// block, on its first screen, is a copyable example: a Secret, an
// ExternalList whose headers come from it, and a ListEntry on that list.
func TestReadmeFrontDoor(t *testing.T) {
	fsys, _ := repo(t)
	raw, err := fs.ReadFile(fsys, mapPage)
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	if n := strings.Count(text, "\n"); n > readmeMaxLines {
		t.Errorf("%s has %d lines; the front door keeps to %d: move text to docs/", mapPage, n, readmeMaxLines)
	}
	blocks := yamlBlocks(text)
	if len(blocks) == 0 {
		t.Fatalf("%s shows no YAML example", mapPage)
	}
	ex := blocks[0]
	if ex.line > exampleMaxStart {
		t.Errorf("%s's example starts on line %d, after the first %d", mapPage, ex.line, exampleMaxStart)
	}
	objs, err := objects(ex)
	if err != nil {
		t.Fatalf("%s line %d: %v", mapPage, ex.line, err)
	}
	var (
		secret *corev1.Secret
		list   *v1alpha1.ExternalList
		entry  *v1alpha1.ListEntry
	)
	for _, o := range objs {
		switch o := o.(type) {
		case *corev1.Secret:
			secret = o
		case *v1alpha1.ExternalList:
			list = o
		case *v1alpha1.ListEntry:
			entry = o
		}
	}
	if secret == nil || list == nil || entry == nil {
		t.Fatalf("%s's example: want a Secret, an ExternalList and a ListEntry, got %d objects", mapPage, len(objs))
	}
	if hf := list.Spec.HeadersFrom; hf == nil || hf.SecretRef.Name != secret.Name {
		t.Errorf("the example's ExternalList does not take its headers from the Secret %s", secret.Name)
	}
	if entry.Spec.ListRef.Name != list.Name || entry.Spec.ID == "" {
		t.Errorf("the example's ListEntry does not put an ID on the ExternalList %s", list.Name)
	}
}

// TestDocsManifests: every Kubernetes object that the README and the pages
// under docs/ show in a YAML block has only fields its kind has.
func TestDocsManifests(t *testing.T) {
	fsys, pages := repo(t)
	n := 0
	for _, page := range pages {
		raw, err := fs.ReadFile(fsys, page)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range yamlBlocks(string(raw)) {
			objs, err := objects(b)
			if err != nil {
				t.Errorf("%s line %d: %v", page, b.line, err)
			}
			n += len(objs)
		}
	}
	if n < 20 {
		t.Fatalf("found only %d objects in the docs' YAML blocks", n)
	}
}

// TestObjectsStrict: a misspelt field, or a kind the check does not know,
// is an error; Helm values are no object.
func TestObjectsStrict(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		objects    int
		err        string
	}{
		{"good", "apiVersion: listkeeper.dev/v1alpha1\nkind: ListEntry\nmetadata:\n  name: a\nspec:\n  listRef:\n    name: l\n  id: a\n", 1, ""},
		{"misspelt field", "apiVersion: listkeeper.dev/v1alpha1\nkind: ExternalList\nmetadata:\n  name: a\nspec:\n  itemPointer: /items\n", 0, `unknown field "itemPointer"`},
		{"unknown kind", "apiVersion: v1\nkind: ConfigMap\n", 0, "no Go type"},
		{"values", "metrics:\n  certSecret: x\n---\n# only a comment\n", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := objects(yamlBlock{text: tc.text})
			switch {
			case tc.err == "" && err != nil:
				t.Fatal(err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("err %v, want one saying %q", err, tc.err)
			case len(objs) != tc.objects:
				t.Errorf("%d objects, want %d", len(objs), tc.objects)
			}
		})
	}
}
