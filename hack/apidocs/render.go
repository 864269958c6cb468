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
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// kubeTypes describes the types of other packages that the API's fields
// use, as a user writes them in YAML. A field of a type missing here is
// shown by its Go name, unlinked.
var kubeTypes = map[string]struct{ title, text string }{
	"metav1.ObjectMeta": {"ObjectMeta", "The standard object metadata: `name`, `namespace` (for namespaced kinds), " +
		"`labels`, `annotations`, `finalizers`, `ownerReferences`, and the fields the API server sets " +
		"(`uid`, `generation`, `resourceVersion`, `creationTimestamp`, `deletionTimestamp`)."},
	"metav1.Condition": {"Condition", "One condition of an object's status: `type` (such as `Ready`), `status` " +
		"(`True`, `False` or `Unknown`), `reason` (a CamelCase word, see [Constants](#constants)), `message` " +
		"(for people), `lastTransitionTime` (when `status` last changed) and `observedGeneration` (the " +
		"`metadata.generation` it describes)."},
	"metav1.Duration": {"Duration", "A duration written as a Go duration string: numbers with the units `ns`, " +
		"`us`, `ms`, `s`, `m` and `h`, such as `30s`, `10m` or `1h30m`."},
	"metav1.Time": {"Time", "A timestamp in RFC 3339 form, such as `2026-12-03T08:21:03Z`."},
	"metav1.LabelSelector": {"LabelSelector", "A label selector: `matchLabels` (label keys and the values they " +
		"must have) and `matchExpressions` (a list of `{key, operator, values}` with the operators `In`, " +
		"`NotIn`, `Exists` and `DoesNotExist`); every requirement must hold. `{}` selects everything."},
}

// basicTypes are the names of Go's basic types as the CRD's schema types.
var basicTypes = map[string]string{
	"string": "string", "bool": "boolean",
	"int": "integer", "int32": "integer", "int64": "integer",
	"float32": "number", "float64": "number",
}

// doc is the reference of one API package being written.
type doc struct {
	p      *apiPackage
	source string
	b      strings.Builder
	// order is the struct and enum types of the Types section, in the
	// order they are first reached from the kinds.
	order []*typeInfo
	// usedBy is, for each type, where fields of this package use it.
	usedBy map[string][]string
	// kube is the types of kubeTypes that a field uses.
	kube map[string]bool
}

// render returns the reference of p as Markdown. source is the package's
// directory as the page names it ("api/v1alpha1").
func render(p *apiPackage, source string) ([]byte, error) {
	d := &doc{p: p, source: source, usedBy: map[string][]string{}, kube: map[string]bool{}}
	if err := d.walk(); err != nil {
		return nil, err
	}
	d.header()
	d.kinds()
	d.types()
	d.constants()
	d.kubernetes()
	return []byte(d.b.String()), nil
}

func (d *doc) printf(format string, args ...any) {
	fmt.Fprintf(&d.b, format, args...)
}

// walk orders the types depth first from the kinds, then the types no
// kind reaches by name, and records who uses each.
func (d *doc) walk() error {
	seen := map[string]bool{}
	var visit func(t *typeInfo) error
	visit = func(t *typeInfo) error {
		for _, f := range t.fields {
			if f.typ.pkg != "" {
				if f.typ.name != "TypeMeta" {
					d.kube[f.typ.pkg+"."+f.typ.name] = true
				}
				continue
			}
			u := d.p.types[f.typ.name]
			if u == nil {
				if basicTypes[f.typ.name] == "" {
					return fmt.Errorf("%s.%s: type %s is neither declared in the package nor a basic type", t.name, f.goName, f.typ.name)
				}
				continue
			}
			where := link(t.name)
			if !f.inline {
				where += " (" + code(f.jsonName) + ")"
			}
			d.usedBy[u.name] = append(d.usedBy[u.name], where)
			if seen[u.name] {
				continue
			}
			seen[u.name] = true
			d.order = append(d.order, u)
			if err := visit(u); err != nil {
				return err
			}
		}
		return nil
	}
	for _, k := range d.p.kinds {
		seen[k.name] = true
	}
	for _, k := range d.p.kinds {
		if err := visit(k); err != nil {
			return err
		}
	}
	// Types no kind reaches still get a section, after the others.
	var rest []*typeInfo
	for _, t := range d.p.types {
		if !seen[t.name] && !t.isList() && !t.isKind() {
			rest = append(rest, t)
		}
	}
	slices.SortFunc(rest, func(a, b *typeInfo) int { return strings.Compare(a.name, b.name) })
	for _, t := range rest {
		d.order = append(d.order, t)
		if err := visit(t); err != nil {
			return err
		}
	}
	return nil
}

// mapLink is the map of the documentation, from docs/api.md: every page of
// docs/ links back to it (test/readme checks that).
const mapLink = "../README.md#documentation"

func (d *doc) header() {
	gv := d.p.group + "/" + d.p.version
	d.printf("<!-- Code generated by hack/apidocs from %s; DO NOT EDIT. Run `make api-docs` to write it again. -->\n\n", d.source)
	d.printf("# API reference: %s\n\n", gv)
	d.printf("[Documentation map](%s)\n\n", mapLink)
	d.printf("The kinds of the `%s` API group, version `%s`, with every field of their specs and statuses. "+
		"This page is generated from the Go types in `%s`: their doc comments, and the markers from which "+
		"controller-gen writes the CRDs in `config/crd/bases`. Defaults are filled in by the API server; "+
		"the rules under a field or a type are checked by the API server on every create and update, and "+
		"the message after a rule is what it answers (and `kubectl` prints) when the rule fails.\n\n",
		d.p.group, d.p.version, d.source)
	for _, k := range d.p.kinds {
		scope, short := resource(k)
		d.printf("- %s (%s, %s): %s\n", link(k.name), strings.Join(mapStrings(short, code), ", "), strings.ToLower(scope), text(firstSentence(k.doc)))
	}
	d.printf("\n")
}

// resource returns a kind's scope and short names.
func resource(k *typeInfo) (scope string, short []string) {
	m, _ := k.markers.get("kubebuilder:resource")
	scope = m.args["scope"]
	if scope == "" {
		scope = "Namespaced"
	}
	return scope, list(m.args["shortName"])
}

func (d *doc) kinds() {
	d.printf("## Kinds\n\n")
	for _, k := range d.p.kinds {
		d.printf("### %s\n\n", k.name)
		d.paragraphs(k.doc)
		scope, short := resource(k)
		m, _ := k.markers.get("kubebuilder:resource")
		d.printf("| | |\n| --- | --- |\n")
		d.printf("| API version | %s |\n", code(d.p.group+"/"+d.p.version))
		d.printf("| Scope | %s |\n", scope)
		if len(short) > 0 {
			d.printf("| Short names | %s |\n", strings.Join(mapStrings(short, code), ", "))
		}
		if cats := list(m.args["categories"]); len(cats) > 0 {
			d.printf("| Categories | %s |\n", strings.Join(mapStrings(cats, code), ", "))
		}
		var subs []string
		for _, s := range []string{"status", "scale"} {
			if k.markers.has("kubebuilder:subresource:" + s) {
				subs = append(subs, code(s))
			}
		}
		if len(subs) > 0 {
			d.printf("| Subresources | %s |\n", strings.Join(subs, ", "))
		}
		var sel []string
		for _, s := range k.markers.all("kubebuilder:selectablefield") {
			sel = append(sel, code(s.args["JSONPath"]))
		}
		if len(sel) > 0 {
			d.printf("| Field selectors | %s |\n", strings.Join(sel, ", "))
		}
		d.printf("\n")
		d.fieldTable(k)
		d.printerColumns(k, short)
	}
}

func (d *doc) printerColumns(k *typeInfo, short []string) {
	cols := k.markers.all("kubebuilder:printcolumn")
	if len(cols) == 0 {
		return
	}
	get := "kubectl get " + strings.ToLower(k.name)
	if len(short) > 0 {
		get = "kubectl get " + short[0]
	}
	d.printf("Columns of %s (%s adds those marked wide):\n\n", code(get), code("-o wide"))
	d.printf("| Column | Type | Value | Shown |\n| --- | --- | --- | --- |\n")
	for _, c := range cols {
		shown := "always"
		if p := c.args["priority"]; p != "" && p != "0" {
			shown = "wide"
		}
		d.row(c.args["name"], c.args["type"], code(c.args["JSONPath"]), shown)
	}
	d.printf("\n")
}

func (d *doc) types() {
	d.printf("## Types\n\n")
	for _, t := range d.order {
		d.printf("### %s\n\n", t.name)
		d.paragraphs(t.doc)
		if uses := d.usedBy[t.name]; len(uses) > 0 {
			d.printf("Used by %s.\n\n", strings.Join(uses, ", "))
		}
		if rules := t.markers.rules(); len(rules) > 0 {
			d.printf("Rules:\n\n")
			for _, r := range rules {
				d.printf("- %s: %s\n", code(r.Rule), quote(r.Message))
			}
			d.printf("\n")
		}
		if t.isStruct {
			d.fieldTable(t)
		} else {
			d.values(t)
		}
	}
}

// values writes the table of an enum's values.
func (d *doc) values(t *typeInfo) {
	typ := basicTypes[t.basic]
	if typ == "" {
		typ = t.basic
	}
	vals := t.markers.enum()
	if len(vals) == 0 {
		for _, c := range t.values {
			vals = append(vals, c.value)
		}
	}
	if len(vals) == 0 {
		d.printf("A %s.\n\n", typ)
		return
	}
	d.printf("A %s, one of:\n\n| Value | Meaning |\n| --- | --- |\n", typ)
	for _, v := range vals {
		var meaning []string
		for _, c := range t.values {
			if c.value == v {
				meaning = lead(c.doc, c.goName, code(v))
			}
		}
		d.row(code(v), strings.Join(mapStrings(meaning, textKeep(code(v))), "<br><br>"))
	}
	d.printf("\n")
}

// fieldTable writes the table of a struct's fields.
func (d *doc) fieldTable(t *typeInfo) {
	if len(t.fields) == 0 {
		d.printf("It has no fields: write %s.\n\n", code("{}"))
		return
	}
	d.printf("| Field | Type | Required | Default | Description |\n| --- | --- | --- | --- | --- |\n")
	for _, f := range t.fields {
		switch {
		case f.inline && f.typ.pkg == "metav1" && f.typ.name == "TypeMeta":
			d.row(code("apiVersion"), "string", "required", "", code(d.p.group+"/"+d.p.version)+".")
			d.row(code("kind"), "string", "required", "", code(t.name)+".")
		case f.inline:
			d.row("*inline*", d.typeCell(f.typ), "", "",
				"The fields of "+link(f.typ.name)+" at this level of the object, with its rules.")
		default:
			req := "optional"
			if f.required() {
				req = "required"
			}
			d.row(code(f.jsonName), d.typeCell(f.typ), req, defaultCell(f), d.description(f))
		}
	}
	d.printf("\n")
}

// description is a field's doc followed by its validation.
func (d *doc) description(f *field) string {
	parts := mapStrings(f.doc, text)
	if f.typ.pkg == "metav1" && f.typ.name == "ObjectMeta" && len(parts) == 0 {
		parts = append(parts, "Standard object metadata.")
	}
	enum := f.markers.enum()
	if t := d.p.types[f.typ.name]; t != nil && f.typ.pkg == "" && len(enum) == 0 {
		enum = t.markers.enum()
	}
	if len(enum) > 0 {
		parts = append(parts, "One of "+strings.Join(mapStrings(enum, code), ", ")+".")
	}
	minLen, hasMin := f.markers.intValue("kubebuilder:validation:MinLength")
	maxLen, hasMax := f.markers.intValue("kubebuilder:validation:MaxLength")
	switch {
	case hasMin && hasMax:
		parts = append(parts, fmt.Sprintf("%d to %d characters.", minLen, maxLen))
	case hasMax:
		parts = append(parts, fmt.Sprintf("At most %d characters.", maxLen))
	case hasMin:
		parts = append(parts, fmt.Sprintf("At least %d characters.", minLen))
	}
	for _, m := range f.markers {
		name, ok := strings.CutPrefix(m.name, "kubebuilder:validation:")
		if !ok || slices.Contains([]string{"Enum", "MinLength", "MaxLength", "XValidation", "Optional", "Required"}, name) {
			continue
		}
		parts = append(parts, name+": "+code(m.value)+".")
	}
	if lt, ok := f.markers.get("listType"); ok {
		switch lt.value {
		case "map":
			var keys []string
			for _, k := range f.markers.all("listMapKey") {
				keys = append(keys, code(k.value))
			}
			parts = append(parts, "A map list: at most one item per "+strings.Join(keys, " and ")+".")
		case "set":
			parts = append(parts, "A set: no item twice.")
		}
	}
	for _, r := range f.markers.rules() {
		parts = append(parts, "Rule "+code(r.Rule)+": "+quote(r.Message))
	}
	return strings.Join(parts, "<br><br>")
}

// typeCell is how a field's type is shown: a link to a type of the
// package or of kubeTypes, or the schema type of a basic type.
func (d *doc) typeCell(t typeExpr) string {
	var s string
	switch {
	case t.pkg != "":
		k, ok := kubeTypes[t.pkg+"."+t.name]
		if !ok {
			s = t.pkg + "." + t.name
		} else {
			s = "[" + k.title + "](#" + anchor(k.title+" (Kubernetes)") + ")"
		}
	case d.p.types[t.name] != nil:
		s = link(t.name)
	default:
		s = basicTypes[t.name]
	}
	if t.slice {
		s = "list of " + s
	}
	return s
}

// defaultCell is a field's +kubebuilder:default, as YAML shows it.
func defaultCell(f *field) string {
	m, ok := f.markers.get("kubebuilder:default")
	if !ok {
		return ""
	}
	switch v := literal(m.value).(type) {
	case string:
		if v == "" {
			return code(`""`)
		}
		return code(v)
	default:
		return code(fmt.Sprint(v))
	}
}

func (d *doc) constants() {
	if len(d.p.consts) == 0 {
		return
	}
	d.printf("## Constants\n\n")
	d.printf("Names and values that the operator writes and reads, declared in `%s`.\n\n", d.source)
	for _, g := range d.p.consts {
		if len(g.doc) == 0 {
			for _, c := range g.consts {
				d.printf("### %s\n\n", code(c.value))
				d.paragraphsKeep(lead(c.doc, c.goName, code(c.value)), code(c.value))
			}
			continue
		}
		title, rest := titleOf(g.doc)
		d.printf("### %s\n\n", text(title))
		d.paragraphs(rest)
		d.printf("| Value | Meaning |\n| --- | --- |\n")
		for _, c := range g.consts {
			d.row(code(c.value), strings.Join(mapStrings(lead(c.doc, c.goName, code(c.value)), textKeep(code(c.value))), "<br><br>"))
		}
		d.printf("\n")
	}
}

func (d *doc) kubernetes() {
	if len(d.kube) == 0 {
		return
	}
	d.printf("## Kubernetes types\n\n")
	d.printf("Types of the Kubernetes API (`k8s.io/apimachinery`) that fields above use.\n\n")
	names := make([]string, 0, len(d.kube))
	for n := range d.kube {
		if _, ok := kubeTypes[n]; ok {
			names = append(names, n)
		}
	}
	slices.SortFunc(names, func(a, b string) int { return strings.Compare(kubeTypes[a].title, kubeTypes[b].title) })
	for _, n := range names {
		k := kubeTypes[n]
		d.printf("### %s (Kubernetes)\n\n%s\n\n", k.title, k.text)
	}
}

// paragraphs writes doc paragraphs as Markdown text.
func (d *doc) paragraphs(paras []string) {
	for _, p := range paras {
		d.printf("%s\n\n", text(p))
	}
}

// paragraphsKeep writes paragraphs whose first one starts with keep, which
// is already Markdown.
func (d *doc) paragraphsKeep(paras []string, keep string) {
	for _, p := range paras {
		d.printf("%s\n\n", textKeep(keep)(p))
	}
}

// row writes one table row; a cell's pipes are escaped.
func (d *doc) row(cells ...string) {
	for i, c := range cells {
		cells[i] = strings.ReplaceAll(c, "|", `\|`)
	}
	d.printf("| %s |\n", strings.Join(cells, " | "))
}

// lead replaces the Go name that starts a doc comment ("ListModeAdditive
// touches ...") by what the reader knows it as, in Markdown.
func lead(paras []string, goName, repl string) []string {
	if len(paras) == 0 {
		return nil
	}
	out := slices.Clone(paras)
	if rest, ok := strings.CutPrefix(out[0], goName+" "); ok {
		out[0] = repl + " " + rest
	}
	return out
}

// titleOf splits a group's doc into a title (its first sentence, when it is
// short: "Condition types.") and the rest.
func titleOf(paras []string) (string, []string) {
	first, rest, _ := strings.Cut(paras[0], ". ")
	first = strings.TrimSuffix(first, ".")
	if len(strings.Fields(first)) > 5 {
		return "Constants", paras
	}
	out := slices.Clone(paras[1:])
	if rest != "" {
		out = append([]string{rest}, out...)
	}
	return first, out
}

// firstSentence returns the first sentence of a doc.
func firstSentence(paras []string) string {
	if len(paras) == 0 {
		return ""
	}
	s, _, ok := strings.Cut(paras[0], ". ")
	if ok {
		return s + "."
	}
	return paras[0]
}

func mapStrings(in []string, f func(string) string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = f(s)
	}
	return out
}

// link is a link to the section of a type of the package.
func link(name string) string {
	return "[" + name + "](#" + anchor(name) + ")"
}

// anchor is the id GitHub gives a heading: lower case, spaces to dashes,
// other punctuation dropped.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ' || r == '-':
			b.WriteRune('-')
		case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// code is s as a Markdown code span.
func code(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// quote is a rule's message, in quotes, as prose.
func quote(s string) string {
	return "“" + text(s) + "”"
}

// text escapes prose for Markdown: emphasis, HTML, links and code marks
// are shown as written.
func text(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		switch r {
		case '\\', '`', '*', '[', ']':
			b.WriteRune('\\')
			b.WriteRune(r)
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '_':
			inWord := i > 0 && i+1 < len(rs) && isWord(rs[i-1]) && isWord(rs[i+1])
			if !inWord {
				b.WriteRune('\\')
			}
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// textKeep returns a function that escapes prose like text, except a
// prefix keep, which is already Markdown.
func textKeep(keep string) func(string) string {
	return func(s string) string {
		if rest, ok := strings.CutPrefix(s, keep); ok {
			return keep + text(rest)
		}
		return text(s)
	}
}

func isWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}
