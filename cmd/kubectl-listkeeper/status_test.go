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
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/listconfig"
	"github.com/listkeeper/listkeeper/internal/membership"
)

// listURL is a list URL of its own for the test working in namespace ns:
// every list in the cluster that names one document competes for its
// claim, whichever test created it.
func listURL(ns string) string { return "http://127.0.0.1:8090/lists/" + ns }

// statusFixture is a list with entries in every state, and the Leases of
// two replicas in the operator's namespace, one of which claims the
// list's document.
type statusFixture struct {
	ns, opNS string
	url      string
	now      time.Time
	docID    string
	bucket   int
}

func newStatusFixture(t *testing.T, prefix string) statusFixture {
	t.Helper()
	c, ctx := kube(t), context.Background()
	f := statusFixture{ns: newNamespace(t, prefix), opNS: newNamespace(t, prefix+"-operator")}
	f.url = listURL(f.ns)
	f.docID = listconfig.DocumentIDOfURL(f.url)
	f.bucket = membership.Bucket(listconfig.DocumentBucketKey(f.docID), membership.DefaultBuckets)

	l := &v1alpha1.ExternalList{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "allow-list"},
		Spec:       v1alpha1.ExternalListSpec{URL: f.url + "?token=secret", ItemsPointer: "/items"},
	}
	if err := c.Create(ctx, l); err != nil {
		t.Fatal(err)
	}
	ref := v1alpha1.ListReference{Name: "allow-list"}
	// The terminating entry is deleted first: its deletion time sets the
	// clock, so that every "ago" in the output is fixed.
	gone := createEntry(t, f.ns, "tenant-gone", ref)
	gone.Finalizers = []string{v1alpha1.FinalizerName}
	if err := c.Update(ctx, gone); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, gone); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(gone), gone); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		gone.Finalizers = nil
		_ = c.Update(context.Background(), gone)
	})
	f.now = gone.DeletionTimestamp.Add(5 * time.Minute)
	earlier := f.now.Add(-3 * time.Minute)

	for _, name := range []string{"tenant-a", "tenant-b", "tenant-c"} {
		createEntry(t, f.ns, name, ref, cond(v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonAdded, "on the list", earlier))
	}
	createEntry(t, f.ns, "tenant-d", ref, cond(v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonListUnreachable, "connection refused", earlier))
	createEntry(t, f.ns, "tenant-e", ref, cond(v1alpha1.ConditionReady, metav1.ConditionUnknown, v1alpha1.ReasonProgressing, "adding", earlier))
	createEntry(t, f.ns, "tenant-new", ref)
	createEntry(t, f.ns, "elsewhere", v1alpha1.ListReference{Name: "another-list"}, cond(v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonListNotFound, "no list", earlier))

	l.Status = v1alpha1.ExternalListStatus{
		Conditions:       []metav1.Condition{cond(v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, "53 items", earlier)},
		ItemCount:        53,
		ForeignItemCount: 50,
		EntryCount:       5,
		LastSyncTime:     ptr.To(metav1.NewTime(f.now.Add(-12 * time.Second))),
		RedactedURL:      f.url + "?token=REDACTED",
		DocumentID:       f.docID,
	}
	setStatus(t, l)

	n := membership.DefaultBuckets
	createLease(t, f.opNS, "manager-0-7f3a", "listkeeper-controller-manager", []int{f.bucket}, n, f.now.Add(-time.Second))
	createLease(t, f.opNS, "manager-1-c21b", "listkeeper-controller-manager", []int{(f.bucket + 1) % n}, n, f.now.Add(-time.Second))
	return f
}

func TestStatus(t *testing.T) {
	f := newStatusFixture(t, "status-demo")
	e, out := testEnvFor(t, f.ns, f.now)
	q := ownerQuery{Namespace: f.opNS, Buckets: membership.DefaultBuckets}
	if err := runStatus(context.Background(), e, ref{Kind: kindExternalList, Namespace: f.ns, Name: "allow-list"}, statusOptions{owner: q}); err != nil {
		t.Fatal(err)
	}
	t.Logf("output:\n%s", out)
	want := []string{
		"ExternalList " + f.ns + "/allow-list",
		"Ready:        True (Ready), since 3m ago",
		"Claim:        holds the claim on its document",
		"Owner:        manager-0-7f3a (Lease manager-0-7f3a, group listkeeper-controller-manager, bucket " + itoa(f.bucket) + " of 256, renewed 1s ago)",
		"Mode:         Additive",
		"Items:        53 (foreign: 50)",
		"Entries:      7 (the operator counts 5 live)",
		"                Ready=True Added             3",
		"                Ready=False ListUnreachable  1",
		"                Ready=Unknown Progressing    1",
		"                no status yet                1",
		"                Terminating                  1 (the oldest deleted 5m ago)",
		"Last sync:    " + f.now.Add(-12*time.Second).UTC().Format(time.RFC3339) + " (12s ago)",
		"Last error:   none",
		"URL:          " + f.url + "?token=REDACTED",
		"Document ID:  " + f.docID,
		"Finalizer:    " + wantFinalizer(f.ns),
	}
	if got := lines(out.String()); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("status output:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// wantFinalizer is the Finalizer row of status for a list in ns: testenv
// installs the finalizer policy where the kube-apiserver serves it (1.37,
// make test), not on 1.31 (make test-compat).
func wantFinalizer(ns string) string {
	if testEnv.FinalizerPolicy() {
		return "from birth: the API server adds listkeeper.dev/cleanup to every new ListEntry in " + ns + " (MutatingAdmissionPolicy)"
	}
	return "patched on by the operator: the API server does not add listkeeper.dev/cleanup to new ListEntries in " + ns +
		" (no MutatingAdmissionPolicy; it needs Kubernetes 1.36 or later)"
}

func TestStatusJSON(t *testing.T) {
	f := newStatusFixture(t, "status-json")
	e, out := testEnvFor(t, f.ns, f.now)
	q := ownerQuery{Namespace: f.opNS, Group: "listkeeper-controller-manager", Buckets: membership.DefaultBuckets}
	if err := runStatus(context.Background(), e, ref{Kind: kindExternalList, Namespace: f.ns, Name: "allow-list"}, statusOptions{owner: q, output: outputJSON}); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("-o json is not JSON: %v\n%s", err, out)
	}
	// The fields scripts read, by their JSON paths.
	want := map[string]any{
		"kind": "ExternalList", "namespace": f.ns, "name": "allow-list", "mode": "Additive",
		"ready.status": "True", "ready.reason": "Ready",
		"claim.known": true, "claim.held": true,
		"owner.holder": "manager-0-7f3a", "owner.lease": "manager-0-7f3a", "owner.bucket": float64(f.bucket), "owner.buckets": float64(256),
		"entries.total": float64(7), "entries.noStatus": float64(1), "entries.terminating": float64(1),
		"entryCount": float64(5), "itemCount": float64(53), "foreignItemCount": float64(50),
		"lastSyncTime": f.now.Add(-12 * time.Second).UTC().Format(time.RFC3339),
		"redactedURL":  f.url + "?token=REDACTED", "documentID": f.docID,
		"finalizerAtBirth.known": true, "finalizerAtBirth.active": testEnv.FinalizerPolicy(), "finalizerAtBirth.namespace": f.ns,
	}
	for path, w := range want {
		var v any = got
		for _, k := range strings.Split(path, ".") {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		if v != w {
			t.Errorf("%s = %#v, want %#v", path, v, w)
		}
	}
	if _, ok := got["lastError"]; ok {
		t.Errorf("lastError is set for a Ready list: %v", got["lastError"])
	}
	if n := len(got["entries"].(map[string]any)["ready"].([]any)); n != 3 {
		t.Errorf("entries.ready has %d rows, want 3", n)
	}
}

// TestStatusNotHolder: a list whose document another list claims, seen by
// an administrator and by a user who may read only its namespace (no
// other namespace, no ClusterExternalList, no Lease).
func TestStatusNotHolder(t *testing.T) {
	ctx := context.Background()
	nsA, nsB := newNamespace(t, "holder"), newNamespace(t, "second")
	url := listURL(nsA)
	now := time.Now().Truncate(time.Second)
	holder := createList(t, &v1alpha1.ExternalList{
		ObjectMeta: metav1.ObjectMeta{Namespace: nsA, Name: "first"},
		Spec:       v1alpha1.ExternalListSpec{URL: url},
	})
	afterCreation(holder)
	msg := "the document and items pointer this list names are claimed by another list: only the claim's holder writes the document; delete one of the lists, or point this one at another document"
	createList(t, &v1alpha1.ExternalList{
		ObjectMeta: metav1.ObjectMeta{Namespace: nsB, Name: "copy"},
		Spec:       v1alpha1.ExternalListSpec{URL: url + "?sig=abc"},
		Status: v1alpha1.ExternalListStatus{Conditions: []metav1.Condition{
			cond(v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse, msg, now),
			cond(v1alpha1.ConditionStalled, metav1.ConditionTrue, v1alpha1.ReasonDocumentInUse, msg, now)}},
	})
	r := ref{Kind: kindExternalList, Namespace: nsB, Name: "copy"}
	q := ownerQuery{Namespace: newNamespace(t, "operator"), Buckets: membership.DefaultBuckets}

	e, out := testEnvFor(t, nsB, now)
	if err := runStatus(ctx, e, r, statusOptions{owner: q}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Claim:        does not hold the claim on its document: another list does\n",
		"Last error:   DocumentInUse: " + msg + "\n",
		"Owner:        unknown, bucket ",
		"no member Lease in namespace " + q.Namespace + ": is the operator in another namespace (--operator-namespace)?",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("status of %s as the admin does not contain %q:\n%s", r, want, out)
		}
	}

	grantNamespaceReader(t, nsB)
	kubeconfig, err := testEnv.Kubeconfig(limitedUser)
	if err != nil {
		t.Fatal(err)
	}
	limited, err := connect(&options{kubeconfig: kubeconfig, namespace: nsB})
	if err != nil {
		t.Fatal(err)
	}
	if limited.namespace != nsB {
		t.Errorf("-n %s: the env's namespace is %q", nsB, limited.namespace)
	}
	out.Reset()
	limited.out, limited.clock = out, e.clock
	if err := runStatus(ctx, limited, r, statusOptions{owner: q}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Claim:        does not hold the claim on its document: a list you cannot read does (the operator reports DocumentInUse; no list you can read claims the document before this one)\n",
		`Owner:        unknown, bucket `,
		`list member Leases in namespace ` + q.Namespace + `: leases.coordination.k8s.io is forbidden`,
		// The user may not create entries, not even as a dry run: the
		// command says so and goes on.
		"Finalizer:    unknown (you may not create ListEntries in namespace " + nsB + ", and the check is a dry-run create;",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("status of %s as %s does not contain %q:\n%s", r, limitedUser, want, out)
		}
	}
}

// TestStatusClusterList: a ClusterExternalList's entries are counted in
// every namespace.
func TestStatusClusterList(t *testing.T) {
	c, ctx := kube(t), context.Background()
	nsA, nsB := newNamespace(t, "cluster-a"), newNamespace(t, "cluster-b")
	name := nsA // unique in the cluster
	l := &v1alpha1.ClusterExternalList{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       v1alpha1.ClusterExternalListSpec{ExternalListSpec: v1alpha1.ExternalListSpec{URL: listURL(name)}},
	}
	if err := c.Create(ctx, l); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), l) })
	now := time.Now().Truncate(time.Second)
	lr := v1alpha1.ListReference{Kind: v1alpha1.ListKindClusterExternalList, Name: name}
	createEntry(t, nsA, "a", lr, cond(v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonAdded, "", now))
	createEntry(t, nsB, "b", lr, cond(v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonNamespaceNotAllowed, "", now))
	createEntry(t, nsB, "not-this-one", v1alpha1.ListReference{Name: name}, cond(v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonAdded, "", now))

	e, out := testEnvFor(t, nsA, now)
	q := ownerQuery{Namespace: nsA, Buckets: membership.DefaultBuckets}
	if err := runStatus(ctx, e, listRef(kindClusterExternalList, "", name), statusOptions{owner: q}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"ClusterExternalList " + name + "\n",
		"Ready:        no status yet: the operator has not reconciled the list\n",
		"Entries:      2 (the operator counts 0 live)\n",
		"Ready=True Added                 1\n",
		"Ready=False NamespaceNotAllowed  1\n",
		"Last sync:    never\n",
		// The entries of a ClusterExternalList live in many namespaces:
		// the check runs in the user's.
		"Finalizer:    " + wantFinalizer(nsA) + "\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("status does not contain %q:\n%s", want, out)
		}
	}
}

func listRef(k kind, ns, name string) ref { return ref{Kind: k, Namespace: ns, Name: name} }
