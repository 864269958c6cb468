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
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/testenv"
)

// conditionReasons returns every condition reason api/v1alpha1/conditions.go
// declares (the string constants named Reason*), by value, in order.
func conditionReasons(t *testing.T) []string {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, "api", "v1alpha1", "conditions.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if !strings.HasPrefix(name.Name, "Reason") || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Fatalf("%s is not a string literal", name.Name)
				}
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				reasons = append(reasons, v)
			}
		}
	}
	if len(reasons) < 10 {
		t.Fatalf("found only %d reasons in api/v1alpha1/conditions.go: %v", len(reasons), reasons)
	}
	return reasons
}

// TestEveryReasonExplained fails when a reason of api/v1alpha1 has no
// explanation in reasons.go, or reasons.go explains one that is gone.
func TestEveryReasonExplained(t *testing.T) {
	reasons := conditionReasons(t)
	for _, r := range reasons {
		x, ok := explanations[r]
		switch {
		case !ok:
			t.Errorf("reason %s (api/v1alpha1/conditions.go) has no explanation in reasons.go", r)
		case x.Meaning == "" || x.Action == "":
			t.Errorf("reason %s: explanation %+v lacks a meaning or an action", r, x)
		}
	}
	for r := range explanations {
		if !slices.Contains(reasons, r) {
			t.Errorf("reasons.go explains %s, which api/v1alpha1/conditions.go does not declare", r)
		}
	}
}

// TestExplanationsMatchReadme keeps reasons.go in the words of the
// "Troubleshooting by condition reason" table of docs/operations/troubleshooting.md: every
// reason the table has must mean and advise the same (code spans aside).
func TestExplanationsMatchReadme(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(root, "docs", "operations", "troubleshooting.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	rows := 0
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			in = line == "## Troubleshooting by condition reason"
			continue
		case !in || !strings.HasPrefix(line, "| `"):
			continue
		}
		// | `Reason` | on | kstatus | what it means | what to do |
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 5 {
			t.Fatalf("docs/operations/troubleshooting.md troubleshooting row %q: want 5 cells, got %d", line, len(cells))
		}
		plain := func(s string) string { return strings.TrimSpace(strings.ReplaceAll(s, "`", "")) }
		reason := plain(cells[0])
		rows++
		x, ok := explanations[reason]
		if !ok {
			t.Errorf("docs/operations/troubleshooting.md explains %s; reasons.go does not", reason)
			continue
		}
		if want := plain(cells[3]); x.Meaning != want {
			t.Errorf("%s: reasons.go's meaning\n  %q\ndiffers from docs/operations/troubleshooting.md's\n  %q", reason, x.Meaning, want)
		}
		if want := plain(cells[4]); x.Action != want {
			t.Errorf("%s: reasons.go's action\n  %q\ndiffers from docs/operations/troubleshooting.md's\n  %q", reason, x.Action, want)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if rows < 10 {
		t.Fatalf("found %d rows in docs/operations/troubleshooting.md's troubleshooting table", rows)
	}
}

// TestMemoryBudgetExplained: the reason of a read that did not fit in the
// memory budget says that it is retried and names the flag that raises the
// budget.
func TestMemoryBudgetExplained(t *testing.T) {
	x, ok := explanations[v1alpha1.ReasonMemoryBudgetExceeded]
	if !ok {
		t.Fatal("MemoryBudgetExceeded has no explanation")
	}
	if !strings.Contains(x.Action, "--memory-budget-bytes") || !strings.Contains(x.Action, "retried") {
		t.Errorf("the action %q should say the list is retried and name --memory-budget-bytes", x.Action)
	}
}
