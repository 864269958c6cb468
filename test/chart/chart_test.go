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
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// monitoringNamespace is where allToggles puts the ServiceMonitor, apart
// from the release.
const monitoringNamespace = "lk-monitoring"

// allToggles turns every optional part of the chart on and watches one
// namespace. The metrics are served with a certificate from a Secret, which
// the ServiceMonitor verifies.
func allToggles(watch string) map[string]any {
	return map[string]any{
		"watchNamespace":    watch,
		"allowedHosts":      []any{"*.lists.example.com", "fakeapi.listkeeper-demo.svc.cluster.local"},
		"extraArgs":         []any{"--request-timeout=20s"},
		"memoryBudgetBytes": 200000000,
		"commonLabels":      map[string]any{"example.com/cost-center": "lists", "app.kubernetes.io/name": "not-the-chart's"},
		"volumes":           []any{map[string]any{"name": "metrics-cert", "secret": map[string]any{"secretName": "listkeeper-metrics-cert"}}},
		"volumeMounts":      []any{map[string]any{"name": "metrics-cert", "mountPath": "/etc/listkeeper/metrics-cert", "readOnly": true}},
		"metrics":           map[string]any{"certPath": "/etc/listkeeper/metrics-cert"},
		"serviceMonitor": map[string]any{"enabled": true, "labels": map[string]any{"release": "prom"}, "namespace": monitoringNamespace,
			"tlsConfig": map[string]any{"ca": map[string]any{"secret": map[string]any{"name": "listkeeper-metrics-cert", "key": "ca.crt"}},
				"serverName": "lkt-listkeeper-metrics.lk-toggles.svc"},
			"authorization":     map[string]any{"type": "Bearer", "credentials": map[string]any{"name": "prometheus-listkeeper-token", "key": "token"}},
			"relabelings":       []any{map[string]any{"sourceLabels": []any{"__meta_kubernetes_pod_node_name"}, "targetLabel": "node"}},
			"metricRelabelings": []any{map[string]any{"sourceLabels": []any{"__name__"}, "regex": "go_.*", "action": "drop"}}},
		"prometheusRule": map[string]any{"enabled": true},
		"dashboard":      map[string]any{"enabled": true},
		"podAnnotations": map[string]any{"example.com/team": "lists"},
		"nodeSelector":   map[string]any{"kubernetes.io/os": "linux"},
		"tolerations":    []any{map[string]any{"key": "dedicated", "operator": "Equal", "value": "ops", "effect": "NoSchedule"}},
		"serviceAccount": map[string]any{"annotations": map[string]any{"eks.amazonaws.com/role-arn": "arn:aws:iam::123456789012:role/listkeeper"}},
		"networkPolicy": map[string]any{"enabled": true, "egressToAll": false, "apiServer": map[string]any{"cidrs": []any{"10.0.0.1/32"}, "port": 6443},
			"listHosts": []any{map[string]any{"cidr": "192.0.2.0/24", "description": "lists.example.com"},
				map[string]any{"cidr": "198.51.100.7/32", "ports": []any{8443}}}},
	}
}

// kinds counts the rendered objects by kind.
func kinds(r rendered) map[string]int {
	out := map[string]int{}
	for _, o := range r.objs {
		out[o.GetKind()]++
	}
	return out
}

// checkDeployment asserts what every rendering's Deployment must have.
func checkDeployment(t *testing.T, r rendered) *appsv1.Deployment {
	t.Helper()
	d := one[appsv1.Deployment](t, r, "Deployment")
	spec := d.Spec.Template.Spec
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 3 {
		t.Errorf("replicas = %v, want 3", d.Spec.Replicas)
	}
	shutdown := managerShutdownTimeout(t)
	if spec.TerminationGracePeriodSeconds == nil {
		t.Errorf("no terminationGracePeriodSeconds, want at least the manager's shutdown timeout %s", shutdown)
	} else if grace := time.Duration(*spec.TerminationGracePeriodSeconds) * time.Second; grace < shutdown {
		t.Errorf("terminationGracePeriodSeconds = %s, want at least the manager's shutdown timeout %s", grace, shutdown)
	}
	c := managerContainer(t, d)
	if !slices.Contains(c.Args, "--leader-elect=false") {
		t.Errorf("manager args %q lack --leader-elect=false: every replica must be active", c.Args)
	}
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	for name, path := range map[string]string{"POD_NAME": "metadata.name", "POD_NAMESPACE": "metadata.namespace"} {
		if e, ok := env[name]; !ok || e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != path {
			t.Errorf("env %s = %+v, want the downward API's %s", name, e, path)
		}
	}
	mem, ok := env["MEMORY_LIMIT_BYTES"]
	if !ok || mem.ValueFrom == nil || mem.ValueFrom.ResourceFieldRef == nil {
		t.Errorf("env MEMORY_LIMIT_BYTES (the GOMEMLIMIT source) = %+v, want a resourceFieldRef", mem)
	} else if ref := mem.ValueFrom.ResourceFieldRef; ref.Resource != "limits.memory" || ref.ContainerName != "manager" || ref.Divisor.String() != "1" {
		t.Errorf("MEMORY_LIMIT_BYTES refers to %+v, want limits.memory of container manager in bytes", ref)
	}
	if _, ok := env["GOMEMLIMIT"]; ok {
		t.Errorf("GOMEMLIMIT is set in the chart; it would override the manager's 90%% of the memory limit")
	}
	if c.Resources.Limits.Memory().IsZero() {
		t.Error("the manager has no memory limit: MEMORY_LIMIT_BYTES would be the node's memory")
	}
	sc := c.SecurityContext
	if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Errorf("manager securityContext = %+v, want no privilege escalation and a read-only root", sc)
	}
	if c.LivenessProbe == nil || c.ReadinessProbe == nil {
		t.Error("the manager lacks a liveness or readiness probe")
	}

	pdb := one[policyv1.PodDisruptionBudget](t, r, "PodDisruptionBudget")
	if pdb.Spec.MaxUnavailable == nil || *pdb.Spec.MaxUnavailable != intstr.FromInt32(1) || pdb.Spec.MinAvailable != nil {
		t.Errorf("PDB maxUnavailable = %v, minAvailable = %v; want maxUnavailable 1 only", pdb.Spec.MaxUnavailable, pdb.Spec.MinAvailable)
	}
	if !equalLabels(pdb.Spec.Selector.MatchLabels, d.Spec.Selector.MatchLabels) {
		t.Errorf("PDB selects %v, the Deployment's pods are %v", pdb.Spec.Selector.MatchLabels, d.Spec.Selector.MatchLabels)
	}
	return d
}

func equalLabels(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestDefaults renders the chart with its default values and has the API
// server accept every object.
func TestDefaults(t *testing.T) {
	env.Require(t)
	const ns = "lk-defaults"
	r := render(t, renderOpts{release: "lk", namespace: ns})

	got := kinds(r)
	want := map[string]int{
		"CustomResourceDefinition": 3, "ServiceAccount": 1, "Deployment": 1, "PodDisruptionBudget": 1, "Service": 1,
		// manager, metrics-auth, metrics-reader, aggregate-to-view,
		// aggregate-to-edit; manager, metrics-auth
		"ClusterRole": 5, "ClusterRoleBinding": 2,
		// membership (Leases) in the release namespace
		"Role": 1, "RoleBinding": 1,
		// the egress policy, on by default (networkpolicy_test.go)
		"NetworkPolicy": 1,
	}
	// The finalizer policy, where the kube-apiserver serves it (not in make
	// test-compat, 1.31).
	if servesFinalizerPolicy(t, serverKubeVersion()) {
		want[policyKind], want[bindingKind] = 1, 1
	} else {
		want[policyKind], want[bindingKind] = 0, 0
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%d %s rendered, want %d", got[k], k, n)
		}
	}
	for _, k := range []string{"ServiceMonitor", "PrometheusRule", "ConfigMap", "Namespace"} {
		if got[k] != 0 {
			t.Errorf("%s rendered with the default values", k)
		}
	}
	for _, o := range r.objs {
		if o.GetNamespace() != "" && o.GetNamespace() != ns {
			t.Errorf("%s %s is in namespace %s, want the release namespace %s", o.GetKind(), o.GetName(), o.GetNamespace(), ns)
		}
	}
	d := checkDeployment(t, r)
	if c := managerContainer(t, d); slices.ContainsFunc(c.Args, func(a string) bool { return strings.HasPrefix(a, "--namespace") }) {
		t.Errorf("manager args %q restrict the namespace by default", c.Args)
	}
	role := r.all("Role")[0]
	if role.GetNamespace() != ns || !strings.HasSuffix(role.GetName(), "-membership") {
		t.Errorf("the only Role is %s/%s, want the membership Role in %s", role.GetNamespace(), role.GetName(), ns)
	}

	applyAndDryRun(t, r, ns)
	checkRestrictedPod(t, ns, d)
}

// TestAllToggles renders the chart with every toggle on and watchNamespace
// set, and has the API server accept every object.
func TestAllToggles(t *testing.T) {
	env.Require(t)
	const ns, watch = "lk-toggles", "lk-toggles-watched"
	r := render(t, renderOpts{release: "lkt", namespace: ns, values: allToggles(watch)})

	got := kinds(r)
	for k, n := range map[string]int{"ServiceMonitor": 1, "PrometheusRule": 1, "ConfigMap": 1, "Role": 2, "RoleBinding": 2, "NetworkPolicy": 1} {
		if got[k] != n {
			t.Errorf("%d %s rendered, want %d", got[k], k, n)
		}
	}
	for _, o := range append(r.all("ClusterRole"), r.all("ClusterRoleBinding")...) {
		if strings.HasSuffix(o.GetName(), "-manager") {
			t.Errorf("%s %s rendered with watchNamespace set; the manager's rules belong in a Role", o.GetKind(), o.GetName())
		}
	}
	var managerRole *unstructured.Unstructured
	for _, o := range r.all("Role") {
		if strings.HasSuffix(o.GetName(), "-manager") {
			managerRole = o
		}
	}
	if managerRole == nil || managerRole.GetNamespace() != watch {
		t.Fatalf("no manager Role in the watched namespace %s", watch)
	}

	d := checkDeployment(t, r)
	c := managerContainer(t, d)
	for _, a := range []string{"--namespace=" + watch, "--allowed-hosts=*.lists.example.com,fakeapi.listkeeper-demo.svc.cluster.local", "--request-timeout=20s",
		"--memory-budget-bytes=200000000"} {
		if !slices.Contains(c.Args, a) {
			t.Errorf("manager args %q lack %s", c.Args, a)
		}
	}
	if d.Spec.Template.Annotations["example.com/team"] != "lists" || d.Spec.Template.Spec.NodeSelector["kubernetes.io/os"] != "linux" || len(d.Spec.Template.Spec.Tolerations) != 1 {
		t.Error("podAnnotations, nodeSelector or tolerations did not reach the pod template")
	}

	cm := one[corev1.ConfigMap](t, r, "ConfigMap")
	if cm.Labels["grafana_dashboard"] != "1" || cm.Data["listkeeper.json"] == "" {
		t.Errorf("dashboard ConfigMap labels %v, keys %d: want grafana_dashboard=1 and listkeeper.json", cm.Labels, len(cm.Data))
	}
	sm := r.all("ServiceMonitor")[0]
	if l := sm.GetLabels()["release"]; l != "prom" {
		t.Errorf("ServiceMonitor labels %v lack serviceMonitor.labels", sm.GetLabels())
	}
	sel, _, _ := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
	svc := one[corev1.Service](t, r, "Service")
	if !equalLabels(sel, subset(svc.Labels, sel)) {
		t.Errorf("ServiceMonitor selects %v; the metrics Service has %v", sel, svc.Labels)
	}

	eps, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
	if len(eps) != 1 || eps[0].(map[string]any)["honorLabels"] != true {
		t.Fatalf("ServiceMonitor endpoints %v: want one with honorLabels, so the per-list namespace label survives", eps)
	}
	checkServiceMonitorCertificate(t, r, sm, eps[0].(map[string]any), ns)
	checkMonitoringContent(t, r, cm)
	checkAbsentJob(t, r, svc.Name)
	checkCommonLabels(t, r, map[string]string{"example.com/cost-center": "lists"})

	np := one[networkingv1.NetworkPolicy](t, r, "NetworkPolicy")
	if !equalLabels(np.Spec.PodSelector.MatchLabels, subset(d.Spec.Template.Labels, np.Spec.PodSelector.MatchLabels)) || len(np.Spec.PodSelector.MatchLabels) == 0 {
		t.Errorf("the NetworkPolicy selects %v; the manager's pods carry %v", np.Spec.PodSelector.MatchLabels, d.Spec.Template.Labels)
	}
	if len(np.Spec.Egress) != 4 || np.Spec.Egress[1].To[0].IPBlock.CIDR != "10.0.0.1/32" || np.Spec.Egress[1].Ports[0].Port.IntValue() != 6443 ||
		np.Spec.Egress[2].Ports[0].Port.IntValue() != 443 || np.Spec.Egress[3].Ports[0].Port.IntValue() != 8443 {
		t.Errorf("NetworkPolicy egress %+v: want DNS, the API server on 6443, and the two list ranges", np.Spec.Egress)
	}

	installMonitoringCRDs(t)
	ensureNamespace(t, env, watch, nil)
	ensureNamespace(t, env, monitoringNamespace, nil)
	applyAndDryRun(t, r, ns)
	checkRestrictedPod(t, ns, d)
}

// checkServiceMonitorCertificate: with metrics.certPath, the manager is
// given the mounted certificate and the ServiceMonitor verifies it with the
// tlsConfig given, never insecureSkipVerify, and presents the token of
// serviceMonitor.authorization instead of a token file (OpenShift's
// user-workload monitoring refuses both), from its own namespace, where it
// selects the metrics Service of the release namespace.
func checkServiceMonitorCertificate(t *testing.T, r rendered, sm *unstructured.Unstructured, ep map[string]any, ns string) {
	t.Helper()
	values := allToggles("")
	d := one[appsv1.Deployment](t, r, "Deployment")
	c := managerContainer(t, d)
	certPath := values["metrics"].(map[string]any)["certPath"].(string)
	if !slices.Contains(c.Args, "--metrics-cert-path="+certPath) {
		t.Errorf("manager args %q lack --metrics-cert-path=%s", c.Args, certPath)
	}
	if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != certPath || len(d.Spec.Template.Spec.Volumes) != 1 ||
		d.Spec.Template.Spec.Volumes[0].Secret == nil || d.Spec.Template.Spec.Volumes[0].Secret.SecretName != "listkeeper-metrics-cert" {
		t.Errorf("volumeMounts %+v, volumes %+v: want the certificate's Secret at %s", c.VolumeMounts, d.Spec.Template.Spec.Volumes, certPath)
	}

	want := values["serviceMonitor"].(map[string]any)
	if sm.GetNamespace() != monitoringNamespace {
		t.Errorf("ServiceMonitor in %q, want serviceMonitor.namespace %q", sm.GetNamespace(), monitoringNamespace)
	}
	if names, _, _ := unstructured.NestedStringSlice(sm.Object, "spec", "namespaceSelector", "matchNames"); !slices.Equal(names, []string{ns}) {
		t.Errorf("ServiceMonitor namespaceSelector %v, want the release namespace %s", names, ns)
	}
	if ep["scheme"] != "https" || !equalJSON(ep["tlsConfig"], want["tlsConfig"]) {
		t.Errorf("endpoint scheme %v, tlsConfig %v; want https and %v", ep["scheme"], ep["tlsConfig"], want["tlsConfig"])
	}
	if _, ok := ep["bearerTokenFile"]; ok || !equalJSON(ep["authorization"], want["authorization"]) {
		t.Errorf("endpoint bearerTokenFile %v, authorization %v; want no file and %v", ep["bearerTokenFile"], ep["authorization"], want["authorization"])
	}
	for _, k := range []string{"relabelings", "metricRelabelings"} {
		if !equalJSON(ep[k], want[k]) {
			t.Errorf("endpoint %s %v, want %v", k, ep[k], want[k])
		}
	}
}

// equalJSON compares two values as JSON documents.
func equalJSON(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// checkAbsentJob: ListkeeperAbsent looks for the job the ServiceMonitor
// gives the metrics, the metrics Service's name.
func checkAbsentJob(t *testing.T, r rendered, job string) {
	t.Helper()
	groups, _, _ := unstructured.NestedSlice(r.all("PrometheusRule")[0].Object, "spec", "groups")
	for _, g := range groups {
		rules, _ := g.(map[string]any)["rules"].([]any)
		for _, rule := range rules {
			m := rule.(map[string]any)
			if m["alert"] != "ListkeeperAbsent" {
				continue
			}
			if want := `absent(listkeeper_build_info{job="` + job + `"})`; m["expr"] != want {
				t.Errorf("ListkeeperAbsent: %v, want %s", m["expr"], want)
			}
			return
		}
	}
	t.Error("the PrometheusRule has no ListkeeperAbsent")
}

// checkCommonLabels: every object carries the commonLabels, and the
// chart's own labels win over them.
func checkCommonLabels(t *testing.T, r rendered, common map[string]string) {
	t.Helper()
	for _, o := range r.objs {
		labels := o.GetLabels()
		for k, v := range common {
			if labels[k] != v {
				t.Errorf("%s %s: label %s=%q, want commonLabels' %q", o.GetKind(), o.GetName(), k, labels[k], v)
			}
		}
		if labels["app.kubernetes.io/name"] != "listkeeper" {
			t.Errorf("%s %s: app.kubernetes.io/name=%q; the chart's own label must win over commonLabels", o.GetKind(), o.GetName(), labels["app.kubernetes.io/name"])
		}
	}
	d := one[appsv1.Deployment](t, r, "Deployment")
	for k, v := range common {
		if d.Spec.Template.Labels[k] != v {
			t.Errorf("the manager's pods: label %s=%q, want commonLabels' %q", k, d.Spec.Template.Labels[k], v)
		}
	}
	if !equalLabels(d.Spec.Selector.MatchLabels, subset(d.Spec.Template.Labels, d.Spec.Selector.MatchLabels)) {
		t.Errorf("the Deployment selects %v; its pods carry %v", d.Spec.Selector.MatchLabels, d.Spec.Template.Labels)
	}
}

func subset(m map[string]string, keys map[string]string) map[string]string {
	out := map[string]string{}
	for k := range keys {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}

// applyAndDryRun creates the CRDs and the release namespace ns for real
// (the other objects need them), and dry-runs everything else.
func applyAndDryRun(t *testing.T, r rendered, ns string) {
	t.Helper()
	var crds []string
	var rest []*unstructured.Unstructured
	for _, o := range r.objs {
		if o.GetKind() != "CustomResourceDefinition" {
			rest = append(rest, o)
			continue
		}
		createForReal(t, o)
		crds = append(crds, o.GetName())
	}
	ensureNamespace(t, env, ns, nil)
	waitEstablished(t, env, crds...)
	dryRun(t, rest)
}

// installMonitoringCRDs installs minimal CRDs for the Prometheus Operator's
// ServiceMonitor and PrometheusRule: any spec is accepted.
func installMonitoringCRDs(t *testing.T) {
	t.Helper()
	var names []string
	for _, kind := range []string{"ServiceMonitor", "PrometheusRule"} {
		plural := strings.ToLower(kind) + "s"
		name := plural + ".monitoring.coreos.com"
		crd := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: `+name+`
spec:
  group: monitoring.coreos.com
  scope: Namespaced
  names: {kind: `+kind+`, listKind: `+kind+`List, plural: `+plural+`, singular: `+strings.ToLower(kind)+`}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`), &crd.Object); err != nil {
			t.Fatal(err)
		}
		createForReal(t, crd)
		names = append(names, name)
	}
	waitEstablished(t, env, names...)
}

// checkRestrictedPod labels ns to enforce the "restricted" Pod Security
// Standard and dry-runs a Pod made from the Deployment's template there:
// Pod Security admission must admit it. A privileged pod is refused in the
// same namespace, which shows the admission is on.
func checkRestrictedPod(t *testing.T, ns string, d *appsv1.Deployment) {
	t.Helper()
	ctx := context.Background()
	nsObj := &corev1.Namespace{}
	if err := env.Client().Get(ctx, client.ObjectKey{Name: ns}, nsObj); err != nil {
		t.Fatal(err)
	}
	if nsObj.Labels["pod-security.kubernetes.io/enforce"] != "restricted" {
		patch := client.MergeFrom(nsObj.DeepCopy())
		if nsObj.Labels == nil {
			nsObj.Labels = map[string]string{}
		}
		nsObj.Labels["pod-security.kubernetes.io/enforce"] = "restricted"
		if err := env.Client().Patch(ctx, nsObj, patch); err != nil {
			t.Fatal(err)
		}
	}
	// The service account must exist for the pod to be admitted.
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: d.Spec.Template.Spec.ServiceAccountName, Namespace: ns}}
	if err := env.Client().Create(ctx, sa); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "psa-check", Namespace: ns, Labels: d.Spec.Template.Labels},
		Spec:       *d.Spec.Template.Spec.DeepCopy(),
	}
	if err := env.Client().Create(ctx, pod, client.DryRunAll); err != nil {
		t.Errorf("the manager's pod is refused in a namespace enforcing restricted: %v", err)
	}
	bad := pod.DeepCopy()
	bad.Spec.Containers[0].SecurityContext.Privileged = ptr(true)
	bad.Spec.Containers[0].SecurityContext.AllowPrivilegeEscalation = ptr(true)
	err := env.Client().Create(ctx, bad, client.DryRunAll)
	if err == nil || !strings.Contains(err.Error(), "PodSecurity") {
		t.Errorf("a privileged pod in %s: err = %v, want a PodSecurity refusal (is the admission on?)", ns, err)
	}
}

func ptr[T any](v T) *T { return &v }

// TestValuesRefused renders values that cannot work: each gets an error
// that names the value, and nothing is rendered.
func TestValuesRefused(t *testing.T) {
	tests := []struct {
		name   string
		values map[string]any
		want   string
	}{
		{"grace period below the shutdown timeout", map[string]any{"terminationGracePeriodSeconds": 5}, "terminationGracePeriodSeconds"},
		{"misspelt key", map[string]any{"replica": 2}, "replica"},
		{"namespace not a DNS label", map[string]any{"watchNamespace": "Team_A"}, "watchNamespace"},
		{"host list with a comma", map[string]any{"allowedHosts": []any{"a.example.com,b.example.com"}}, "allowedHosts"},
		{"metrics on the probe port", map[string]any{"metrics": map[string]any{"port": 8081}}, "port"},
		{"no service account", map[string]any{"serviceAccount": map[string]any{"create": false}}, "serviceAccount.name"},
		{"a narrowed network policy without the API server", map[string]any{"networkPolicy": map[string]any{"enabled": true, "egressToAll": false}}, "networkPolicy.apiServer.cidrs"},
		{"an unknown secret access", map[string]any{"secretAccess": "list"}, "secretAccess"},
		{"a misspelt CRD toggle", map[string]any{"crds": map[string]any{"keepp": true}}, "keepp"},
		{"a CRD toggle that is no boolean", map[string]any{"crds": map[string]any{"enabled": "yes"}}, "/crds/enabled"},
		{"a misspelt RBAC toggle", map[string]any{"rbac": map[string]any{"aggregated": true}}, "aggregated"},
		{"a common label that is no string", map[string]any{"commonLabels": map[string]any{"tier": 1}}, "commonLabels"},
		{"a volume mount without a path", map[string]any{"volumeMounts": []any{map[string]any{"name": "x"}}}, "mountPath"},
		{"a relative certificate path", map[string]any{"metrics": map[string]any{"certPath": "certs"}}, "certPath"},
		{"a certificate path nothing is mounted at", map[string]any{"metrics": map[string]any{"certPath": "/certs"}}, "metrics.certPath"},
		{"a certificate over plain http", map[string]any{"metrics": map[string]any{"certPath": "/certs", "secure": false},
			"volumeMounts": []any{map[string]any{"name": "c", "mountPath": "/certs"}}, "volumes": []any{map[string]any{"name": "c", "emptyDir": map[string]any{}}}}, "metrics.secure"},
		{"a certificate the ServiceMonitor cannot verify", map[string]any{"metrics": map[string]any{"certPath": "/certs"},
			"volumeMounts": []any{map[string]any{"name": "c", "mountPath": "/certs"}}, "volumes": []any{map[string]any{"name": "c", "emptyDir": map[string]any{}}},
			"serviceMonitor": map[string]any{"enabled": true}}, "serviceMonitor.tlsConfig"},
		{"a tlsConfig for a self-signed certificate", map[string]any{"serviceMonitor": map[string]any{"enabled": true,
			"tlsConfig": map[string]any{"serverName": "x"}}}, "metrics.certPath"},
		{"a token over plain http", map[string]any{"metrics": map[string]any{"secure": false}, "serviceMonitor": map[string]any{"enabled": true,
			"authorization": map[string]any{"credentials": map[string]any{"name": "t", "key": "token"}}}}, "metrics.secure"},
		{"a certificate Secret and a certificate path", map[string]any{"metrics": map[string]any{"certSecret": "c", "certPath": "/certs"},
			"volumeMounts": []any{map[string]any{"name": "c", "mountPath": "/certs"}}, "volumes": []any{map[string]any{"name": "c", "emptyDir": map[string]any{}}}}, "exclude each other"},
		{"a certificate Secret over plain http", map[string]any{"metrics": map[string]any{"certSecret": "c", "secure": false}}, "metrics.secure"},
		{"a certificate Secret that is no name", map[string]any{"metrics": map[string]any{"certSecret": "Metrics_Cert"}}, "certSecret"},
		{"a certificate Secret the ServiceMonitor cannot verify", map[string]any{"metrics": map[string]any{"certSecret": "c"},
			"serviceMonitor": map[string]any{"enabled": true}}, "serviceMonitor.tlsConfig"},
		{"a ServiceMonitor namespace that is no name", map[string]any{"serviceMonitor": map[string]any{"namespace": "Monitoring"}}, "namespace"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := renderChart(renderOpts{release: "lk", namespace: "lk", values: tc.values})
			if err == nil {
				t.Fatalf("rendered:\n%.300s", out)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not name %s", err, tc.want)
			}
		})
	}
}

// TestKubeVersion: the chart refuses clusters older than 1.31 (CRD
// selectable fields) and renders on 1.31.
func TestKubeVersion(t *testing.T) {
	if _, err := renderChart(renderOpts{release: "lk", namespace: "lk", kubeVersion: "v1.30.5"}); err == nil || !strings.Contains(err.Error(), "kubeVersion") {
		t.Errorf("render for Kubernetes 1.30: err = %v, want a kubeVersion refusal", err)
	}
	for _, v := range []string{"v1.31.0", "v1.31.2-eks-1234", "v1.37.2"} {
		if _, err := renderChart(renderOpts{release: "lk", namespace: "lk", kubeVersion: v}); err != nil {
			t.Errorf("render for Kubernetes %s: %v", v, err)
		}
	}
}

// checkMonitoringContent checks that the chart ships the generated alerts
// and dashboard (internal/monitoring, `make monitoring`), not placeholders:
// the PrometheusRule carries every alert of config/prometheus, and the
// dashboard ConfigMap the JSON of config/grafana.
func checkMonitoringContent(t *testing.T, r rendered, cm *corev1.ConfigMap) {
	t.Helper()
	alertsOf := func(groups []any) []string {
		var names []string
		for _, g := range groups {
			rules, _ := g.(map[string]any)["rules"].([]any)
			for _, rule := range rules {
				if a, ok := rule.(map[string]any)["alert"].(string); ok {
					names = append(names, a)
				}
			}
		}
		slices.Sort(names)
		return names
	}
	raw, err := os.ReadFile(filepath.Join(root, "config", "prometheus", "prometheusrule.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var kustomized map[string]any
	if err := yaml.Unmarshal(raw, &kustomized); err != nil {
		t.Fatal(err)
	}
	wantGroups, _, _ := unstructured.NestedSlice(kustomized, "spec", "groups")
	gotGroups, _, _ := unstructured.NestedSlice(r.all("PrometheusRule")[0].Object, "spec", "groups")
	want, got := alertsOf(wantGroups), alertsOf(gotGroups)
	if len(want) < 5 || !slices.Equal(got, want) {
		t.Errorf("the chart's PrometheusRule alerts %v, config/prometheus has %v", got, want)
	}
	dash, err := os.ReadFile(filepath.Join(root, "config", "grafana", "listkeeper-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(cm.Data["listkeeper.json"]) != strings.TrimSpace(string(dash)) {
		t.Error("the chart's dashboard differs from config/grafana/listkeeper-dashboard.json: run make monitoring")
	}
}
