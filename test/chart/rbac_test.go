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
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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
		ensureNamespace(t, n, nil)
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
				ensureNamespace(t, tc.watch, nil)
			}
			r := render(t, renderOpts{release: "lks" + tc.name[:2], namespace: ns, values: values})
			ensureNamespace(t, ns, nil)
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
