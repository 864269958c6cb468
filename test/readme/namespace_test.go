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
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// checkNamespaceName checks that kubectl create namespace names one valid
// namespace and nothing else.
func checkNamespaceName(t *testing.T, c command) {
	t.Helper()
	f := strings.Fields(c.text)
	if len(f) != 4 {
		t.Fatalf("%s: want kubectl create namespace NAME, got %q", c.at(), c.text)
	}
	if errs := validation.IsDNS1123Label(f[3]); len(errs) > 0 {
		t.Errorf("%s: namespace %s: %v", c.at(), f[3], errs)
	}
}

// TestHelmNamespacesLabelledFirst: no Helm command of the README or of
// docs/ creates its namespace (Helm cannot label it for Pod Security),
// and a namespace they create carries a Pod Security enforce label before
// anything is installed into it, so that admission checks the operator's
// pods.
func TestHelmNamespacesLabelledFirst(t *testing.T) {
	created := map[string]bool{}
	labelled := map[string]bool{}
	installs := 0
	for _, c := range readmeCommands(t) {
		f := strings.Fields(c.text)
		switch {
		case strings.HasPrefix(c.text, "kubectl create namespace ") && len(f) > 3:
			created[f[3]] = true
		case strings.HasPrefix(c.text, "kubectl label namespace ") && len(f) > 3:
			for _, l := range f[4:] {
				if strings.HasPrefix(l, "pod-security.kubernetes.io/enforce=") {
					labelled[f[3]] = true
				}
			}
		case strings.HasPrefix(c.text, "helm install "), strings.HasPrefix(c.text, "helm upgrade "):
			installs++
			if slices.Contains(f, "--create-namespace") {
				t.Errorf("%s: --create-namespace makes a namespace without a Pod Security label; create and label it first", c.at())
			}
			i := slices.Index(f, "--namespace")
			if i < 0 || i+1 == len(f) {
				continue // checkHelm reports it
			}
			if ns := f[i+1]; created[ns] && !labelled[ns] {
				t.Errorf("%s: installs into %s before the docs label it for Pod Security", c.at(), ns)
			}
		}
	}
	if installs == 0 {
		t.Fatal("neither the README nor docs/ has a helm install; this test checks nothing")
	}
	if len(created) == 0 {
		t.Error("neither the README nor docs/ creates a namespace for Helm to install into")
	}
}
