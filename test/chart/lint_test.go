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

package chart_test

import (
	"os"
	"path/filepath"
	"testing"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/v2/lint/support"
)

// lintStrict runs the Helm SDK's linter as `helm lint --strict` does, for
// the oldest Kubernetes the chart supports, and returns every message at
// warning or above (strict fails on those).
func lintStrict(t *testing.T, dir string, values map[string]any) []support.Message {
	t.Helper()
	l := action.NewLint()
	l.Strict = true
	l.Namespace = "listkeeper-system"
	kv, err := common.ParseKubeVersion("v1.31.0")
	if err != nil {
		t.Fatal(err)
	}
	l.KubeVersion = kv
	res := l.Run([]string{dir}, values)
	if res.TotalChartsLinted != 1 {
		t.Fatalf("linted %d charts, want 1: %v", res.TotalChartsLinted, res.Errors)
	}
	var bad []support.Message
	for _, m := range res.Messages {
		if m.Severity >= support.WarningSev {
			bad = append(bad, m)
		}
	}
	return bad
}

// TestLintStrict: `helm lint --strict` passes with the default values and
// with every toggle on.
func TestLintStrict(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values map[string]any
	}{
		{"defaults", map[string]any{}},
		{"all toggles", allToggles("team-a")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, m := range lintStrict(t, chartDir(), tc.values) {
				t.Errorf("helm lint --strict: %s", m)
			}
		})
	}
}

// TestLintStrictCatchesUnknownFields proves the lint can fail: a copy of
// the chart whose Chart.yaml has a field the chart schema lacks (license,
// which belongs in an annotation) does not pass.
func TestLintStrictCatchesUnknownFields(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "listkeeper")
	if err := os.CopyFS(dir, os.DirFS(chartDir())); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "Chart.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("license: Apache-2.0\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if bad := lintStrict(t, dir, nil); len(bad) == 0 {
		t.Error("helm lint --strict accepts a Chart.yaml with a license field")
	}
}
