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
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// checkHelm checks a helm install or upgrade: the chart is a directory of
// the repository, a namespace is given, and every --set names a value the
// chart has.
func checkHelm(t *testing.T, c command) {
	t.Helper()
	f := strings.Fields(c.text)
	if len(f) < 4 {
		t.Fatalf("%s: want helm %s NAME CHART ...", c.at(), f[1])
	}
	chart := filepath.Join("../..", f[3])
	if strings.HasPrefix(f[3], "https://") {
		// A released chart: charts/listkeeper, packaged by make release.
		checkReleaseURL(t, c, f[3], func(version string) string { return "listkeeper-" + version + ".tgz" })
		chart = "../../charts/listkeeper"
	}
	raw, err := os.ReadFile(filepath.Join(chart, "values.yaml"))
	if err != nil {
		t.Fatalf("%s: chart %s: %v", c.at(), f[3], err)
	}
	var values map[string]any
	if err := yaml.Unmarshal(raw, &values); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(f, "--namespace") {
		t.Errorf("%s: no --namespace", c.at())
	}
	for i, a := range f {
		if a != "--set" || i+1 == len(f) {
			continue
		}
		key, _, _ := strings.Cut(f[i+1], "=")
		var node any = values
		for _, part := range strings.Split(key, ".") {
			m, ok := node.(map[string]any)
			if !ok {
				t.Fatalf("%s: --set %s: %s is not a map in values.yaml", c.at(), key, part)
			}
			if node, ok = m[part]; !ok {
				t.Fatalf("%s: --set %s: the chart has no value %s", c.at(), key, part)
			}
		}
	}
}

// checkImages checks that the images the README loads into a local cluster
// are the ones the Makefile builds by default.
func checkImages(t *testing.T, c command, images []string) {
	t.Helper()
	raw, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	built := regexp.MustCompile(`(?m)^IMG\w* \?= (\S+)$`).FindAllSubmatch(raw, -1)
	var defaults []string
	for _, m := range built {
		defaults = append(defaults, string(m[1]))
	}
	for _, img := range images {
		if strings.HasPrefix(img, "-") {
			continue
		}
		if !slices.Contains(defaults, img) {
			t.Errorf("%s: image %s is not one the Makefile builds by default (%v)", c.at(), img, defaults)
		}
	}
}

// checkLabels checks the labels of a kubectl label command: valid keys and
// values, and a Pod Security level where the key is a Pod Security one.
func checkLabels(t *testing.T, c command, labels []string) {
	t.Helper()
	if len(labels) == 0 {
		t.Fatalf("%s: no labels", c.at())
	}
	for _, l := range labels {
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			t.Fatalf("%s: %q is not key=value", c.at(), l)
		}
		if errs := append(validation.IsQualifiedName(k), validation.IsValidLabelValue(v)...); len(errs) > 0 {
			t.Errorf("%s: label %s: %v", c.at(), l, errs)
		}
		if strings.HasPrefix(k, "pod-security.kubernetes.io/") && !strings.HasSuffix(k, "-version") &&
			!slices.Contains([]string{"privileged", "baseline", "restricted"}, v) {
			t.Errorf("%s: %s is not a Pod Security level", c.at(), l)
		}
	}
}

// checkManifests checks that a path the README applies holds Kubernetes
// objects.
func checkManifests(t *testing.T, c command, path string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("../..", path, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: no YAML files in %s (%v)", c.at(), path, err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range bytes.Split(raw, []byte("\n---\n")) {
			var obj struct{ APIVersion, Kind string }
			if err := yaml.Unmarshal(doc, &obj); err != nil || (len(bytes.TrimSpace(doc)) > 3 && (obj.APIVersion == "" || obj.Kind == "")) {
				t.Errorf("%s: %s is not a Kubernetes object: %v", c.at(), f, err)
			}
		}
	}
}
