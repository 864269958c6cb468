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
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/testenv"
)

// apiDir and pagePath are where make api-docs reads and writes, from the
// repository root.
const (
	apiDir   = "api/v1alpha1"
	pagePath = "docs/api.md"
	crdDir   = "config/crd/bases"
)

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// page renders the real API package as make api-docs does.
func page(t *testing.T) string {
	t.Helper()
	p, err := loadPackage(filepath.Join(repoRoot(t), apiDir))
	if err != nil {
		t.Fatal(err)
	}
	out, err := render(p, apiDir)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestPageUpToDate: the committed docs/api.md is what the generator writes
// now (hack/verify.sh checks the same in make test; this names the cause).
func TestPageUpToDate(t *testing.T) {
	got, err := os.ReadFile(filepath.Join(repoRoot(t), pagePath))
	if err != nil {
		t.Fatalf("%v (run make api-docs)", err)
	}
	if want := page(t); !bytes.Equal(got, []byte(want)) {
		t.Errorf("%s is stale: run make api-docs and commit it", pagePath)
	}
}

// section returns the text under the heading "### name" up to the next
// heading of its level or above, and whether there is one.
func section(page, name string) (string, bool) {
	_, rest, ok := strings.Cut(page, "\n### "+name+"\n")
	if !ok {
		return "", false
	}
	for _, next := range []string{"\n### ", "\n## "} {
		if i := strings.Index(rest, next); i >= 0 {
			rest = rest[:i]
		}
	}
	return rest, true
}

// rowOf returns the cells of the table row of sec whose first cell is
// first.
func rowOf(sec, first string) ([]string, bool) {
	for _, line := range strings.Split(sec, "\n") {
		if c := cells(line); len(c) > 0 && c[0] == first {
			return c, true
		}
	}
	return nil, false
}

// cells splits a Markdown table row at its unescaped pipes.
func cells(line string) []string {
	if !strings.HasPrefix(line, "| ") {
		return nil
	}
	var out []string
	var cur strings.Builder
	for i := 1; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteString(`\|`)
			i++
		case line[i] == '|':
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(line[i])
		}
	}
	return out
}

// TestEveryFieldAppears walks the Go types of every kind the package
// registers, by reflection and not by the generator's parser, and checks
// that each of their types has a section with a documented row for each
// of its exported fields.
func TestEveryFieldAppears(t *testing.T) {
	pg := page(t)
	s := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	apiPkg := reflect.TypeFor[v1alpha1.ExternalList]().PkgPath()
	listMeta := reflect.TypeFor[metav1.ListMeta]()
	typeMeta := reflect.TypeFor[metav1.TypeMeta]()

	seen := map[reflect.Type]bool{}
	var check func(typ reflect.Type)
	check = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
			typ = typ.Elem()
		}
		if typ.PkgPath() != apiPkg || seen[typ] {
			return
		}
		seen[typ] = true
		sec, ok := section(pg, typ.Name())
		if !ok {
			t.Errorf("type %s has no section", typ.Name())
			return
		}
		if typ.Kind() != reflect.Struct {
			return
		}
		for f := range typ.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case !f.IsExported() || name == "-":
				continue
			case f.Type == typeMeta:
				for _, n := range []string{"apiVersion", "kind"} {
					if _, ok := rowOf(sec, "`"+n+"`"); !ok {
						t.Errorf("%s: no row for %s", typ.Name(), n)
					}
				}
				continue
			case f.Anonymous && name == "":
				row, ok := rowOf(sec, "*inline*")
				if !ok || !strings.Contains(row[1], "["+f.Type.Name()+"]") {
					t.Errorf("%s: no inline row for the embedded %s", typ.Name(), f.Type.Name())
				}
			default:
				row, ok := rowOf(sec, "`"+name+"`")
				if !ok {
					t.Errorf("%s: field %s (%s) has no row", typ.Name(), f.Name, name)
					break
				}
				if len(row) != 5 || row[4] == "" {
					t.Errorf("%s: the row of %s has no description: %q", typ.Name(), name, row)
				}
			}
			check(f.Type)
		}
	}
	var kinds []string
	for kind, typ := range s.KnownTypes(v1alpha1.GroupVersion) {
		if typ.PkgPath() != apiPkg {
			continue // metav1's options and events, registered beside the kinds
		}
		if f, ok := typ.FieldByName("ListMeta"); ok && f.Type == listMeta {
			if _, ok := section(pg, kind); ok {
				t.Errorf("list type %s has a section of its own", kind)
			}
			continue
		}
		kinds = append(kinds, kind)
		check(typ)
	}
	if len(kinds) < 3 {
		t.Errorf("found kinds %v, want at least ExternalList, ClusterExternalList and ListEntry", kinds)
	}
}

// TestDocCommentsCarried renders testdata/widgets, whose doc comments and
// markers are known, and checks each lands where a reader looks for it.
func TestDocCommentsCarried(t *testing.T) {
	p, err := loadPackage("testdata/widgets")
	if err != nil {
		t.Fatal(err)
	}
	out, err := render(p, "testdata/widgets")
	if err != nil {
		t.Fatal(err)
	}
	pg := string(out)
	rows := []struct {
		section string
		row     []string
	}{
		// A doc of two paragraphs, escaped, with a default and a marker
		// the generator knows only by name.
		{"WidgetSpec", []string{"`size`", "integer", "optional", "`3`",
			`size is how big the widget is, in \*units\* of some_thing.<br><br>A second paragraph \| with a pipe.<br><br>Minimum: ` + "`1`."}},
		// Lengths, and a rule whose strings hold commas and quotes.
		{"WidgetSpec", []string{"`name`", "string", "required", "",
			"name names the widget.<br><br>1 to 63 characters.<br><br>Rule `self.startsWith(\"w\") \\|\\| self == 'x,y'`: “name must start with \"w\", or be x,y”"}},
		// An enum type: linked, its values listed, the default shown.
		{"WidgetSpec", []string{"`color`", "[Color](#color)", "optional", "`Green`", "color is the widget's color.<br><br>One of `Red`, `Green`."}},
		{"WidgetSpec", []string{"`tags`", "list of string", "optional", "", "tags label the widget.<br><br>A set: no item twice."}},
		{"WidgetSpec", []string{"`period`", "[Duration](#duration-kubernetes)", "optional", "`1m`", "period is how often the widget blinks."}},
		{"WidgetSpec", []string{"`empty`", "string", "optional", "`\"\"`", "empty is empty by default."}},
		{"WidgetSpec", []string{"*inline*", "[Common](#common)", "", "", "The fields of [Common](#common) at this level of the object, with its rules."}},
		// An enum value's doc starts with its value, not its Go name.
		{"Color", []string{"`Red`", "`Red` is the color of &lt;stop&gt; signs."}},
		{"Widget", []string{"Scope", "Cluster"}},
		{"Widget", []string{"Short names", "`wd`, `wdg`"}},
		{"Widget", []string{"Categories", "`things`"}},
		{"Widget", []string{"Field selectors", "`.spec.name`"}},
		{"Widget", []string{"Size", "integer", "`.spec.size`", "always"}},
		{"Widget", []string{"Color", "string", "`.spec.color`", "wide"}},
		{"Names the operator uses", []string{"`widgets.example.dev/blink`", "`widgets.example.dev/blink` asks a widget to blink."}},
	}
	for _, r := range rows {
		sec, ok := section(pg, r.section)
		if !ok {
			t.Errorf("no section %s", r.section)
			continue
		}
		got, _ := rowOf(sec, r.row[0])
		if diff := cmp.Diff(r.row, got); diff != "" {
			t.Errorf("%s: row %s (-want +got):\n%s", r.section, r.row[0], diff)
		}
	}
	for _, want := range []string{
		"- `has(self.owner)`: “owner must be set”", // a type's rule
		"### Unused\n", // reached from no kind, still shown
		"### `widgets.example.dev/hold`\n\n`widgets.example.dev/hold` holds a widget.",
		"Columns of `kubectl get wd`",
	} {
		if !strings.Contains(pg, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, unwanted := range []string{"+kubebuilder", "+optional", "+listType", "secret", "Skip", "### WidgetList"} {
		if strings.Contains(pg, unwanted) {
			t.Errorf("the page shows %q", unwanted)
		}
	}
}

// TestMarkersMatchCRDs checks the generator's reading of the markers
// against what controller-gen made of them in config/crd/bases: scope,
// names, printer columns, selectable fields, and for every field its
// presence, requiredness, default, enum, lengths and CEL rules.
func TestMarkersMatchCRDs(t *testing.T) {
	root := repoRoot(t)
	p, err := loadPackage(filepath.Join(root, apiDir))
	if err != nil {
		t.Fatal(err)
	}
	crds := map[string]map[string]any{}
	files, err := filepath.Glob(filepath.Join(root, crdDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in %s: %v", crdDir, err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var crd map[string]any
		if err := yaml.Unmarshal(raw, &crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		crds[str(crd, "spec", "names", "kind")] = crd
	}
	var kinds []string
	for _, k := range p.kinds {
		kinds = append(kinds, k.name)
	}
	if got, want := sortedKeys(crds), slices.Sorted(slices.Values(kinds)); !slices.Equal(got, want) {
		t.Errorf("kinds: the CRDs define %v, the generator found %v", got, want)
	}
	for _, k := range p.kinds {
		crd := crds[k.name]
		if crd == nil {
			continue
		}
		t.Run(k.name, func(t *testing.T) {
			scope, short := resource(k)
			m, _ := k.markers.get("kubebuilder:resource")
			equal(t, "scope", str(crd, "spec", "scope"), scope)
			equal(t, "shortNames", strs(get(crd, "spec", "names", "shortNames")), short)
			equal(t, "categories", strs(get(crd, "spec", "names", "categories")), list(m.args["categories"]))
			versions, _ := get(crd, "spec", "versions").([]any)
			if len(versions) != 1 {
				t.Fatalf("%d versions, want 1", len(versions))
			}
			v := versions[0].(map[string]any)
			equal(t, "version", v["name"], p.version)

			var wantCols, gotCols []string
			for _, c := range k.markers.all("kubebuilder:printcolumn") {
				prio := c.args["priority"]
				if prio == "" {
					prio = "0"
				}
				wantCols = append(wantCols, strings.Join([]string{c.args["name"], c.args["type"], c.args["JSONPath"], prio}, " "))
			}
			for _, c := range asList(v["additionalPrinterColumns"]) {
				prio := "0"
				if n, ok := c["priority"].(float64); ok {
					prio = strings.TrimSuffix(jsonOf(t, n), ".0")
				}
				gotCols = append(gotCols, strings.Join([]string{str(c, "name"), str(c, "type"), str(c, "jsonPath"), prio}, " "))
			}
			equal(t, "printer columns", gotCols, wantCols)

			var wantSel, gotSel []string
			for _, s := range k.markers.all("kubebuilder:selectablefield") {
				wantSel = append(wantSel, s.args["JSONPath"])
			}
			for _, s := range asList(v["selectableFields"]) {
				gotSel = append(gotSel, str(s, "jsonPath"))
			}
			equal(t, "selectable fields", gotSel, wantSel)
			_, hasStatus := get(v, "subresources", "status").(map[string]any)
			equal(t, "status subresource", hasStatus, k.markers.has("kubebuilder:subresource:status"))

			schema, _ := get(v, "schema", "openAPIV3Schema").(map[string]any)
			checkObject(t, p, k.name, k, schema)
		})
	}
}

// checkObject compares the fields of a struct type with the object schema
// controller-gen wrote for it.
func checkObject(t *testing.T, p *apiPackage, path string, typ *typeInfo, schema map[string]any) {
	t.Helper()
	fields, _ := flatten(p, typ)
	props, _ := schema["properties"].(map[string]any)
	var names, required []string
	for _, f := range fields {
		names = append(names, f.jsonName)
		if f.required() {
			required = append(required, f.jsonName)
		}
		prop, _ := props[f.jsonName].(map[string]any)
		if prop == nil {
			t.Errorf("%s.%s: not in the CRD's schema", path, f.jsonName)
			continue
		}
		checkField(t, p, path+"."+f.jsonName, f, prop)
	}
	if typ.isKind() {
		names = append(names, "apiVersion", "kind")
	}
	equal(t, path+" properties", sortedKeys(props), slices.Sorted(slices.Values(names)))
	equal(t, path+" required", slices.Sorted(slices.Values(strs(schema["required"]))), slices.Sorted(slices.Values(required)))
}

// flatten returns a struct's fields with its inline local structs' fields
// in their place, and the rules of those inline structs.
func flatten(p *apiPackage, typ *typeInfo) ([]*field, []rule) {
	var fields []*field
	var rules []rule
	for _, f := range typ.fields {
		switch {
		case f.inline && f.typ.pkg != "":
			// metav1.TypeMeta: apiVersion and kind.
		case f.inline:
			ff, rr := flatten(p, p.types[f.typ.name])
			fields = append(fields, ff...)
			rules = append(rules, p.types[f.typ.name].markers.rules()...)
			rules = append(rules, rr...)
		default:
			fields = append(fields, f)
		}
	}
	return fields, rules
}

// checkField compares one field's markers, and those of its type, with its
// schema, and goes into the fields of a local struct type.
func checkField(t *testing.T, p *apiPackage, path string, f *field, schema map[string]any) {
	t.Helper()
	local := p.types[f.typ.name]
	if f.typ.pkg != "" {
		local = nil
	}
	elem := schema
	if f.typ.slice {
		elem, _ = schema["items"].(map[string]any)
	}

	wantRules := f.markers.rules()
	var typeRules []rule
	if local != nil {
		_, inlineRules := flatten(p, local)
		typeRules = append(local.markers.rules(), inlineRules...)
	}
	if !f.typ.slice {
		wantRules = append(wantRules, typeRules...)
	} else {
		equal(t, path+"[] rules", rulesOf(elem), sortRules(typeRules))
	}
	equal(t, path+" rules", rulesOf(schema), sortRules(wantRules))

	if m, ok := f.markers.get("kubebuilder:default"); ok {
		equal(t, path+" default", jsonOf(t, schema["default"]), jsonOf(t, literal(m.value)))
	} else if _, ok := schema["default"]; ok {
		t.Errorf("%s: the CRD has default %v, the generator none", path, schema["default"])
	}

	enum := f.markers.enum()
	if len(enum) == 0 && local != nil {
		enum = local.markers.enum()
	}
	equal(t, path+" enum", strs(elem["enum"]), enum)

	for _, m := range f.markers {
		name, ok := strings.CutPrefix(m.name, "kubebuilder:validation:")
		if !ok || slices.Contains([]string{"Enum", "XValidation", "Optional", "Required"}, name) {
			continue
		}
		// items:X constrains each item of a list: the schema's items.
		on := schema
		if item, ok := strings.CutPrefix(name, "items:"); ok {
			name, on = item, elem
		}
		key := strings.ToLower(name[:1]) + name[1:]
		equal(t, path+" "+m.name, jsonOf(t, on[key]), jsonOf(t, literal(m.value)))
	}
	for _, key := range []string{"minLength", "maxLength", "minimum", "maximum", "pattern", "minItems", "maxItems"} {
		name := strings.ToUpper(key[:1]) + key[1:]
		if _, ok := schema[key]; ok && !f.markers.has("kubebuilder:validation:"+name) {
			t.Errorf("%s: the CRD has %s %v, the generator none", path, key, schema[key])
		}
	}
	if local != nil && local.isStruct {
		checkObject(t, p, path, local, elem)
	}
}

func rulesOf(schema map[string]any) []rule {
	var out []rule
	for _, v := range asList(schema["x-kubernetes-validations"]) {
		out = append(out, rule{Rule: str(v, "rule"), Message: str(v, "message")})
	}
	return sortRules(out)
}

func sortRules(rs []rule) []rule {
	out := slices.Clone(rs)
	sort.Slice(out, func(i, j int) bool { return out[i].Rule < out[j].Rule })
	if len(out) == 0 {
		return nil
	}
	return out
}

func equal(t *testing.T, what string, got, want any) {
	t.Helper()
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("%s: generator (-) and CRD (+) differ:\n%s", what, diff)
	}
}

func get(m map[string]any, path ...string) any {
	var v any = m
	for _, p := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[p]
	}
	return v
}

func str(m map[string]any, path ...string) string {
	s, _ := get(m, path...).(string)
	return s
}

func strs(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

func asList(v any) []map[string]any {
	var out []map[string]any
	l, _ := v.([]any)
	for _, x := range l {
		if m, ok := x.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
