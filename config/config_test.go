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

package config_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/listkeeper/listkeeper/internal/testenv"
)

// These tests check the kustomize configuration against a real
// kube-apiserver (envtest): everything `make deploy` would apply is accepted
// by the server, and the manager's RBAC is least privilege.

const (
	systemNamespace = "listkeeper-system"
	serviceAccount  = "listkeeper-controller-manager"
)

// adminUser is the system:masters user whose kubeconfig kubectl uses.
const adminUser = "config-test-admin"

var (
	env        *testenv.Env
	kubeconfig string // admin kubeconfig of the test control plane
	clientset  *kubernetes.Clientset
)

// TestMain starts a control plane without CRDs: the tests apply the
// rendered ones, as `make deploy` would.
func TestMain(m *testing.M) {
	os.Exit(testenv.Main(m, testenv.Options{
		Users: []envtest.User{{Name: adminUser, Groups: []string{"system:masters"}}},
	}, setup))
}

func setup(e *testenv.Env) error {
	env = e
	if err := e.Err(); err != nil {
		return err
	}
	var err error
	if kubeconfig, err = e.Kubeconfig(adminUser); err != nil {
		return err
	}
	if clientset, err = kubernetes.NewForConfig(e.Config()); err != nil {
		return fmt.Errorf("clientset: %w", err)
	}
	return nil
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// kubectlPath finds kubectl: /usr/bin/kubectl, else $PATH.
func kubectlPath(t *testing.T) string {
	t.Helper()
	if isFile("/usr/bin/kubectl") {
		return "/usr/bin/kubectl"
	}
	p, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatalf("kubectl is needed to render and apply the kustomize configuration: %v", err)
	}
	return p
}

// kubectl runs kubectl against the test control plane with stdin, and
// returns its standard output.
func kubectl(t *testing.T, stdin []byte, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, kubectlPath(t), append([]string{"--kubeconfig", kubeconfig}, args...)...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kubectl %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// render runs `kubectl kustomize` on a directory of config/.
func render(t *testing.T, dir string) []byte {
	t.Helper()
	cmd := exec.Command(kubectlPath(t), "kustomize", dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kubectl kustomize %s: %v\n%s", dir, err, stderr.String())
	}
	return out
}

// document is one object of a rendered stream.
type document struct {
	raw []byte
	obj *unstructured.Unstructured
}

func split(t *testing.T, stream []byte) []document {
	t.Helper()
	var docs []document
	for _, part := range bytes.Split(stream, []byte("\n---\n")) {
		if len(bytes.TrimSpace(part)) == 0 {
			continue
		}
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(part, &obj.Object); err != nil {
			t.Fatalf("parse rendered object: %v\n%s", err, part)
		}
		docs = append(docs, document{raw: part, obj: obj})
	}
	return docs
}

func join(docs []document) []byte {
	var parts [][]byte
	for _, d := range docs {
		parts = append(parts, d.raw)
	}
	return bytes.Join(parts, []byte("\n---\n"))
}

// TestDefaultAccepted renders config/default and has the API server accept
// every object: the CRDs and the namespace are applied for real (the other
// objects need them), then everything is applied with --dry-run=server.
func TestDefaultAccepted(t *testing.T) {
	env.Require(t)
	docs := split(t, render(t, "default"))

	kinds := map[string]int{}
	var prereqs []document
	var crdNames []string
	for _, d := range docs {
		kinds[d.obj.GetKind()]++
		switch d.obj.GetKind() {
		case "CustomResourceDefinition":
			prereqs = append(prereqs, d)
			crdNames = append(crdNames, "crd/"+d.obj.GetName())
		case "Namespace":
			prereqs = append(prereqs, d)
		}
		if ns := d.obj.GetNamespace(); ns != "" && ns != systemNamespace {
			t.Errorf("%s %s is in namespace %q, want %s", d.obj.GetKind(), d.obj.GetName(), ns, systemNamespace)
		}
	}
	for _, k := range []string{"Namespace", "CustomResourceDefinition", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Deployment", "Service"} {
		if kinds[k] == 0 {
			t.Errorf("the rendered configuration has no %s", k)
		}
	}
	if kinds["CustomResourceDefinition"] != 3 {
		t.Errorf("%d CRDs rendered, want 3 (ClusterExternalList, ExternalList, ListEntry)", kinds["CustomResourceDefinition"])
	}
	checkFinalizerPolicy(t, docs)
	// The policy's kinds exist from Kubernetes 1.36 on: on an older
	// kube-apiserver (make test-compat) they are left out of the dry run,
	// as docs/install.md ("The cleanup finalizer from birth") tells users
	// of such clusters to leave them out.
	served, err := testenv.ServesMutatingAdmissionPolicies(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	if !served {
		docs = slices.DeleteFunc(docs, func(d document) bool { return isFinalizerPolicy(d.obj) })
		t.Logf("kube-apiserver %s does not serve MutatingAdmissionPolicy: the finalizer policy is not dry-run", env.ServerVersion().GitVersion)
	}

	kubectl(t, join(prereqs), "apply", "-f", "-")
	kubectl(t, nil, append([]string{"wait", "--for=condition=Established", "--timeout=60s"}, crdNames...)...)

	out := kubectl(t, join(docs), "apply", "--dry-run=server", "-f", "-")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(docs) {
		t.Errorf("kubectl reported %d objects, %d were rendered:\n%s", len(lines), len(docs), out)
	}
	for _, l := range lines {
		if !strings.HasSuffix(l, "(server dry run)") {
			t.Errorf("unexpected kubectl output line: %q", l)
		}
	}
	t.Logf("accepted by the API server:\n%s", out)

	t.Run("network-policy", func(t *testing.T) {
		policies := split(t, render(t, "network-policy"))
		out := kubectl(t, join(policies), "apply", "--dry-run=server", "-f", "-")
		if !strings.Contains(out, "(server dry run)") {
			t.Errorf("network policy not accepted:\n%s", out)
		}
		// The policy must select the manager's pods, or it restricts
		// nothing.
		var podLabels map[string]string
		for _, d := range docs {
			if d.obj.GetKind() == "Deployment" {
				podLabels, _, _ = unstructured.NestedStringMap(d.obj.Object, "spec", "template", "metadata", "labels")
			}
		}
		for _, p := range policies {
			sel, _, err := unstructured.NestedStringMap(p.obj.Object, "spec", "podSelector", "matchLabels")
			if err != nil || len(sel) == 0 {
				t.Fatalf("%s has no podSelector.matchLabels: %v", p.obj.GetName(), err)
			}
			for k, v := range sel {
				if podLabels[k] != v {
					t.Errorf("%s selects %s=%s, which the manager's pods (%v) do not carry", p.obj.GetName(), k, v, podLabels)
				}
			}
			if p.obj.GetNamespace() != systemNamespace {
				t.Errorf("%s is in namespace %q, want %s", p.obj.GetName(), p.obj.GetNamespace(), systemNamespace)
			}
		}
	})

	t.Run("samples", func(t *testing.T) {
		out := kubectl(t, render(t, "samples"), "apply", "--dry-run=server", "--namespace=default", "-f", "-")
		if !strings.Contains(out, "(server dry run)") {
			t.Errorf("samples not accepted:\n%s", out)
		}
	})
}

// isFinalizerPolicy reports whether obj is of config/finalizer-policy.
func isFinalizerPolicy(obj *unstructured.Unstructured) bool {
	return obj.GetAPIVersion() == "admissionregistration.k8s.io/v1" &&
		(obj.GetKind() == "MutatingAdmissionPolicy" || obj.GetKind() == "MutatingAdmissionPolicyBinding")
}

// checkFinalizerPolicy: config/default carries one MutatingAdmissionPolicy
// that adds the cleanup finalizer to ListEntries on CREATE, and one
// binding that names it by its prefixed name, both cluster-scoped (no
// namespace).
func checkFinalizerPolicy(t *testing.T, docs []document) {
	t.Helper()
	var policies, bindings []*unstructured.Unstructured
	for _, d := range docs {
		switch {
		case !isFinalizerPolicy(d.obj):
		case d.obj.GetKind() == "MutatingAdmissionPolicy":
			policies = append(policies, d.obj)
		default:
			bindings = append(bindings, d.obj)
		}
	}
	if len(policies) != 1 || len(bindings) != 1 {
		t.Fatalf("config/default renders %d MutatingAdmissionPolicies and %d bindings, want 1 of each (config/finalizer-policy)", len(policies), len(bindings))
	}
	p, b := policies[0], bindings[0]
	for _, o := range []*unstructured.Unstructured{p, b} {
		if o.GetNamespace() != "" {
			t.Errorf("%s %s has namespace %q; it is cluster-scoped", o.GetKind(), o.GetName(), o.GetNamespace())
		}
		if !strings.HasPrefix(o.GetName(), "listkeeper-") {
			t.Errorf("%s %s lacks config/default's name prefix", o.GetKind(), o.GetName())
		}
	}
	if name, _, _ := unstructured.NestedString(b.Object, "spec", "policyName"); name != p.GetName() {
		t.Errorf("the binding names policy %q, the policy is %q", name, p.GetName())
	}
	rules, _, _ := unstructured.NestedSlice(p.Object, "spec", "matchConstraints", "resourceRules")
	if len(rules) != 1 {
		t.Fatalf("policy resourceRules %v, want one", rules)
	}
	rule := rules[0].(map[string]any)
	for field, want := range map[string]string{"apiGroups": "listkeeper.dev", "resources": "listentries", "operations": "CREATE"} {
		if got, _ := rule[field].([]any); len(got) != 1 || got[0] != want {
			t.Errorf("policy resourceRules %s = %v, want [%s]", field, rule[field], want)
		}
	}
	mutations, _, _ := unstructured.NestedSlice(p.Object, "spec", "mutations")
	if len(mutations) != 1 || !strings.Contains(fmt.Sprint(mutations[0]), `"listkeeper.dev/cleanup"`) {
		t.Errorf("policy mutations %v, want one that adds listkeeper.dev/cleanup", mutations)
	}
}

// TestManagerRoleLeastPrivilege reads config/rbac/role.yaml (generated
// from the +kubebuilder:rbac markers) and checks that the manager gets only
// what it needs.
func TestManagerRoleLeastPrivilege(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("rbac", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var role rbacv1.ClusterRole
	if err := yaml.UnmarshalStrict(raw, &role); err != nil {
		t.Fatalf("parse role.yaml: %v", err)
	}
	if len(role.Rules) == 0 {
		t.Fatal("role.yaml has no rules")
	}
	for i, r := range role.Rules {
		for _, field := range [][]string{r.APIGroups, r.Resources, r.Verbs, r.ResourceNames} {
			if slices.Contains(field, "*") {
				t.Errorf("rule %d grants a wildcard: %+v", i, r)
			}
		}
		if len(r.NonResourceURLs) > 0 {
			t.Errorf("rule %d grants non-resource URLs: %+v", i, r)
		}
		for _, res := range r.Resources {
			for _, verb := range r.Verbs {
				switch {
				case res == "secrets" && !slices.Contains([]string{"get", "list", "watch"}, verb):
					t.Errorf("Secrets: verb %q granted; only get, list and watch are needed", verb)
				case verb == "create" && res != "events" && res != "listentries":
					t.Errorf("%s %v/%s granted; only events (and ListEntries, dry run) may be created", verb, r.APIGroups, res)
				case verb == "delete" || verb == "deletecollection":
					t.Errorf("%s %v/%s granted", verb, r.APIGroups, res)
				case verb == "escalate" || verb == "bind" || verb == "impersonate":
					t.Errorf("%s %v/%s granted", verb, r.APIGroups, res)
				}
			}
		}
	}

	// And what the controllers need is there.
	need := []struct{ group, resource, verb string }{
		{"listkeeper.dev", "listentries", "watch"},
		{"listkeeper.dev", "listentries", "patch"},
		{"listkeeper.dev", "listentries/status", "patch"},
		{"listkeeper.dev", "listentries/finalizers", "update"},
		{"listkeeper.dev", "externallists", "watch"},
		{"listkeeper.dev", "externallists/status", "patch"},
		// The cleanup finalizer of deletionPolicy Delete.
		{"listkeeper.dev", "externallists", "patch"},
		{"listkeeper.dev", "externallists/finalizers", "update"},
		{"", "secrets", "get"},
		{"", "secrets", "watch"},
		{"events.k8s.io", "events", "create"},
		{"events.k8s.io", "events", "patch"},
		// The probe of the finalizer policy: a dry-run create
		// (internal/finalizerpolicy). RBAC cannot grant dry runs only.
		{"listkeeper.dev", "listentries", "create"},
	}
	for _, n := range need {
		if !grants(role.Rules, n.group, n.resource, n.verb) {
			t.Errorf("role.yaml does not grant %s %s/%s, which the controllers use", n.verb, n.group, n.resource)
		}
	}
	for _, deny := range []struct{ group, resource, verb string }{
		{"listkeeper.dev", "externallists", "update"},
		{"listkeeper.dev", "externallists", "delete"},
		{"listkeeper.dev", "listentries", "delete"},
		{"", "secrets", "update"},
		{"", "configmaps", "get"},
	} {
		if grants(role.Rules, deny.group, deny.resource, deny.verb) {
			t.Errorf("role.yaml grants %s %s/%s, which the controllers never do", deny.verb, deny.group, deny.resource)
		}
	}
}

func grants(rules []rbacv1.PolicyRule, group, resource, verb string) bool {
	for _, r := range rules {
		if slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) && slices.Contains(r.Verbs, verb) {
			return true
		}
	}
	return false
}

// TestManagerServiceAccountAccess applies the manager's RBAC for real and
// asks the API server's authorizer what the manager's service account may
// do.
func TestManagerServiceAccountAccess(t *testing.T) {
	env.Require(t)
	var rbac []document
	for _, d := range split(t, render(t, "default")) {
		switch d.obj.GetKind() {
		case "Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding":
			rbac = append(rbac, d)
		}
	}
	kubectl(t, join(rbac), "apply", "-f", "-")

	user := "system:serviceaccount:" + systemNamespace + ":" + serviceAccount
	tests := []struct {
		group, resource, sub, verb, ns string
		allowed                        bool
	}{
		{"listkeeper.dev", "listentries", "", "watch", "team-a", true},
		{"listkeeper.dev", "listentries", "finalizers", "update", "team-a", true},
		{"listkeeper.dev", "listentries", "", "create", "team-a", true},
		{"listkeeper.dev", "listentries", "", "create", systemNamespace, true},
		{"listkeeper.dev", "externallists", "status", "patch", "team-a", true},
		{"", "secrets", "", "get", "team-a", true},
		{"events.k8s.io", "events", "", "create", "team-a", true},
		{"", "secrets", "", "create", "team-a", false},
		{"", "secrets", "", "delete", "team-a", false},
		{"listkeeper.dev", "listentries", "", "delete", "team-a", false},
		{"listkeeper.dev", "externallists", "", "update", "team-a", false},
		{"", "pods", "", "list", "team-a", false},
		{"coordination.k8s.io", "leases", "", "create", "team-a", false},
		{"coordination.k8s.io", "leases", "", "watch", "team-a", false},
		// Every replica's own Lease (membership) lives in the operator's
		// own namespace only.
		{"coordination.k8s.io", "leases", "", "create", systemNamespace, true},
		{"coordination.k8s.io", "leases", "", "update", systemNamespace, true},
		{"coordination.k8s.io", "leases", "", "watch", systemNamespace, true},
		{"coordination.k8s.io", "leases", "", "delete", systemNamespace, true},
	}
	for _, tc := range tests {
		name := fmt.Sprintf("%s %s.%s.%s in %s", tc.verb, tc.resource, tc.sub, tc.group, tc.ns)
		t.Run(name, func(t *testing.T) {
			var allowed bool
			// RBAC caches in the authorizer: poll briefly after the apply.
			deadline := time.Now().Add(10 * time.Second)
			for {
				sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
					User:   user,
					Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + systemNamespace, "system:authenticated"},
					ResourceAttributes: &authorizationv1.ResourceAttributes{
						Namespace: tc.ns, Verb: tc.verb, Group: tc.group, Resource: tc.resource, Subresource: tc.sub,
					},
				}}
				res, err := clientset.AuthorizationV1().SubjectAccessReviews().Create(context.Background(), sar, metav1.CreateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				allowed = res.Status.Allowed
				if allowed == tc.allowed || time.Now().After(deadline) {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if allowed != tc.allowed {
				t.Errorf("allowed = %t, want %t", allowed, tc.allowed)
			}
		})
	}
}

// TestFakeAPIAccepted renders config/fakeapi (the in-cluster fake list
// server of the quick start in a cluster) and has the API server accept
// it, with the samples applied in its namespace as docs/install.md ("Quick
// start in a cluster (kind or minikube)") says.
func TestFakeAPIAccepted(t *testing.T) {
	env.Require(t)
	docs := split(t, render(t, "fakeapi"))
	var ns []document
	kinds := map[string]int{}
	for _, d := range docs {
		kinds[d.obj.GetKind()]++
		if d.obj.GetKind() == "Namespace" {
			ns = append(ns, d)
			if got := d.obj.GetLabels()["pod-security.kubernetes.io/enforce"]; got != "restricted" {
				t.Errorf("namespace %s enforces Pod Security %q, want restricted", d.obj.GetName(), got)
			}
		} else if got := d.obj.GetNamespace(); got != demoNamespace {
			t.Errorf("%s %s is in namespace %q, want %s", d.obj.GetKind(), d.obj.GetName(), got, demoNamespace)
		}
	}
	for _, k := range []string{"Namespace", "Secret", "Deployment", "Service"} {
		if kinds[k] != 1 {
			t.Errorf("config/fakeapi renders %d %s, want 1", kinds[k], k)
		}
	}
	kubectl(t, join(ns), "apply", "-f", "-")
	out := kubectl(t, join(docs), "apply", "--dry-run=server", "-f", "-")
	if n := strings.Count(out, "(server dry run)"); n != len(docs) {
		t.Errorf("%d of %d objects accepted:\n%s", n, len(docs), out)
	}

	// The samples point at the Service; they are applied in its namespace.
	var url string
	for _, d := range split(t, render(t, "samples")) {
		if d.obj.GetKind() == "ExternalList" {
			url, _, _ = unstructured.NestedString(d.obj.Object, "spec", "url")
		}
	}
	if want := "http://fakeapi." + demoNamespace + ".svc.cluster.local:8090/"; !strings.HasPrefix(url, want) {
		t.Errorf("the sample ExternalList's url is %q, want it under %s (config/fakeapi's Service)", url, want)
	}
}

// demoNamespace is where config/fakeapi puts the fake list server.
const demoNamespace = "listkeeper-demo"
