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

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	"sigs.k8s.io/yaml"
)

// Kinds of the finalizer policy (templates/finalizer-policy.yaml).
const (
	policyKind  = "MutatingAdmissionPolicy"
	bindingKind = "MutatingAdmissionPolicyBinding"
)

// servesFinalizerPolicy reports whether Kubernetes kubeVersion serves
// admissionregistration.k8s.io/v1 MutatingAdmissionPolicy (1.36 and later).
func servesFinalizerPolicy(t *testing.T, kubeVersion string) bool {
	t.Helper()
	v, err := utilversion.ParseGeneric(kubeVersion)
	if err != nil {
		t.Fatalf("Kubernetes version %q: %v", kubeVersion, err)
	}
	return v.AtLeast(utilversion.MajorMinor(1, 36))
}

// TestFinalizerPolicy: the chart renders the MutatingAdmissionPolicy that
// adds the cleanup finalizer, and its binding, by default on Kubernetes
// 1.36 and later, with the same spec as config/finalizer-policy; not when
// finalizerPolicy.enabled is false, nor on older clusters (the kinds do not
// exist there). With watchNamespace the binding matches that namespace
// only: an entry elsewhere would get a finalizer no operator removes.
func TestFinalizerPolicy(t *testing.T) {
	var want admissionregistrationv1.MutatingAdmissionPolicy
	raw, err := os.ReadFile(filepath.Join(root, "config", "finalizer-policy", "policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(raw, &want); err != nil {
		t.Fatalf("config/finalizer-policy/policy.yaml: %v", err)
	}
	off := map[string]any{"finalizerPolicy": map[string]any{"enabled": false}}
	for _, tc := range []struct {
		name        string
		kubeVersion string
		values      map[string]any
		want        bool
		watch       string
	}{
		{"defaults", newestKubeVersion, nil, true, ""},
		{"the first release that serves it", "v1.36.0", nil, true, ""},
		{"a managed cluster's version", "v1.36.3-eks-4f4795d", nil, true, ""},
		{"disabled", newestKubeVersion, off, false, ""},
		{"Kubernetes 1.35", "v1.35.4", nil, false, ""},
		{"Kubernetes 1.31", "v1.31.0", nil, false, ""},
		{"one namespace", newestKubeVersion, map[string]any{"watchNamespace": "team-a"}, true, "team-a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := render(t, renderOpts{release: "lk", namespace: "lk-system", values: tc.values, kubeVersion: tc.kubeVersion})
			got := kinds(r)
			if !tc.want {
				if got[policyKind] != 0 || got[bindingKind] != 0 {
					t.Errorf("%d policies and %d bindings rendered, want none", got[policyKind], got[bindingKind])
				}
				return
			}
			p := one[admissionregistrationv1.MutatingAdmissionPolicy](t, r, policyKind)
			b := one[admissionregistrationv1.MutatingAdmissionPolicyBinding](t, r, bindingKind)
			if p.Name != "lk-listkeeper-cleanup-finalizer" || b.Spec.PolicyName != p.Name {
				t.Errorf("policy %q, binding %q naming policy %q: want lk-listkeeper-cleanup-finalizer, bound", p.Name, b.Name, b.Spec.PolicyName)
			}
			if p.Namespace != "" || b.Namespace != "" {
				t.Errorf("the policy and binding are cluster-scoped, rendered in namespaces %q and %q", p.Namespace, b.Namespace)
			}
			if !reflect.DeepEqual(p.Spec, want.Spec) {
				t.Errorf("the chart's policy differs from config/finalizer-policy/policy.yaml:\nchart  %+v\nconfig %+v", p.Spec, want.Spec)
			}
			if tc.watch == "" {
				if b.Spec.MatchResources != nil {
					t.Errorf("binding matchResources %+v; without watchNamespace it binds every namespace", b.Spec.MatchResources)
				}
				return
			}
			mr := b.Spec.MatchResources
			if mr == nil || mr.NamespaceSelector == nil || len(mr.NamespaceSelector.MatchExpressions) != 0 ||
				!reflect.DeepEqual(mr.NamespaceSelector.MatchLabels, map[string]string{"kubernetes.io/metadata.name": tc.watch}) {
				t.Errorf("binding matchResources %+v, want namespace %s only", mr, tc.watch)
			}
		})
	}
}
