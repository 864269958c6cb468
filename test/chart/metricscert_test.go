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
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestMetricsCertSecret: metrics.certSecret alone serves the metrics with
// that Secret's certificate: the chart mounts the Secret read-only beside
// the volumes given, passes --metrics-cert-path at the mount, and the
// ServiceMonitor verifies with its tlsConfig instead of skipping
// verification. A kube-apiserver accepts the result and the pod still
// passes the restricted Pod Security Standard.
func TestMetricsCertSecret(t *testing.T) {
	env.Require(t)
	const ns, secret = "lk-metrics-cert", "lkc-metrics-cert"
	tlsConfig := map[string]any{"ca": map[string]any{"secret": map[string]any{"name": secret, "key": "ca.crt"}},
		"serverName": "lkc-listkeeper-metrics." + ns + ".svc"}
	r := render(t, renderOpts{release: "lkc", namespace: ns, values: map[string]any{
		"metrics":        map[string]any{"certSecret": secret},
		"volumes":        []any{map[string]any{"name": "tmp", "emptyDir": map[string]any{}}},
		"volumeMounts":   []any{map[string]any{"name": "tmp", "mountPath": "/tmp"}},
		"serviceMonitor": map[string]any{"enabled": true, "tlsConfig": tlsConfig},
	}})
	d := one[appsv1.Deployment](t, r, "Deployment")
	c := managerContainer(t, d)

	var certPath string
	for _, a := range c.Args {
		if p, ok := strings.CutPrefix(a, "--metrics-cert-path="); ok {
			certPath = p
		}
	}
	if certPath == "" {
		t.Fatalf("manager args %q lack --metrics-cert-path", c.Args)
	}
	mounted := slices.IndexFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == certPath })
	if mounted < 0 || !c.VolumeMounts[mounted].ReadOnly {
		t.Fatalf("volumeMounts %+v: nothing mounted read-only at %s", c.VolumeMounts, certPath)
	}
	vols := d.Spec.Template.Spec.Volumes
	v := slices.IndexFunc(vols, func(v corev1.Volume) bool { return v.Name == c.VolumeMounts[mounted].Name })
	if v < 0 || vols[v].Secret == nil || vols[v].Secret.SecretName != secret {
		t.Errorf("volumes %+v: the mount at %s is not the Secret %s", vols, certPath, secret)
	}
	if !slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.Name == "tmp" && m.MountPath == "/tmp" }) ||
		!slices.ContainsFunc(vols, func(v corev1.Volume) bool { return v.Name == "tmp" }) {
		t.Errorf("volumes %+v, mounts %+v: the volumes given are lost", vols, c.VolumeMounts)
	}

	sm := r.all("ServiceMonitor")
	if len(sm) != 1 {
		t.Fatalf("%d ServiceMonitors rendered", len(sm))
	}
	eps, _, _ := unstructured.NestedSlice(sm[0].Object, "spec", "endpoints")
	if len(eps) != 1 {
		t.Fatalf("ServiceMonitor endpoints %v", eps)
	}
	if ep := eps[0].(map[string]any); !equalJSON(ep["tlsConfig"], tlsConfig) {
		t.Errorf("endpoint tlsConfig %v, want %v (and no insecureSkipVerify)", ep["tlsConfig"], tlsConfig)
	}

	installMonitoringCRDs(t)
	ensureNamespace(t, env, ns, nil)
	applyAndDryRun(t, r, ns)
	checkRestrictedPod(t, ns, d)
}
