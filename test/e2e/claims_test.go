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

package e2e_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

const (
	claimsReplicas   = 2
	claimsBystanders = 5
	// The documents two namespaces share: through an ExternalList in
	// each, and through a ClusterExternalList.
	claimsSharedPath  = "/lists/claims-shared"
	claimsClusterPath = "/lists/claims-cluster"
	// claimsSelectLabel marks the namespace that the ClusterExternalList
	// selects.
	claimsSelectLabel = "listkeeper-e2e/claims"
	claimsTimeout     = 3 * time.Minute
	// claimsWait bounds each wait for the operator to act.
	claimsWait = 30 * time.Second
)

// TestDocumentClaims checks who may write a document that several lists
// name, with replicas that watch every namespace.
//
// Two namespaces name one document, each with an ExternalList, the second
// created more than a second after the first: the second is
// Ready=False, reason DocumentInUse, and its entries are not Ready (same
// reason), are never written and never count as holders: when the first
// namespace's entry of an ID that both hold is deleted, the ID goes.
// Once the first ExternalList is deleted, the second takes the claim and
// writes its own entries' IDs.
//
// A ClusterExternalList whose namespaceSelector selects one of two
// namespaces: the selected namespace's entries are written, the other's
// are Ready=False, reason NamespaceNotAllowed, and never written, nor
// count as holders of an ID that both hold.
//
// Each case ends with every entry deleted and the document back to its
// bystanders; the ledger checks that no version held an ID without a
// holder that the document's claim admits, and none lacked a Synced one's.
func TestDocumentClaims(t *testing.T) {
	if suite.cluster == nil {
		t.Skip("end-to-end tests need the control plane, which -short skips")
	}
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), claimsTimeout)
	defer cancel()
	e := newEnv(ctx, t, envOptions{namespace: "claims", replicas: claimsReplicas, bystanders: claimsBystanders,
		latency: time.Millisecond, allNamespaces: true, seedOnly: []string{claimsSharedPath, claimsClusterPath}})
	led := e.startLedger(ctx)
	t.Logf("setup: %d replicas watching every namespace, in %v", claimsReplicas, time.Since(began).Round(time.Millisecond))

	e.claimsByNamespaces(ctx, led)
	e.claimsByClusterList(ctx, led)
	e.checkNoPanics()
	t.Logf("total %v", time.Since(began).Round(time.Millisecond))
}

// claimsByNamespaces is the case of two namespaces that name one document
// with an ExternalList each.
func (e *env) claimsByNamespaces(ctx context.Context, led *ledger) {
	t, c := e.t, suite.cluster.Client
	start := time.Now()
	first := harness.ListObject{Namespace: "claims-a", Name: "shared", Server: e.lists, Path: claimsSharedPath}
	second := harness.ListObject{Namespace: "claims-b", Name: "shared", Server: e.lists, Path: claimsSharedPath}
	for _, l := range []harness.ListObject{first, second} {
		if err := harness.EnsureNamespace(ctx, c, l.Namespace); err != nil {
			t.Fatal(err)
		}
	}
	if err := first.Create(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := first.WaitReady(ctx, c, e.sup, claimsWait); err != nil {
		t.Fatal(err)
	}
	// Creation times have whole seconds: the second list is older only
	// if it was created in a later second.
	e.sleepOrDie(ctx, time.Now().Add(1200*time.Millisecond))
	if err := second.Create(ctx, c); err != nil {
		t.Fatal(err)
	}
	e.awaitListReason(ctx, second.Namespace, second.Name, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse)
	e.awaitListReason(ctx, first.Namespace, first.Name, metav1.ConditionTrue, "")
	t.Logf("namespaces: %s/%s holds the claim; %s/%s, created later, is DocumentInUse", first.Namespace, first.Name, second.Namespace, second.Name)

	inFirst := e.entriesOf(first.Namespace, first.Name, "")
	inSecond := e.entriesOf(second.Namespace, second.Name, "")
	mustCreate(ctx, t, inFirst, "a-both", "claims-both")
	mustCreate(ctx, t, inSecond, "b-both", "claims-both")
	mustCreate(ctx, t, inSecond, "b-only", "claims-b-only")
	e.awaitEntryReason(ctx, first.Namespace, "a-both", metav1.ConditionTrue, v1alpha1.ReasonAdded)
	for _, name := range []string{"b-both", "b-only"} {
		e.awaitEntryReason(ctx, second.Namespace, name, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse)
	}
	e.awaitDocument(ctx, claimsSharedPath, "claims-both")
	t.Logf("  %s's entry is written; %s's two entries are DocumentInUse and not written", first.Namespace, second.Namespace)

	// The second namespace's entry does not hold the ID that both name.
	mustDelete(ctx, t, inFirst, "a-both")
	e.awaitGone(ctx, first.Namespace, "a-both")
	e.awaitDocument(ctx, claimsSharedPath)
	for _, name := range []string{"b-both", "b-only"} {
		e.awaitEntryReason(ctx, second.Namespace, name, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse)
	}
	t.Logf("  %s's entry deleted: the ID both named is off the list, though %s's entry names it", first.Namespace, second.Namespace)
	firstGone := e.deleteList(ctx, first.Namespace, first.Name)

	// With the first list gone, the second takes the claim.
	claimed := e.awaitListReason(ctx, second.Namespace, second.Name, metav1.ConditionTrue, "")
	for _, name := range []string{"b-both", "b-only"} {
		e.awaitEntryReason(ctx, second.Namespace, name, metav1.ConditionTrue, v1alpha1.ReasonAdded)
	}
	e.awaitDocument(ctx, claimsSharedPath, "claims-both", "claims-b-only")
	t.Logf("  %s/%s deleted: %s/%s took the claim and wrote its entries' IDs", first.Namespace, first.Name, second.Namespace, second.Name)

	mustDelete(ctx, t, inSecond, "b-both", "b-only")
	for _, name := range []string{"b-both", "b-only"} {
		e.awaitGone(ctx, second.Namespace, name)
	}
	e.awaitDocument(ctx, claimsSharedPath)
	e.deleteList(ctx, second.Namespace, second.Name)
	// Each list's entries hold IDs only while the list holds the claim.
	e.checkLedgerOf(ctx, led, claimsSharedPath, externalList(first.Namespace, first.Name), all, span{start, firstGone})
	e.checkLedgerOf(ctx, led, claimsSharedPath, externalList(second.Namespace, second.Name), all, span{claimed, time.Time{}})
	t.Logf("  done in %v", time.Since(start).Round(time.Millisecond))
}

// claimsByClusterList is the case of a ClusterExternalList whose
// namespaceSelector selects one of two namespaces.
func (e *env) claimsByClusterList(ctx context.Context, led *ledger) {
	t, c := e.t, suite.cluster.Client
	start := time.Now()
	const name = "claims-cluster"
	in, out := "claims-in", "claims-out"
	for ns, labels := range map[string]map[string]string{in: {claimsSelectLabel: "in"}, out: nil} {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: labels}}); err != nil {
			t.Fatalf("create namespace %s: %v", ns, err)
		}
	}
	e.createClusterList(ctx, name, claimsClusterPath, map[string]string{claimsSelectLabel: "in"})
	e.awaitListReason(ctx, "", name, metav1.ConditionTrue, "")

	inEntries := e.entriesOf(in, name, v1alpha1.ListKindClusterExternalList)
	outEntries := e.entriesOf(out, name, v1alpha1.ListKindClusterExternalList)
	mustCreate(ctx, t, inEntries, "in-only", "cluster-in-only")
	mustCreate(ctx, t, inEntries, "in-both", "cluster-both")
	mustCreate(ctx, t, outEntries, "out-only", "cluster-out-only")
	mustCreate(ctx, t, outEntries, "out-both", "cluster-both")
	for _, n := range []string{"in-only", "in-both"} {
		e.awaitEntryReason(ctx, in, n, metav1.ConditionTrue, v1alpha1.ReasonAdded)
	}
	for _, n := range []string{"out-only", "out-both"} {
		e.awaitEntryReason(ctx, out, n, metav1.ConditionFalse, v1alpha1.ReasonNamespaceNotAllowed)
	}
	e.awaitDocument(ctx, claimsClusterPath, "cluster-in-only", "cluster-both")
	t.Logf("cluster list: the entries of %s (selected) are written, those of %s are NamespaceNotAllowed", in, out)

	// The other namespace's entry does not hold the ID that both name.
	mustDelete(ctx, t, inEntries, "in-both")
	e.awaitGone(ctx, in, "in-both")
	e.awaitDocument(ctx, claimsClusterPath, "cluster-in-only")
	for _, n := range []string{"out-only", "out-both"} {
		e.awaitEntryReason(ctx, out, n, metav1.ConditionFalse, v1alpha1.ReasonNamespaceNotAllowed)
	}
	t.Logf("  %s's entry deleted: the ID both named is off the list, though %s's entry names it", in, out)

	mustDelete(ctx, t, inEntries, "in-only")
	mustDelete(ctx, t, outEntries, "out-only", "out-both")
	for ns, names := range map[string][]string{in: {"in-only"}, out: {"out-only", "out-both"}} {
		for _, n := range names {
			e.awaitGone(ctx, ns, n)
		}
	}
	e.awaitDocument(ctx, claimsClusterPath)
	e.deleteList(ctx, "", name)
	e.checkLedgerOf(ctx, led, claimsClusterPath, listKey{kind: v1alpha1.ListKindClusterExternalList, name: name},
		func(lt *lifetime) bool { return strings.HasPrefix(lt.name, in+"/") }, span{})
	t.Logf("  done in %v", time.Since(start).Round(time.Millisecond))
}

// all admits every entry.
func all(*lifetime) bool { return true }

// entriesOf returns the env's entries in namespace on the list called
// list, of kind (default ExternalList).
func (e *env) entriesOf(namespace, list string, kind v1alpha1.ListKind) harness.Entries {
	return harness.Entries{Client: suite.cluster.Client, Namespace: namespace, List: list, Kind: kind, Labels: e.labels}
}

func mustCreate(ctx context.Context, t *testing.T, entries harness.Entries, name, id string) {
	t.Helper()
	if created, err := entries.CreateHolder(ctx, name, id); err != nil || !created {
		t.Fatalf("create ListEntry %s/%s: created %v, %v", entries.Namespace, name, created, err)
	}
}

func mustDelete(ctx context.Context, t *testing.T, entries harness.Entries, names ...string) {
	t.Helper()
	if err := entries.Delete(ctx, names); err != nil {
		t.Fatal(err)
	}
}

// createClusterList creates a ClusterExternalList for the env's list
// server's document at path, selecting the namespaces with the labels
// selector, and the Secret with the server's token in the operator's
// namespace (the env's: --cluster-resource-namespace).
func (e *env) createClusterList(ctx context.Context, name, path string, selector map[string]string) {
	e.t.Helper()
	c := suite.cluster.Client
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: e.namespace, Name: name + "-auth"},
		StringData: map[string]string{"Authorization": "Bearer " + e.lists.Token()},
	}
	if err := c.Create(ctx, secret); err != nil {
		e.t.Fatalf("create Secret %s: %v", secret.Name, err)
	}
	cxl := &v1alpha1.ClusterExternalList{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1alpha1.ClusterExternalListSpec{
			ExternalListSpec: v1alpha1.ExternalListSpec{
				URL: e.lists.URL(path), ItemsPointer: "/items", AllowInsecureHTTP: true,
				HeadersFrom: &v1alpha1.HeadersSource{SecretRef: v1alpha1.SecretReference{Name: secret.Name}},
			},
			NamespaceSelector: metav1.LabelSelector{MatchLabels: selector},
		},
	}
	if err := c.Create(ctx, cxl); err != nil {
		e.t.Fatalf("create ClusterExternalList %s: %v", name, err)
	}
}

// getList reads the ExternalList namespace/name, or the
// ClusterExternalList name when namespace is "".
func getList(ctx context.Context, namespace, name string) (client.Object, []metav1.Condition, error) {
	c := suite.cluster.Client
	if namespace == "" {
		var cxl v1alpha1.ClusterExternalList
		err := c.Get(ctx, client.ObjectKey{Name: name}, &cxl)
		return &cxl, cxl.Status.Conditions, err
	}
	var xl v1alpha1.ExternalList
	err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &xl)
	return &xl, xl.Status.Conditions, err
}

// awaitListReason waits until the list (see getList) is Ready with status
// and, unless reason is "", that reason, and returns when it saw it.
func (e *env) awaitListReason(ctx context.Context, namespace, name string, status metav1.ConditionStatus, reason string) time.Time {
	e.t.Helper()
	var last string
	var at time.Time
	err := harness.Poll(ctx, e.sup, claimsWait, pollInterval, func(ctx context.Context) (bool, error) {
		_, conds, err := getList(ctx, namespace, name)
		if err != nil {
			last = err.Error()
			return false, err
		}
		cond := meta.FindStatusCondition(conds, v1alpha1.ConditionReady)
		if cond == nil {
			last = "no Ready condition"
			return false, nil
		}
		last = fmt.Sprintf("Ready=%s %s: %s", cond.Status, cond.Reason, cond.Message)
		at = time.Now()
		return cond.Status == status && (reason == "" || cond.Reason == reason), nil
	})
	if err != nil {
		e.t.Fatalf("list %s %s: want Ready=%s %s: %v (%s)", namespace, name, status, reason, err, last)
	}
	return at
}

// awaitEntryReason waits until the entry namespace/name is Ready with
// status and reason.
func (e *env) awaitEntryReason(ctx context.Context, namespace, name string, status metav1.ConditionStatus, reason string) {
	e.t.Helper()
	var last string
	err := harness.Poll(ctx, e.sup, claimsWait, pollInterval, func(ctx context.Context) (bool, error) {
		var le v1alpha1.ListEntry
		if err := suite.cluster.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &le); err != nil {
			last = err.Error()
			return false, err
		}
		cond := meta.FindStatusCondition(le.Status.Conditions, v1alpha1.ConditionReady)
		if cond == nil {
			last = "no Ready condition"
			return false, nil
		}
		last = fmt.Sprintf("Ready=%s %s: %s", cond.Status, cond.Reason, cond.Message)
		return cond.Status == status && cond.Reason == reason, nil
	})
	if err != nil {
		e.t.Fatalf("ListEntry %s/%s: want Ready=%s %s: %v (%s)", namespace, name, status, reason, err, last)
	}
}

// awaitGone waits until the entry namespace/name no longer exists.
func (e *env) awaitGone(ctx context.Context, namespace, name string) {
	e.t.Helper()
	entries := e.entriesOf(namespace, "", "")
	if err := harness.Poll(ctx, e.sup, claimsWait, pollInterval, func(ctx context.Context) (bool, error) {
		return entries.Gone(ctx, name)
	}); err != nil {
		e.t.Fatalf("ListEntry %s/%s still exists: %v", namespace, name, err)
	}
}

// awaitDocument waits until the document at path holds exactly the
// bystanders, in order, then ids, in any order.
func (e *env) awaitDocument(ctx context.Context, path string, ids ...string) {
	e.t.Helper()
	want := append(slices.Clone(e.bystanders), ids...)
	var last string
	err := harness.Poll(ctx, e.sup, claimsWait, pollInterval, func(ctx context.Context) (bool, error) {
		doc, err := e.lists.Document(ctx, path)
		if err != nil {
			last = err.Error()
			return false, err
		}
		missing, leftover := harness.DiffItems(want, doc.Items)
		last = fmt.Sprintf("it misses %d IDs%s and has %d it should not%s", len(missing), harness.IDList(missing), len(leftover), harness.IDList(leftover))
		return len(missing)+len(leftover) == 0 && slices.Equal(headOf(doc.Items, len(e.bystanders)), e.bystanders), nil
	})
	if err != nil {
		e.t.Fatalf("document %s: want the bystanders and %v: %v (%s)", path, ids, err, last)
	}
}

// deleteList deletes the list (see getList), waits until it is gone and
// returns when it saw it gone.
func (e *env) deleteList(ctx context.Context, namespace, name string) time.Time {
	e.t.Helper()
	obj, _, err := getList(ctx, namespace, name)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := suite.cluster.Client.Delete(ctx, obj); err != nil {
		e.t.Fatalf("delete list %s %s: %v", namespace, name, err)
	}
	var at time.Time
	if err := harness.Poll(ctx, e.sup, claimsWait, pollInterval, func(ctx context.Context) (bool, error) {
		_, _, err := getList(ctx, namespace, name)
		at = time.Now()
		return apierrors.IsNotFound(err), nil
	}); err != nil {
		e.t.Fatalf("list %s %s still exists: %v", namespace, name, err)
	}
	return at
}
