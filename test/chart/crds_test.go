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
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// TestCRDs: the CRDs are templates of the release, so helm upgrade updates
// them. By default each is config/crd/bases' CRD, unchanged but for the
// release's labels and helm.sh/resource-policy: keep; crds.keep=false
// drops the policy, crds.enabled=false the CRDs. Nothing is left in the
// chart's crds/, which helm would install outside the release and never
// upgrade.
func TestCRDs(t *testing.T) {
	if _, err := os.Stat(filepath.Join(chartDir(), "crds")); !os.IsNotExist(err) {
		t.Errorf("charts/listkeeper/crds exists (%v): helm would install its CRDs outside the release", err)
	}
	bases, err := filepath.Glob(filepath.Join(root, "config", "crd", "bases", "*.yaml"))
	if err != nil || len(bases) != 3 {
		t.Fatalf("config/crd/bases holds %d CRDs (%v), want 3", len(bases), err)
	}
	want := map[string]*unstructured.Unstructured{}
	for _, path := range bases {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		crd := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(raw, &crd.Object); err != nil {
			t.Fatal(err)
		}
		want[crd.GetName()] = crd
	}

	for _, tc := range []struct {
		name   string
		values map[string]any
		crds   bool
		keep   bool
	}{
		{"defaults", nil, true, true},
		{"not kept", map[string]any{"crds": map[string]any{"keep": false}}, true, false},
		{"off", map[string]any{"crds": map[string]any{"enabled": false}}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			values := map[string]any{"commonLabels": map[string]any{"example.com/team": "lists"}}
			for k, v := range tc.values {
				values[k] = v
			}
			r := render(t, renderOpts{release: "lk", namespace: "lk", values: values})
			got := r.all("CustomResourceDefinition")
			if !tc.crds {
				if len(got) != 0 {
					t.Errorf("%d CRDs rendered with crds.enabled=false", len(got))
				}
				return
			}
			if len(got) != len(want) {
				t.Fatalf("%d CRDs rendered, want %d", len(got), len(want))
			}
			for _, crd := range got {
				base, ok := want[crd.GetName()]
				if !ok {
					t.Errorf("CRD %s is not in config/crd/bases", crd.GetName())
					continue
				}
				if !reflect.DeepEqual(crd.Object["spec"], base.Object["spec"]) {
					t.Errorf("CRD %s: the rendered spec differs from config/crd/bases", crd.GetName())
				}
				ann := crd.GetAnnotations()
				if policy, set := ann["helm.sh/resource-policy"]; tc.keep != (set && policy == "keep") {
					t.Errorf("CRD %s: annotations %v, want helm.sh/resource-policy: keep %t", crd.GetName(), ann, tc.keep)
				}
				for k, v := range base.GetAnnotations() {
					if ann[k] != v {
						t.Errorf("CRD %s: annotation %s=%q lost (config/crd/bases has %q)", crd.GetName(), k, ann[k], v)
					}
				}
				if l := crd.GetLabels(); l["app.kubernetes.io/instance"] != "lk" || l["example.com/team"] != "lists" {
					t.Errorf("CRD %s: labels %v, want the release's and commonLabels", crd.GetName(), l)
				}
			}
		})
	}
}
