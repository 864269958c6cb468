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
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
)

// TestWatchNamespaceRBAC installs the chart's RBAC for real with
// watchNamespace set, and asks the API server's authorizer what the
// manager's service account may do: everything the controllers need in the
// watched namespace, its Leases in the release namespace, and nothing in
// another namespace or cluster-wide.
func TestWatchNamespaceRBAC(t *testing.T) {
	env.Require(t)
	const ns, watch, other = "lk-rbac", "lk-rbac-watched", "lk-rbac-other"
	r := render(t, renderOpts{release: "lkr", namespace: ns, values: map[string]any{"watchNamespace": watch}})
	for _, n := range []string{ns, watch, other} {
		ensureNamespace(t, env, n, nil)
	}
	var rbac []*unstructured.Unstructured
	for _, o := range r.objs {
		switch o.GetKind() {
		case "ServiceAccount", "Role", "RoleBinding":
			rbac = append(rbac, o)
		}
	}
	if len(rbac) != 5 {
		t.Fatalf("%d ServiceAccounts, Roles and RoleBindings rendered, want 5", len(rbac))
	}
	createForReal(t, rbac...)

	sa := r.all("ServiceAccount")[0].GetName()
	user := "system:serviceaccount:" + ns + ":" + sa
	groups := []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}
	tests := []struct {
		group, resource, sub, verb, ns string
		allowed                        bool
	}{
		{"listkeeper.dev", "listentries", "", "list", watch, true},
		{"listkeeper.dev", "listentries", "", "watch", watch, true},
		{"listkeeper.dev", "listentries", "finalizers", "update", watch, true},
		{"listkeeper.dev", "listentries", "status", "patch", watch, true},
		// The finalizer policy's probe, a dry-run create, runs in the
		// watched namespace (controller.Options.WatchNamespace): the
		// operator's own is not served.
		{"listkeeper.dev", "listentries", "", "create", watch, true},
		{"listkeeper.dev", "listentries", "", "create", ns, false},
		{"listkeeper.dev", "externallists", "", "watch", watch, true},
		{"listkeeper.dev", "externallists", "status", "patch", watch, true},
		{"", "secrets", "", "get", watch, true},
		{"", "secrets", "", "watch", watch, true},
		{"events.k8s.io", "events", "", "create", watch, true},
		{"coordination.k8s.io", "leases", "", "create", ns, true},
		{"coordination.k8s.io", "leases", "", "watch", ns, true},
		{"coordination.k8s.io", "leases", "", "delete", ns, true},

		{"listkeeper.dev", "listentries", "", "list", other, false},
		{"listkeeper.dev", "listentries", "", "watch", other, false},
		{"listkeeper.dev", "externallists", "", "watch", other, false},
		{"", "secrets", "", "get", other, false},
		{"", "secrets", "", "list", ns, false},
		{"listkeeper.dev", "listentries", "", "list", "", false}, // cluster-wide
		{"", "secrets", "", "watch", "", false},
		{"listkeeper.dev", "listentries", "", "delete", watch, false},
		{"", "secrets", "", "create", watch, false},
		{"coordination.k8s.io", "leases", "", "create", watch, false},
		{"coordination.k8s.io", "leases", "", "create", other, false},
	}
	for _, tc := range tests {
		name := fmt.Sprintf("%s %s.%s.%s in %q", tc.verb, tc.resource, tc.sub, tc.group, tc.ns)
		t.Run(name, func(t *testing.T) {
			if got := access(t, user, groups, tc.ns, tc.verb, tc.group, tc.resource, tc.sub, tc.allowed); got != tc.allowed {
				t.Errorf("allowed = %t, want %t", got, tc.allowed)
			}
		})
	}
}

// access asks a SubjectAccessReview. RBAC reaches the authorizer through
// an informer, so a fresh binding takes a moment: the question is asked
// again until the answer is the expected one or ten seconds passed.
func access(t *testing.T, user string, groups []string, ns, verb, group, resource, sub string, expect bool) bool {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(10 * time.Second)
	for {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: user, Groups: groups,
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: verb, Group: group, Resource: resource, Subresource: sub},
		}}
		if err := env.Client().Create(ctx, sar); err != nil {
			t.Fatalf("SubjectAccessReview: %v", err)
		}
		if sar.Status.Allowed == expect || time.Now().After(deadline) {
			return sar.Status.Allowed
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestSecretAccessGetRBAC: with secretAccess get, the manager may get the
// Secrets of the namespaces it serves, and neither list nor watch any:
// cluster-wide (the default mode) and with watchNamespace.
func TestSecretAccessGetRBAC(t *testing.T) {
	env.Require(t)
	for _, tc := range []struct {
		name, watch string
	}{{"cluster-wide", ""}, {"watchNamespace", "lk-sget-watched"}} {
		t.Run(tc.name, func(t *testing.T) {
			ns := "lk-sget-" + map[string]string{"": "cl", "lk-sget-watched": "ns"}[tc.watch]
			values := map[string]any{"secretAccess": "get"}
			if tc.watch != "" {
				values["watchNamespace"] = tc.watch
				ensureNamespace(t, env, tc.watch, nil)
			}
			r := render(t, renderOpts{release: "lks" + tc.name[:2], namespace: ns, values: values})
			ensureNamespace(t, env, ns, nil)
			var rbac []*unstructured.Unstructured
			for _, o := range r.objs {
				switch o.GetKind() {
				case "ServiceAccount", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding":
					rbac = append(rbac, o)
				}
			}
			createForReal(t, rbac...)
			served := tc.watch
			if served == "" {
				served = "default"
			}
			sa := r.all("ServiceAccount")[0].GetName()
			user := "system:serviceaccount:" + ns + ":" + sa
			groups := []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}
			for _, q := range []struct {
				verb, ns string
				allowed  bool
			}{
				{"get", served, true},
				{"list", served, false},
				{"watch", served, false},
				{"list", "", false},
				{"watch", "", false},
			} {
				if got := access(t, user, groups, q.ns, q.verb, "", "secrets", "", q.allowed); got != q.allowed {
					t.Errorf("%s secrets in %q: allowed = %t, want %t", q.verb, q.ns, got, q.allowed)
				}
			}
			// The rest of the manager's rules are untouched.
			if !access(t, user, groups, served, "watch", "listkeeper.dev", "listentries", "", true) {
				t.Error("the manager may no longer watch ListEntries")
			}
		})
	}
}

// TestAggregatedRoles installs the chart's aggregated ClusterRoles for
// real, aggregates them into the API server's own view, edit and admin
// roles, and asks what users bound to those roles in one namespace may do:
// view reads ListEntries and ExternalLists there, edit also writes
// ListEntries, and neither edit nor admin writes ExternalLists (SECURITY.md:
// an ExternalList sends the namespace's Secrets to its author's URL).
// ClusterExternalLists are cluster-scoped: no namespace role reaches them;
// view bound cluster-wide reads them, and edit bound cluster-wide still
// writes none.
func TestAggregatedRoles(t *testing.T) {
	env.Require(t)
	const ns, team, other = "lk-agg", "lk-agg-team", "lk-agg-other"
	if off := render(t, renderOpts{release: "lka", namespace: ns, values: map[string]any{"rbac": map[string]any{"aggregate": false}}}); len(aggregateRoles(off)) != 0 {
		t.Errorf("rbac.aggregate=false renders %d aggregated ClusterRoles", len(aggregateRoles(off)))
	}
	r := render(t, renderOpts{release: "lka", namespace: ns})
	roles := aggregateRoles(r)
	if len(roles) != 2 {
		t.Fatalf("%d aggregated ClusterRoles rendered, want 2 (view, edit)", len(roles))
	}
	for _, n := range []string{ns, team, other} {
		ensureNamespace(t, env, n, nil)
	}
	createForReal(t, roles...)
	aggregate(t)

	ctx := context.Background()
	// dave and erin hold view and edit cluster-wide.
	for user, role := range map[string]string{"dave": "view", "erin": "edit"} {
		crb := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "lk-agg-" + user + "-" + role},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
		}
		if err := env.Client().Create(ctx, crb); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	for user, role := range map[string]string{"alice": "view", "bob": "edit", "carol": "admin"} {
		rb := &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: user + "-" + role, Namespace: team},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
		}
		if err := env.Client().Create(ctx, rb); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}

	tests := []struct {
		user, verb, resource, sub, ns string
		allowed                       bool
	}{
		{"alice", "get", "listentries", "", team, true},
		{"alice", "list", "listentries", "", team, true},
		{"alice", "watch", "listentries", "", team, true},
		{"alice", "get", "listentries", "status", team, true},
		{"alice", "list", "externallists", "", team, true},
		{"alice", "get", "externallists", "status", team, true},
		{"alice", "create", "listentries", "", team, false},
		{"alice", "delete", "listentries", "", team, false},
		{"alice", "list", "listentries", "", other, false},
		{"alice", "list", "clusterexternallists", "", "", false},

		{"bob", "list", "listentries", "", team, true},
		{"bob", "create", "listentries", "", team, true},
		{"bob", "update", "listentries", "", team, true},
		{"bob", "patch", "listentries", "", team, true},
		{"bob", "delete", "listentries", "", team, true},
		{"bob", "list", "externallists", "", team, true},
		{"bob", "update", "listentries", "status", team, false},
		{"bob", "create", "externallists", "", team, false},
		{"bob", "update", "externallists", "", team, false},
		{"bob", "delete", "externallists", "", team, false},
		{"bob", "create", "listentries", "", other, false},
		{"bob", "create", "clusterexternallists", "", "", false},

		{"dave", "list", "clusterexternallists", "", "", true},
		{"dave", "get", "clusterexternallists", "status", "", true},
		{"dave", "list", "listentries", "", other, true},
		{"dave", "create", "clusterexternallists", "", "", false},

		{"erin", "list", "clusterexternallists", "", "", true},
		{"erin", "create", "clusterexternallists", "", "", false},
		{"erin", "update", "clusterexternallists", "", "", false},
		{"erin", "patch", "clusterexternallists", "", "", false},
		{"erin", "delete", "clusterexternallists", "", "", false},
		{"erin", "create", "listentries", "", other, true},
		{"erin", "create", "externallists", "", other, false},

		{"carol", "create", "listentries", "", team, true},
		{"carol", "create", "externallists", "", team, false},
		{"carol", "patch", "externallists", "", team, false},
	}
	for _, tc := range tests {
		name := fmt.Sprintf("%s %s %s.%s in %q", tc.user, tc.verb, tc.resource, tc.sub, tc.ns)
		t.Run(name, func(t *testing.T) {
			if got := access(t, tc.user, []string{"system:authenticated"}, tc.ns, tc.verb, "listkeeper.dev", tc.resource, tc.sub, tc.allowed); got != tc.allowed {
				t.Errorf("allowed = %t, want %t", got, tc.allowed)
			}
		})
	}
}

// aggregateRoles returns the rendered ClusterRoles that carry an
// aggregation label.
func aggregateRoles(r rendered) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range r.all("ClusterRole") {
		for k := range o.GetLabels() {
			if strings.HasPrefix(k, "rbac.authorization.k8s.io/aggregate-to-") {
				out = append(out, o)
				break
			}
		}
	}
	return out
}

// aggregate does what kube-controller-manager's ClusterRole aggregation
// does, which envtest does not run: every ClusterRole with an
// aggregationRule (the API server's own admin, edit and view among them)
// gets the rules of the ClusterRoles its selectors match, until nothing
// changes (view feeds edit, edit feeds admin).
func aggregate(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	for round := 0; ; round++ {
		if round == 10 {
			t.Fatal("role aggregation did not settle in 10 rounds")
		}
		var all rbacv1.ClusterRoleList
		if err := env.Client().List(ctx, &all); err != nil {
			t.Fatal(err)
		}
		changed := false
		for i := range all.Items {
			role := &all.Items[i]
			if role.AggregationRule == nil {
				continue
			}
			var rules []rbacv1.PolicyRule
			for _, s := range role.AggregationRule.ClusterRoleSelectors {
				sel, err := metav1.LabelSelectorAsSelector(&s)
				if err != nil {
					t.Fatal(err)
				}
				for _, other := range all.Items {
					if other.Name == role.Name || !sel.Matches(labels.Set(other.Labels)) {
						continue
					}
					for _, rule := range other.Rules {
						if !slices.ContainsFunc(rules, func(r rbacv1.PolicyRule) bool { return reflect.DeepEqual(r, rule) }) {
							rules = append(rules, rule)
						}
					}
				}
			}
			if reflect.DeepEqual(rules, role.Rules) {
				continue
			}
			role.Rules = rules
			if err := env.Client().Update(ctx, role); err != nil {
				t.Fatalf("aggregate into ClusterRole %s: %v", role.Name, err)
			}
			changed = true
		}
		if !changed {
			return
		}
	}
}
