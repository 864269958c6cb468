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

package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/membership"
	"github.com/listkeeper/listkeeper/internal/testenv"
)

// The envtest suite: one kube-apiserver for the package (testenv). Tests
// create the objects the operator would, and write their status through
// the status subresource as the operator does; no operator runs, except
// the fake one of reconcile_test.go. Each test works in its own
// namespaces.

// Users of the control plane: the admin, and a user that may only read
// what a Role in one namespace grants (see grantNamespaceReader).
const (
	adminUser   = "admin"
	limitedUser = "alice"
)

var testEnv *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.Main(m, testenv.Options{
		CRDDirectory: testenv.ProjectCRDs,
		Users: []envtest.User{
			{Name: adminUser, Groups: []string{"system:masters"}},
			{Name: limitedUser},
		},
	}, func(e *testenv.Env) error {
		testEnv = e
		return e.Err()
	}))
}

// kube returns the admin client, failing t when envtest is not available.
func kube(t *testing.T) client.Client {
	t.Helper()
	testEnv.Require(t)
	return testEnv.Client()
}

// newNamespace creates a namespace whose name starts with prefix.
func newNamespace(t *testing.T, prefix string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	if err := kube(t).Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// testEnvFor is an env around the admin client with namespace ns and a
// fixed clock.
func testEnvFor(t *testing.T, ns string, now time.Time) (*env, *bytes.Buffer) {
	t.Helper()
	out := &bytes.Buffer{}
	return &env{c: kube(t), namespace: ns, out: out, clock: func() time.Time { return now }}, out
}

// createList creates an ExternalList and then writes its status, as the
// operator would.
func createList(t *testing.T, l *v1alpha1.ExternalList) *v1alpha1.ExternalList {
	t.Helper()
	c, ctx := kube(t), context.Background()
	st := l.Status
	if err := c.Create(ctx, l); err != nil {
		t.Fatal(err)
	}
	l.Status = st
	setStatus(t, l)
	return l
}

// setStatus writes obj's status through the status subresource.
func setStatus(t *testing.T, obj client.Object) {
	t.Helper()
	if err := kube(t).Status().Update(context.Background(), obj); err != nil {
		t.Fatalf("status of %s: %v", obj.GetName(), err)
	}
}

// createEntry creates a ListEntry of list with id, and writes its status
// with conds.
func createEntry(t *testing.T, ns, name string, list v1alpha1.ListReference, conds ...metav1.Condition) *v1alpha1.ListEntry {
	t.Helper()
	le := &v1alpha1.ListEntry{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       v1alpha1.ListEntrySpec{ListRef: list, ID: name},
	}
	if err := kube(t).Create(context.Background(), le); err != nil {
		t.Fatal(err)
	}
	if len(conds) > 0 {
		le.Status.Conditions = conds
		le.Status.ObservedGeneration = le.Generation
		setStatus(t, le)
	}
	return le
}

// cond is a condition for generation 1 that changed at since.
func cond(typ string, status metav1.ConditionStatus, reason, msg string, since time.Time) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: msg, ObservedGeneration: 1, LastTransitionTime: metav1.NewTime(since)}
}

// createLease creates a member Lease in ns, as a replica with identity
// holder in group would hold it, claiming buckets of n.
func createLease(t *testing.T, ns, holder, group string, buckets []int, n int, renewed time.Time) {
	t.Helper()
	seconds := int32(membership.DefaultLeaseDuration / time.Second)
	renew := metav1.NewMicroTime(renewed)
	l := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: holder,
			Labels:      map[string]string{membership.LabelMember: group},
			Annotations: map[string]string{membership.AnnotationBuckets: membership.EncodeBuckets(buckets, n)},
		},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &seconds, RenewTime: &renew, AcquireTime: &renew},
	}
	if err := kube(t).Create(context.Background(), l); err != nil {
		t.Fatal(err)
	}
}

// grantNamespaceReader lets limitedUser read and annotate listkeeper's
// objects in ns, and nothing else.
func grantNamespaceReader(t *testing.T, ns string) {
	t.Helper()
	c, ctx := kube(t), context.Background()
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "listkeeper-reader"},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{v1alpha1.GroupVersion.Group},
			Resources: []string{"externallists", "listentries"},
			Verbs:     []string{"get", "list", "watch", "patch"},
		}},
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "listkeeper-reader"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: limitedUser}},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
	}
	for _, o := range []client.Object{role, binding} {
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
}

// lines splits output into lines without trailing spaces.
func lines(s string) []string {
	out := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := range out {
		out[i] = strings.TrimRight(out[i], " ")
	}
	return out
}

// afterCreation waits until the clock has passed the second obj was
// created in (creation times have seconds), so that what is created next
// is younger in the claim order than obj.
func afterCreation(obj client.Object) {
	time.Sleep(time.Until(obj.GetCreationTimestamp().Add(time.Second)))
}
