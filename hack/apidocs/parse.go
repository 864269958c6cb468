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
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// apiPackage is what apidocs knows of an API package.
type apiPackage struct {
	// group and version: "listkeeper.dev" (from +groupName) and the
	// package name.
	group, version string
	// types are the package's named types, by name.
	types map[string]*typeInfo
	// kinds are the root types that are not lists, in the order the
	// package registers them (AddKnownTypes), then by name.
	kinds []*typeInfo
	// consts are the package's untyped string constants, by declaration.
	consts []constGroup
}

// typeInfo is one named type of the package.
type typeInfo struct {
	name    string
	doc     []string // paragraphs, markers left out
	markers markers
	// fields are a struct's fields, in source order (nil for other types).
	fields   []*field
	isStruct bool
	// basic is the underlying type of a non-struct type ("string").
	basic string
	// values are the constants of this type, in source order.
	values []constant
}

// field is one field of a struct.
type field struct {
	goName   string
	jsonName string // "" for an inline field
	inline   bool
	omit     bool // omitempty
	doc      []string
	markers  markers
	typ      typeExpr
}

// typeExpr is a field's type: a name, maybe from another package, maybe
// behind a pointer or in a slice.
type typeExpr struct {
	pkg     string // import name ("metav1"), "" for this package and builtins
	name    string
	pointer bool
	slice   bool
}

// constant is one constant with its doc.
type constant struct {
	goName string
	value  string
	doc    []string
}

// constGroup is the constants of one declaration: a parenthesized block
// (with the block's doc) or a single constant.
type constGroup struct {
	doc    []string
	consts []constant
}

// isList reports whether t is the list type of a kind (it has a
// metav1.ListMeta).
func (t *typeInfo) isList() bool {
	for _, f := range t.fields {
		if f.typ.pkg != "" && f.typ.name == "ListMeta" {
			return true
		}
	}
	return false
}

// isKind reports whether t is a kind: a root object that is not a list.
func (t *typeInfo) isKind() bool {
	m, ok := t.markers.get("kubebuilder:object:root")
	return ok && m.value != "false" && !t.isList()
}

// required reports whether the field is required, as controller-gen
// decides: +required or +optional say so; otherwise a field is required
// unless it is inline or omitempty.
func (f *field) required() bool {
	switch {
	case f.markers.has("kubebuilder:validation:Required"), f.markers.has("required"):
		return true
	case f.markers.has("kubebuilder:validation:Optional"), f.markers.has("optional"):
		return false
	default:
		return !f.inline && !f.omit
	}
}

// loadPackage parses the Go files of dir (not its tests, not generated
// files).
func loadPackage(dir string) (*apiPackage, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || strings.HasPrefix(name, "zz_generated") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no Go files in %s", dir)
	}
	p := &apiPackage{version: files[0].Name.Name, types: map[string]*typeInfo{}}
	var registered []string
	for _, f := range files {
		if f.Doc != nil {
			_, ms, err := splitDoc(f.Doc)
			if err != nil {
				return nil, err
			}
			if m, ok := ms.get("groupName"); ok {
				p.group = m.value
			}
		}
		if err := p.addDecls(f); err != nil {
			return nil, err
		}
		registered = append(registered, knownTypes(f)...)
	}
	if p.group == "" {
		return nil, fmt.Errorf("%s: no +groupName marker in the package comment", dir)
	}
	p.attachValues()
	p.sortKinds(registered)
	return p, nil
}

// addDecls adds the types and constants that f declares.
func (p *apiPackage) addDecls(f *ast.File) error {
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		switch gd.Tok {
		case token.TYPE:
			for _, s := range gd.Specs {
				ts := s.(*ast.TypeSpec)
				if !ts.Name.IsExported() {
					continue
				}
				doc := ts.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				t, err := newType(ts, doc)
				if err != nil {
					return fmt.Errorf("type %s: %w", ts.Name.Name, err)
				}
				if t != nil {
					p.types[t.name] = t
				}
			}
		case token.CONST:
			if g := constants(gd); len(g.consts) > 0 {
				p.consts = append(p.consts, g)
			}
		}
	}
	return nil
}

// constants returns the exported string constants of a const declaration.
// Typed ones keep their type's name in goName's place until attachValues
// moves them to their type.
func constants(gd *ast.GenDecl) constGroup {
	var g constGroup
	if gd.Lparen.IsValid() {
		g.doc, _, _ = splitDoc(gd.Doc)
	}
	for _, s := range gd.Specs {
		vs := s.(*ast.ValueSpec)
		doc := vs.Doc
		if doc == nil && !gd.Lparen.IsValid() {
			doc = gd.Doc
		}
		text, _, _ := splitDoc(doc)
		for i, n := range vs.Names {
			if !n.IsExported() || i >= len(vs.Values) {
				continue
			}
			lit, ok := vs.Values[i].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				continue
			}
			v, err := strconv.Unquote(lit.Value)
			if err != nil {
				continue
			}
			c := constant{goName: n.Name, value: v, doc: text}
			if id, ok := vs.Type.(*ast.Ident); ok {
				c.goName = id.Name + "." + n.Name
			}
			g.consts = append(g.consts, c)
		}
	}
	return g
}

// attachValues moves the typed constants to their types' values; the
// untyped ones stay in consts.
func (p *apiPackage) attachValues() {
	var groups []constGroup
	for _, g := range p.consts {
		var untyped []constant
		for _, c := range g.consts {
			if typ, name, ok := strings.Cut(c.goName, "."); ok {
				if t := p.types[typ]; t != nil {
					c.goName = name
					t.values = append(t.values, c)
				}
				continue
			}
			untyped = append(untyped, c)
		}
		if len(untyped) > 0 {
			g.consts = untyped
			groups = append(groups, g)
		}
	}
	p.consts = groups
}

// knownTypes returns the types of the composite literals passed to
// AddKnownTypes in f: the package's registration order.
func knownTypes(f *ast.File) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); !ok || sel.Sel.Name != "AddKnownTypes" {
			return true
		}
		for _, a := range call.Args {
			if u, ok := a.(*ast.UnaryExpr); ok {
				if cl, ok := u.X.(*ast.CompositeLit); ok {
					if id, ok := cl.Type.(*ast.Ident); ok {
						out = append(out, id.Name)
					}
				}
			}
		}
		return false
	})
	return out
}

// sortKinds fills kinds: registered ones first, in registration order,
// then the others by name.
func (p *apiPackage) sortKinds(registered []string) {
	p.kinds = nil
	for _, t := range p.types {
		if t.isKind() {
			p.kinds = append(p.kinds, t)
		}
	}
	rank := func(t *typeInfo) int {
		if i := slices.Index(registered, t.name); i >= 0 {
			return i
		}
		return len(registered)
	}
	sort.Slice(p.kinds, func(i, j int) bool {
		a, b := p.kinds[i], p.kinds[j]
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra < rb
		}
		return a.name < b.name
	})
}

// newType reads one type declaration: a struct, or a named basic type.
// It returns nil for other types (interfaces), which are no part of a
// schema.
func newType(ts *ast.TypeSpec, doc *ast.CommentGroup) (*typeInfo, error) {
	text, ms, err := splitDoc(doc)
	if err != nil {
		return nil, err
	}
	t := &typeInfo{name: ts.Name.Name, doc: text, markers: ms}
	switch u := ts.Type.(type) {
	case *ast.StructType:
		t.isStruct = true
		for _, f := range u.Fields.List {
			fs, err := newFields(f)
			if err != nil {
				return nil, err
			}
			t.fields = append(t.fields, fs...)
		}
	case *ast.Ident:
		t.basic = u.Name
	default:
		return nil, nil // an interface or a func type: no part of the API's schema
	}
	return t, nil
}

// newFields reads one field declaration (which may name several fields).
func newFields(f *ast.Field) ([]*field, error) {
	text, ms, err := splitDoc(f.Doc)
	if err != nil {
		return nil, err
	}
	typ, err := newTypeExpr(f.Type)
	if err != nil {
		return nil, err
	}
	var tag reflect.StructTag
	if f.Tag != nil {
		raw, err := strconv.Unquote(f.Tag.Value)
		if err != nil {
			return nil, err
		}
		tag = reflect.StructTag(raw)
	}
	jsonName, opts, _ := strings.Cut(tag.Get("json"), ",")
	if jsonName == "-" {
		return nil, nil
	}
	omit := slices.Contains(strings.Split(opts, ","), "omitempty")
	inline := slices.Contains(strings.Split(opts, ","), "inline")
	if len(f.Names) == 0 { // embedded
		return []*field{{goName: typ.name, jsonName: jsonName, inline: inline || jsonName == "", omit: omit, doc: text, markers: ms, typ: typ}}, nil
	}
	var out []*field
	for _, n := range f.Names {
		if !n.IsExported() {
			continue
		}
		name := jsonName
		if name == "" {
			name = n.Name
		}
		out = append(out, &field{goName: n.Name, jsonName: name, inline: inline, omit: omit, doc: text, markers: ms, typ: typ})
	}
	return out, nil
}

// newTypeExpr reads a field's type.
func newTypeExpr(e ast.Expr) (typeExpr, error) {
	switch x := e.(type) {
	case *ast.Ident:
		return typeExpr{name: x.Name}, nil
	case *ast.SelectorExpr:
		pkg, ok := x.X.(*ast.Ident)
		if !ok {
			return typeExpr{}, fmt.Errorf("unsupported type %T", x.X)
		}
		return typeExpr{pkg: pkg.Name, name: x.Sel.Name}, nil
	case *ast.StarExpr:
		t, err := newTypeExpr(x.X)
		t.pointer = true
		return t, err
	case *ast.ArrayType:
		if x.Len != nil {
			return typeExpr{}, fmt.Errorf("arrays are not supported")
		}
		t, err := newTypeExpr(x.Elt)
		t.slice = true
		return t, err
	default:
		return typeExpr{}, fmt.Errorf("unsupported field type %T", e)
	}
}

// splitDoc splits a doc comment into its paragraphs of text (lines joined
// by spaces) and its markers (lines that start with "+").
func splitDoc(cg *ast.CommentGroup) ([]string, markers, error) {
	if cg == nil {
		return nil, nil, nil
	}
	var paras []string
	var ms markers
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			paras = append(paras, strings.Join(cur, " "))
			cur = nil
		}
	}
	for _, c := range cg.List {
		text := strings.TrimPrefix(c.Text, "//")
		if strings.HasPrefix(text, "/*") {
			continue // a block comment (the licence) is no doc
		}
		text = strings.TrimSpace(text)
		switch {
		case strings.HasPrefix(text, "+"):
			m, err := parseMarker(text)
			if err != nil {
				return nil, nil, err
			}
			ms = append(ms, m)
			flush()
		case text == "":
			flush()
		default:
			cur = append(cur, text)
		}
	}
	flush()
	return paras, ms, nil
}
