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
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// managerFlagDefaults are the manager's defaults of the flags the two
// configurations set (cmd/manager), so that a flag one of them leaves to
// its default compares equal to the other spelling it out.
var managerFlagDefaults = map[string]string{
	"--leader-elect":              "false",
	"--metrics-secure":            "true",
	"--metrics-bind-address":      "0",
	"--metrics-cert-path":         "",
	"--health-probe-bind-address": ":8081",
	"--namespace":                 "",
	"--allowed-hosts":             "",
}

// flags parses "--name=value" arguments; a bare "--name" is "true".
func flags(t *testing.T, args []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k, v := range managerFlagDefaults {
		out[k] = v
	}
	for _, a := range args {
		if !strings.HasPrefix(a, "--") {
			t.Fatalf("manager argument %q is not --name=value", a)
		}
		name, value, ok := strings.Cut(a, "=")
		if !ok {
			value = "true"
		}
		out[name] = value
	}
	return out
}

// TestKustomizeAndChartAgree renders config/default (kustomize) and the
// chart with its defaults, and checks that both run the manager the same
// way: flags, environment, grace period, probes, ports, security context,
// the disruption budget, and the manager's and the membership's
// permissions.
func TestKustomizeAndChartAgree(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatalf("kubectl renders the kustomize configuration: %v", err)
	}
	cmd := exec.Command(kubectl, "kustomize", filepath.Join(root, "config", "default"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kubectl kustomize config/default: %v\n%s", err, stderr.String())
	}
	var k rendered
	for _, part := range strings.Split(string(out), "\n---\n") {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(part), &obj.Object); err != nil {
			t.Fatal(err)
		}
		k.objs = append(k.objs, obj)
	}
	h := render(t, renderOpts{release: "listkeeper", namespace: "listkeeper-system"})

	kd, hd := one[appsv1.Deployment](t, k, "Deployment"), one[appsv1.Deployment](t, h, "Deployment")
	kc, hc := managerContainer(t, kd), managerContainer(t, hd)

	kf, hf := flags(t, kc.Args), flags(t, hc.Args)
	// The member group is each installation's own: its Deployment's name.
	for _, f := range []struct {
		flags map[string]string
		name  string
	}{{kf, kd.Name}, {hf, hd.Name}} {
		if f.flags["--member-group"] != f.name {
			t.Errorf("--member-group=%q, want the Deployment's name %q", f.flags["--member-group"], f.name)
		}
		delete(f.flags, "--member-group")
	}
	if !reflect.DeepEqual(kf, hf) {
		t.Errorf("manager flags differ:\nkustomize %v\nchart     %v", kf, hf)
	}
	if !reflect.DeepEqual(kc.Command, hc.Command) {
		t.Errorf("command: kustomize %q, chart %q", kc.Command, hc.Command)
	}
	if !reflect.DeepEqual(kc.Env, hc.Env) {
		t.Errorf("environment differs:\nkustomize %+v\nchart     %+v", kc.Env, hc.Env)
	}
	if !reflect.DeepEqual(*kd.Spec.Replicas, *hd.Spec.Replicas) {
		t.Errorf("replicas: kustomize %d, chart %d", *kd.Spec.Replicas, *hd.Spec.Replicas)
	}
	if *kd.Spec.Template.Spec.TerminationGracePeriodSeconds != *hd.Spec.Template.Spec.TerminationGracePeriodSeconds {
		t.Errorf("terminationGracePeriodSeconds: kustomize %d, chart %d", *kd.Spec.Template.Spec.TerminationGracePeriodSeconds, *hd.Spec.Template.Spec.TerminationGracePeriodSeconds)
	}
	for name, pair := range map[string][2]any{
		"livenessProbe":   {kc.LivenessProbe, hc.LivenessProbe},
		"readinessProbe":  {kc.ReadinessProbe, hc.ReadinessProbe},
		"ports":           {kc.Ports, hc.Ports},
		"resources":       {kc.Resources, hc.Resources},
		"securityContext": {kc.SecurityContext, hc.SecurityContext},
	} {
		if !reflect.DeepEqual(pair[0], pair[1]) {
			t.Errorf("%s differs:\nkustomize %+v\nchart     %+v", name, pair[0], pair[1])
		}
	}
	if kp, hp := podSecurity(kd), podSecurity(hd); !reflect.DeepEqual(kp, hp) {
		t.Errorf("pod securityContext differs:\nkustomize %+v\nchart     %+v", kp, hp)
	}
	kpdb, hpdb := one[policyv1.PodDisruptionBudget](t, k, "PodDisruptionBudget"), one[policyv1.PodDisruptionBudget](t, h, "PodDisruptionBudget")
	if !reflect.DeepEqual(kpdb.Spec.MaxUnavailable, hpdb.Spec.MaxUnavailable) || !reflect.DeepEqual(kpdb.Spec.MinAvailable, hpdb.Spec.MinAvailable) {
		t.Errorf("PDB: kustomize %+v, chart %+v", kpdb.Spec, hpdb.Spec)
	}

	// The manager's ClusterRole: the chart's copy of config/rbac/role.yaml
	// must be current (make manifests copies it).
	if kr, hr := rulesOf(t, k, "ClusterRole", "-manager-role"), rulesOf(t, h, "ClusterRole", "-manager"); !reflect.DeepEqual(kr, hr) {
		t.Errorf("manager rules differ (run make manifests):\nkustomize %+v\nchart     %+v", kr, hr)
	}
	if kr, hr := rulesOf(t, k, "Role", "-membership-role"), rulesOf(t, h, "Role", "-membership"); !reflect.DeepEqual(kr, hr) {
		t.Errorf("membership rules differ:\nkustomize %+v\nchart     %+v", kr, hr)
	}
	// What namespace users get through the built-in view and edit roles.
	for _, role := range []string{"view", "edit"} {
		suffix, label := "-aggregate-to-"+role, "rbac.authorization.k8s.io/aggregate-to-"+role
		if kr, hr := rulesOf(t, k, "ClusterRole", suffix), rulesOf(t, h, "ClusterRole", suffix); !reflect.DeepEqual(kr, hr) {
			t.Errorf("aggregate-to-%s rules differ:\nkustomize %+v\nchart     %+v", role, kr, hr)
		}
		for _, r := range []rendered{k, h} {
			for _, o := range r.all("ClusterRole") {
				if strings.HasSuffix(o.GetName(), suffix) && o.GetLabels()[label] != "true" {
					t.Errorf("ClusterRole %s lacks the label %s: \"true\"", o.GetName(), label)
				}
			}
		}
	}

	// The chart's CRDs are config/crd/bases, byte for byte.
	for _, name := range []string{"listkeeper.dev_clusterexternallists.yaml", "listkeeper.dev_externallists.yaml", "listkeeper.dev_listentries.yaml"} {
		a, errA := os.ReadFile(filepath.Join(root, "config", "crd", "bases", name))
		b, errB := os.ReadFile(filepath.Join(chartDir(), "files", "crds", name))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("charts/listkeeper/files/crds/%s differs from config/crd/bases (run make manifests): %v %v", name, errA, errB)
		}
	}
}

func podSecurity(d *appsv1.Deployment) *corev1.PodSecurityContext {
	return d.Spec.Template.Spec.SecurityContext
}

// rulesOf returns the rules of the one object of a kind whose name ends
// with suffix.
func rulesOf(t *testing.T, r rendered, kind, suffix string) []rbacv1.PolicyRule {
	t.Helper()
	var found []rbacv1.PolicyRule
	n := 0
	for _, o := range r.all(kind) {
		if strings.HasSuffix(o.GetName(), suffix) {
			var role rbacv1.ClusterRole
			raw, err := yaml.Marshal(o.Object)
			if err != nil {
				t.Fatal(err)
			}
			if err := yaml.Unmarshal(raw, &role); err != nil {
				t.Fatal(err)
			}
			found = role.Rules
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d %s named *%s rendered, want 1", n, kind, suffix)
	}
	return found
}
