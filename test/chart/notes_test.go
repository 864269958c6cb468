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
	"strings"
	"testing"
)

// TestNotes: what helm install prints says how to check the installation
// (the rollout, the lists and entries, the plugin), whether the release
// owns the CRDs, whether the finalizer policy is installed (Kubernetes 1.36
// and later) and how to read the metrics.
func TestNotes(t *testing.T) {
	for _, tc := range []struct {
		name        string
		values      map[string]any
		want, never []string
		kubeVersion string // default: newestKubeVersion, not the envtest kube-apiserver's
	}{
		{"defaults", nil,
			[]string{"rollout status deployment/lk-listkeeper", "kubectl get xl,le -A", "kubectl get cxl", "kubectl listkeeper status",
				"helm upgrade updates them", "helm.sh/resource-policy: keep", "--clusterrole=lk-listkeeper-metrics-reader", "https://localhost:8443/metrics",
				"MutatingAdmissionPolicy lk-listkeeper-cleanup-finalizer", "kubectl listkeeper status` and the metric listkeeper_finalizer_at_birth"},
			[]string{"does not manage the CRDs"}, ""},
		{"one namespace, CRDs elsewhere, plain metrics", map[string]any{"watchNamespace": "team-a", "crds": map[string]any{"enabled": false},
			"metrics": map[string]any{"secure": false}, "serviceMonitor": map[string]any{"enabled": true}},
			[]string{"kubectl -n team-a get xl,le", "does not manage the CRDs", "http://localhost:8443/metrics", `job="lk-listkeeper-metrics"`,
				"MutatingAdmissionPolicy lk-listkeeper-cleanup-finalizer", "every new ListEntry in namespace team-a"},
			[]string{"kubectl get cxl", "helm upgrade updates them", "metrics-reader"}, ""},
		{"no finalizer policy", map[string]any{"finalizerPolicy": map[string]any{"enabled": false}}, nil,
			[]string{"MutatingAdmissionPolicy", "cleanup finalizer"}, ""},
		{"Kubernetes 1.35", nil,
			[]string{"Kubernetes v1.35.2 has no MutatingAdmissionPolicy", "puts the cleanup finalizer on every new ListEntry itself"},
			[]string{"listkeeper_finalizer_at_birth"}, "v1.35.2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kv := tc.kubeVersion
			if kv == "" {
				kv = newestKubeVersion
			}
			notes, err := renderNotes(renderOpts{release: "lk", namespace: "lk", values: tc.values, kubeVersion: kv})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.want {
				if !strings.Contains(notes, s) {
					t.Errorf("NOTES lack %q:\n%s", s, notes)
				}
			}
			for _, s := range tc.never {
				if strings.Contains(notes, s) {
					t.Errorf("NOTES say %q:\n%s", s, notes)
				}
			}
		})
	}
}
