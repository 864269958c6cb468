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
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
	"github.com/listkeeper/listkeeper/internal/finalizerpolicy"
	"github.com/listkeeper/listkeeper/internal/testenv"
	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

const (
	transitionsReplicas   = 3
	transitionsBystanders = 5
	transitionsTimeout    = 4 * time.Minute
	// transitionsLabel marks the namespaces a test's ClusterExternalList
	// selects; its value is the test's.
	transitionsLabel = "listkeeper-e2e/transitions"
	// vanishHandover bounds the wait for a killed replica's bucket to
	// move to another.
	vanishHandover = 90 * time.Second
	// operatorAgent is how the fake list server names the operator's
	// requests (fakeapi.Stats.Agents).
	operatorAgent = "listkeeper-etagclient"
	// latePairs is how many IDs TestRemovalBesideLateFinalizer hands from
	// an old holder to a late one; lateAge is how old the late holders are
	// when the replicas come back: past the 30 s during which an entry
	// without its finalizer used to count as a holder.
	latePairs = 12
	lateAge   = 31 * time.Second
)

// TestClaimTakenByClusterList: an ExternalList holds a document and its
// entries' IDs are on it; a ClusterExternalList that names the same
// document takes the claim. The ExternalList and its entries go
// DocumentInUse, and the IDs they added come off, except one that an
// entry of the ClusterExternalList holds too. Deleting the old entries
// then writes nothing; deleting the last holder takes its ID off.
func TestClaimTakenByClusterList(t *testing.T) {
	if suite.cluster == nil {
		t.Skip("end-to-end tests need the control plane, which -short skips")
	}
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), transitionsTimeout)
	defer cancel()
	const path = "/lists/transitions-claim-doc"
	e := newEnv(ctx, t, envOptions{namespace: "transitions-claim", replicas: transitionsReplicas, bystanders: transitionsBystanders,
		latency: time.Millisecond, allNamespaces: true, seedOnly: []string{path}})
	led := e.startLedger(ctx)
	c := suite.cluster.Client
	t.Logf("setup: %d replicas watching every namespace, finalizer policy %v, in %v", transitionsReplicas, suite.cluster.FinalizerPolicy, time.Since(began).Round(time.Millisecond))

	ns := "transitions-claim-a"
	e.createLabelledNamespace(ctx, ns, "claim")
	old := harness.ListObject{Namespace: ns, Name: "l1", Server: e.lists, Path: path}
	if err := old.Create(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := old.WaitReady(ctx, c, e.sup, claimsWait); err != nil {
		t.Fatal(err)
	}
	oldEntries := e.entriesOf(ns, old.Name, "")
	mustCreate(ctx, t, oldEntries, "e1", "claim-x")
	mustCreate(ctx, t, oldEntries, "kept", "claim-shared")
	for _, n := range []string{"e1", "kept"} {
		e.awaitEntryReason(ctx, ns, n, metav1.ConditionTrue, v1alpha1.ReasonAdded)
	}
	e.awaitDocument(ctx, path, "claim-x", "claim-shared")
	if got := e.addedTo(ctx, ns, "e1"); got == nil || got.DocumentID == "" {
		t.Fatalf("ListEntry %s/e1 is Added but its status.addedTo is %+v, want the document it wrote", ns, got)
	}
	t.Logf("%s/%s holds %s: its entries' IDs are on it", old.Namespace, old.Name, path)

	moved := time.Now()
	const cluster = "transitions-claim"
	e.createClusterList(ctx, cluster, path, map[string]string{transitionsLabel: "claim"})
	mustCreate(ctx, t, e.entriesOf(ns, cluster, v1alpha1.ListKindClusterExternalList), "c1", "claim-shared")
	e.awaitListReason(ctx, "", cluster, metav1.ConditionTrue, "")
	e.awaitListReason(ctx, old.Namespace, old.Name, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse)
	e.awaitEntryReason(ctx, ns, "c1", metav1.ConditionTrue, v1alpha1.ReasonAdded)
	for _, n := range []string{"e1", "kept"} {
		e.awaitEntryReason(ctx, ns, n, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse)
	}
	e.awaitDocument(ctx, path, "claim-shared")
	xOff := time.Now()
	if got := e.addedTo(ctx, ns, "e1"); got != nil {
		t.Errorf("ListEntry %s/e1: its ID came off, but status.addedTo is still %+v", ns, got)
	}
	t.Logf("ClusterExternalList %s took the claim: claim-x came off, claim-shared (held by c1) stayed, in %v", cluster, xOff.Sub(moved).Round(time.Millisecond))

	mustDelete(ctx, t, oldEntries, "e1", "kept")
	for _, n := range []string{"e1", "kept"} {
		e.awaitGone(ctx, ns, n)
	}
	e.awaitDocument(ctx, path, "claim-shared")
	mustDelete(ctx, t, e.entriesOf(ns, cluster, v1alpha1.ListKindClusterExternalList), "c1")
	e.awaitGone(ctx, ns, "c1")
	e.awaitDocument(ctx, path)
	t.Logf("old entries deleted: nothing written; c1 deleted: claim-shared off")

	e.deleteList(ctx, "", cluster)
	e.deleteList(ctx, old.Namespace, old.Name)
	// Each list's entries hold IDs only while the list holds the claim;
	// between the move and the removal claim-x is on without an admitted
	// holder, by design, and not checked.
	e.checkLedgerOf(ctx, led, path, externalList(old.Namespace, old.Name), all, span{began, moved})
	e.checkLedgerOf(ctx, led, path, listKey{kind: v1alpha1.ListKindClusterExternalList, name: cluster}, all, span{xOff, time.Time{}})
	e.checkNoPanics()
	t.Logf("total %v", time.Since(began).Round(time.Millisecond))
}

// TestNamespaceLeavesSelector: a namespace loses the label that a
// ClusterExternalList selects. Its entries go NamespaceNotAllowed and
// their IDs come off, except one that an entry of a namespace still
// selected holds too; labelled again, the namespace's entries are
// admitted and their IDs come back.
func TestNamespaceLeavesSelector(t *testing.T) {
	if suite.cluster == nil {
		t.Skip("end-to-end tests need the control plane, which -short skips")
	}
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), transitionsTimeout)
	defer cancel()
	const path = "/lists/transitions-selector-doc"
	e := newEnv(ctx, t, envOptions{namespace: "transitions-selector", replicas: transitionsReplicas, bystanders: transitionsBystanders,
		latency: time.Millisecond, allNamespaces: true, seedOnly: []string{path}})
	led := e.startLedger(ctx)
	t.Logf("setup: %d replicas watching every namespace, finalizer policy %v, in %v", transitionsReplicas, suite.cluster.FinalizerPolicy, time.Since(began).Round(time.Millisecond))

	leaving, staying := "transitions-selector-a", "transitions-selector-b"
	e.createLabelledNamespace(ctx, leaving, "selector")
	e.createLabelledNamespace(ctx, staying, "selector")
	const cluster = "transitions-selector"
	e.createClusterList(ctx, cluster, path, map[string]string{transitionsLabel: "selector"})
	e.awaitListReason(ctx, "", cluster, metav1.ConditionTrue, "")
	inLeaving := e.entriesOf(leaving, cluster, v1alpha1.ListKindClusterExternalList)
	inStaying := e.entriesOf(staying, cluster, v1alpha1.ListKindClusterExternalList)
	mustCreate(ctx, t, inLeaving, "x", "selector-x")
	mustCreate(ctx, t, inLeaving, "shared", "selector-shared")
	mustCreate(ctx, t, inStaying, "shared", "selector-shared")
	for _, ns := range []string{leaving, staying} {
		e.awaitEntryReason(ctx, ns, "shared", metav1.ConditionTrue, v1alpha1.ReasonAdded)
	}
	e.awaitEntryReason(ctx, leaving, "x", metav1.ConditionTrue, v1alpha1.ReasonAdded)
	e.awaitDocument(ctx, path, "selector-x", "selector-shared")
	t.Logf("both namespaces selected: their IDs are on %s", path)

	left := time.Now()
	e.labelNamespace(ctx, leaving, "")
	for _, n := range []string{"x", "shared"} {
		e.awaitEntryReason(ctx, leaving, n, metav1.ConditionFalse, v1alpha1.ReasonNamespaceNotAllowed)
	}
	e.awaitDocument(ctx, path, "selector-shared")
	xOff := time.Now()
	if got := e.addedTo(ctx, leaving, "x"); got != nil {
		t.Errorf("ListEntry %s/x: its ID came off, but status.addedTo is still %+v", leaving, got)
	}
	e.awaitEntryReason(ctx, staying, "shared", metav1.ConditionTrue, v1alpha1.ReasonAdded)
	t.Logf("%s unlabelled: selector-x came off, selector-shared (held in %s) stayed, in %v", leaving, staying, xOff.Sub(left).Round(time.Millisecond))

	back := time.Now()
	e.labelNamespace(ctx, leaving, "selector")
	for _, n := range []string{"x", "shared"} {
		e.awaitEntryReason(ctx, leaving, n, metav1.ConditionTrue, v1alpha1.ReasonAdded)
	}
	e.awaitDocument(ctx, path, "selector-x", "selector-shared")
	backOn := time.Now()
	t.Logf("%s labelled again: selector-x is back, in %v", leaving, backOn.Sub(back).Round(time.Millisecond))

	mustDelete(ctx, t, inLeaving, "x", "shared")
	mustDelete(ctx, t, inStaying, "shared")
	for ns, names := range map[string][]string{leaving: {"x", "shared"}, staying: {"shared"}} {
		for _, n := range names {
			e.awaitGone(ctx, ns, n)
		}
	}
	e.awaitDocument(ctx, path)
	e.deleteList(ctx, "", cluster)
	key := listKey{kind: v1alpha1.ListKindClusterExternalList, name: cluster}
	// While the namespace is out (from the removal of its ID to its
	// return), only the other namespace's entries hold IDs.
	e.checkLedgerOf(ctx, led, path, key, all, span{began, left})
	e.checkLedgerOf(ctx, led, path, key, func(lt *lifetime) bool { return strings.HasPrefix(lt.name, staying+"/") }, span{xOff, back})
	e.checkLedgerOf(ctx, led, path, key, all, span{backOn, time.Time{}})
	e.checkNoPanics()
	t.Logf("total %v", time.Since(began).Round(time.Millisecond))
}

// TestVanishedEntryHandover: an entry is removed by the API server with
// its finalizer on (here: its key deleted from etcd) while the list
// answers 503, so the replica that writes the list cannot take its ID off;
// the entry is recorded in the list's status.vanishedEntries. That
// replica is killed with SIGKILL and a new one is started after the
// deletion, which never saw it: once the list answers again, the ID comes
// off and the record is dropped.
//
// An entry can vanish so only where the finalizer is patched on, not put
// on at creation, and the operator acts on such records only there: the
// test removes the finalizer policy for its run (and installs it again
// after), so that the replicas take the path without it.
//
// Subtest OnlyEntry: the vanished entry was its list's only one.
// BesideLiveEntry: another live entry, with another ID, is on the list
// and stays.
func TestVanishedEntryHandover(t *testing.T) {
	if suite.cluster == nil {
		t.Skip("end-to-end tests need the control plane, which -short skips")
	}
	t.Run("OnlyEntry", func(t *testing.T) { vanishedEntryHandover(t, "transitions-vanish-only", nil) })
	t.Run("BesideLiveEntry", func(t *testing.T) { vanishedEntryHandover(t, "transitions-vanish-beside", []string{"vanish-stays"}) })
}

// vanishedEntryHandover runs TestVanishedEntryHandover in namespace, with
// a live entry for each of staying, whose IDs must stay.
func vanishedEntryHandover(t *testing.T, namespace string, staying []string) {
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), transitionsTimeout)
	defer cancel()
	if err := harness.EnsureNamespace(ctx, suite.cluster.Client, namespace); err != nil {
		t.Fatal(err)
	}
	withoutFinalizerPolicy(ctx, t, namespace)
	e := newEnv(ctx, t, envOptions{namespace: namespace, replicas: transitionsReplicas, bystanders: transitionsBystanders, latency: time.Millisecond})
	t.Logf("setup: %d replicas, no finalizer policy (removed for the test: %v), in %v", transitionsReplicas, suite.cluster.FinalizerPolicy, time.Since(began).Round(time.Millisecond))

	mustCreate(ctx, t, e.entries, "gone", "vanish-x")
	for i, id := range staying {
		mustCreate(ctx, t, e.entries, fmt.Sprintf("stays-%d", i), id)
	}
	e.awaitEntryReason(ctx, namespace, "gone", metav1.ConditionTrue, v1alpha1.ReasonAdded)
	e.awaitDocument(ctx, e.list.Path, append([]string{"vanish-x"}, staying...)...)
	owner, others, bucket, err := e.listOwner(ctx, e.managers)
	if err != nil {
		t.Fatal(err)
	}

	if err := e.lists.SetFaults(ctx, fakeapi.Faults{Rate503: 1}); err != nil {
		t.Fatal(err)
	}
	before, err := e.lists.History(ctx, e.list.Path)
	if err != nil {
		t.Fatal(err)
	}
	removeFromEtcd(ctx, t, namespace, "gone")
	e.awaitVanished(ctx, 1)
	// The owner tries to take the ID off and gets a 503.
	if err := harness.Poll(ctx, e.sup, claimsWait, pollInterval, func(ctx context.Context) (bool, error) {
		st, err := e.lists.Stats(ctx)
		return err == nil && st.Agents[operatorAgent][http.StatusServiceUnavailable] > 0, nil
	}); err != nil {
		t.Fatalf("the operator got no 503 from the list: %v", err)
	}
	t.Logf("entry removed from etcd with its finalizer on while the list answers 503: recorded in status.vanishedEntries, the owner's removal refused")

	owner.Kill()
	added := e.addManager(ctx)
	// The killed replica's buckets move once its Lease is gone, which
	// takes several Lease durations: wait until a replica left claims the
	// list's bucket.
	var heir *harness.Manager
	if err := harness.Poll(ctx, e.sup, vanishHandover, pollInterval, func(ctx context.Context) (bool, error) {
		var err error
		heir, _, err = e.ownerOf(ctx, bucket, append(others, added))
		return err == nil, nil
	}); err != nil {
		t.Fatalf("no replica left took bucket %d of the killed %s: %v", bucket, owner.Name(), err)
	}
	after, err := e.lists.History(ctx, e.list.Path)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Fatalf("the list committed %d versions while it answered 503: the test proves nothing", len(after)-len(before))
	}
	t.Logf("owner %s of bucket %d killed, %s started, %s took the bucket after %v; the ID is still on the list",
		owner.Name(), bucket, added.Name(), heir.Name(), time.Since(owner.Signalled()).Round(time.Millisecond))

	healed := time.Now()
	if err := e.lists.SetFaults(ctx, fakeapi.Faults{}); err != nil {
		t.Fatal(err)
	}
	e.awaitDocument(ctx, e.list.Path, staying...)
	e.awaitVanished(ctx, 0)
	t.Logf("list answering again: vanish-x off and the record dropped in %v", time.Since(healed).Round(time.Millisecond))
	e.checkNoPanics()
	t.Logf("total %v", time.Since(began).Round(time.Millisecond))
}

// TestRemovalBesideLateFinalizer: every ID has a holder with its
// finalizer and, created while no replica ran and without the finalizer
// policy, a late holder without it, older than 30 s. The replicas come
// back while the first holders are deleted: each replica patches the
// late holders' finalizers on while it decides the removals, on a cache
// that may not show those patches yet. No ID may come off: the late
// holders are live and admitted, whatever the cache says of their
// finalizers. Before, an entry without the finalizer in the cache counted
// as a holder only for its first 30 s, and the removal took the ID off
// under a late holder that then said Synced=True.
func TestRemovalBesideLateFinalizer(t *testing.T) {
	if suite.cluster == nil {
		t.Skip("end-to-end tests need the control plane, which -short skips")
	}
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), transitionsTimeout)
	defer cancel()
	const namespace = "transitions-late"
	if err := harness.EnsureNamespace(ctx, suite.cluster.Client, namespace); err != nil {
		t.Fatal(err)
	}
	withoutFinalizerPolicy(ctx, t, namespace)
	e := newEnv(ctx, t, envOptions{namespace: namespace, replicas: transitionsReplicas, bystanders: transitionsBystanders, latency: time.Millisecond})
	led := e.startLedger(ctx)
	t.Logf("setup: %d replicas, no finalizer policy (removed for the test: %v), in %v", transitionsReplicas, suite.cluster.FinalizerPolicy, time.Since(began).Round(time.Millisecond))

	ids := make([]string, latePairs)
	for i := range ids {
		ids[i] = fmt.Sprintf("late-id-%02d", i)
		mustCreate(ctx, t, e.entries, fmt.Sprintf("first-%02d", i), ids[i])
	}
	for i := range ids {
		e.awaitEntryReason(ctx, namespace, fmt.Sprintf("first-%02d", i), metav1.ConditionTrue, v1alpha1.ReasonAdded)
	}
	e.awaitDocument(ctx, e.list.Path, append(slices.Clone(e.bystanders), ids...)...)

	harness.StopManagers(e.managers...)
	lateBorn := time.Now()
	for i, id := range ids {
		mustCreate(ctx, t, e.entries, fmt.Sprintf("late-%02d", i), id)
	}
	for i := range ids {
		var le v1alpha1.ListEntry
		if err := suite.cluster.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: fmt.Sprintf("late-%02d", i)}, &le); err != nil {
			t.Fatal(err)
		}
		if len(le.Finalizers) != 0 {
			t.Fatalf("ListEntry %s/%s was born with finalizers %v: the test needs it without", namespace, le.Name, le.Finalizers)
		}
	}
	e.sleepOrDie(ctx, lateBorn.Add(lateAge))
	t.Logf("replicas stopped; %d late holders created without the finalizer, now %v old", latePairs, time.Since(lateBorn).Round(time.Second))

	back := time.Now()
	restarted := make(chan error, len(e.managers))
	for _, m := range e.managers {
		go func() { restarted <- m.Start(ctx) }()
	}
	for i := range ids {
		mustDelete(ctx, t, e.entries, fmt.Sprintf("first-%02d", i))
	}
	for range e.managers {
		if err := <-restarted; err != nil {
			t.Fatal(err)
		}
	}
	for i := range ids {
		e.awaitGone(ctx, namespace, fmt.Sprintf("first-%02d", i))
		e.awaitEntryReason(ctx, namespace, fmt.Sprintf("late-%02d", i), metav1.ConditionTrue, v1alpha1.ReasonAdded)
	}
	last := e.awaitConverged(ctx, claimsWait)
	if got := harness.Count(ids, last.doc.Items); got != latePairs {
		t.Errorf("the list holds %d of the %d IDs after the handover to the late holders", got, latePairs)
	}
	t.Logf("replicas back and the first holders deleted at once: every first holder gone, every late holder Added, the list holds all %d IDs, in %v",
		latePairs, time.Since(back).Round(time.Millisecond))
	// The ledger fails the test if any version of the list lacked an ID
	// while one of its holders was Synced, or held one without a holder.
	e.checkLedger(ctx, led)
	e.checkNoPanics()
	t.Logf("total %v", time.Since(began).Round(time.Millisecond))
}

// createLabelledNamespace creates the namespace ns with transitionsLabel
// set to value.
func (e *env) createLabelledNamespace(ctx context.Context, ns, value string) {
	e.t.Helper()
	obj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{transitionsLabel: value}}}
	if err := suite.cluster.Client.Create(ctx, obj); err != nil {
		e.t.Fatalf("create namespace %s: %v", ns, err)
	}
}

// labelNamespace sets transitionsLabel of the namespace ns to value, or
// removes it when value is "".
func (e *env) labelNamespace(ctx context.Context, ns, value string) {
	e.t.Helper()
	if err := setNamespaceLabel(ctx, ns, value); err != nil {
		e.t.Fatal(err)
	}
}

// addedTo returns the status.addedTo of the entry namespace/name.
func (e *env) addedTo(ctx context.Context, namespace, name string) *v1alpha1.ListPlacement {
	e.t.Helper()
	var le v1alpha1.ListEntry
	if err := suite.cluster.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &le); err != nil {
		e.t.Fatal(err)
	}
	return le.Status.AddedTo
}

// awaitVanished waits until the env's list records n vanished entries.
func (e *env) awaitVanished(ctx context.Context, n int) {
	e.t.Helper()
	var got int
	err := harness.Poll(ctx, e.sup, claimsWait, pollInterval, func(ctx context.Context) (bool, error) {
		var xl v1alpha1.ExternalList
		if err := suite.cluster.Client.Get(ctx, client.ObjectKey{Namespace: e.list.Namespace, Name: e.list.Name}, &xl); err != nil {
			return false, err
		}
		got = len(xl.Status.VanishedEntries)
		return got == n, nil
	})
	if err != nil {
		e.t.Fatalf("ExternalList %s/%s: want %d records in status.vanishedEntries, have %d: %v", e.list.Namespace, e.list.Name, n, got, err)
	}
}

// removeFromEtcd deletes the key of the entry namespace/name from etcd,
// so that the API server reports it deleted with the state it last
// stored, finalizer and all, as it does when a deletion races with the
// patch that puts the finalizer on. The entry must be live with its
// finalizer.
func removeFromEtcd(ctx context.Context, t *testing.T, namespace, name string) {
	t.Helper()
	etcd := suite.cluster.EtcdURL()
	if etcd == nil {
		t.Fatal("no etcd URL")
	}
	c := suite.cluster.Client
	var live v1alpha1.ListEntry
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &live); err != nil {
		t.Fatal(err)
	}
	if !live.DeletionTimestamp.IsZero() || len(live.Finalizers) == 0 {
		t.Fatalf("ListEntry %s/%s: want it live with its finalizer, got deletionTimestamp %v, finalizers %v", namespace, name, live.DeletionTimestamp, live.Finalizers)
	}
	key := fmt.Sprintf("/registry/%s/listentries/%s/%s", v1alpha1.GroupVersion.Group, namespace, name)
	body, err := json.Marshal(map[string]string{"key": base64.StdEncoding.EncodeToString([]byte(key))})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, etcd.String()+"/v3/kv/deleterange", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var out struct {
		Deleted string `json:"deleted"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK || out.Deleted != "1" {
		t.Fatalf("delete %s from etcd: status %d, deleted %q, err %v", key, resp.StatusCode, out.Deleted, err)
	}
	if err := harness.Poll(ctx, nil, claimsWait, pollInterval, func(ctx context.Context) (bool, error) {
		err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &live)
		return apierrors.IsNotFound(err), nil
	}); err != nil {
		t.Fatalf("the API server still serves ListEntry %s/%s: %v", namespace, name, err)
	}
}

// finalizerPolicyObjects are the objects of testenv.FinalizerPolicy, as
// config/finalizer-policy names them.
var finalizerPolicyObjects = []schema.GroupVersionKind{
	{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "MutatingAdmissionPolicyBinding"},
	{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "MutatingAdmissionPolicy"},
}

// finalizerPolicyName is the name of the policy and of its binding.
const finalizerPolicyName = "cleanup-finalizer"

// withoutFinalizerPolicy removes the finalizer policy that TestMain
// installed, waits until a ListEntry created in namespace comes back
// without the finalizer, and installs the policy again when the test ends
// (after the test's processes are stopped: call it before newEnv). It does
// nothing where the policy is not installed. The e2e tests run one at a
// time, so no other test sees the change.
func withoutFinalizerPolicy(ctx context.Context, t *testing.T, namespace string) {
	t.Helper()
	if !suite.cluster.FinalizerPolicy {
		return
	}
	c := suite.cluster.Client
	for _, gvk := range finalizerPolicyObjects {
		obj := &unstructured.Unstructured{}
		obj.SetGroupVersionKind(gvk)
		obj.SetName(finalizerPolicyName)
		if err := c.Delete(ctx, obj); err != nil {
			t.Fatalf("delete %s %s: %v", gvk.Kind, finalizerPolicyName, err)
		}
	}
	t.Cleanup(func() {
		if _, err := testenv.InstallFinalizerPolicy(suite.cluster.Config, suite.root); err != nil {
			t.Errorf("install the finalizer policy again: %v", err)
		}
	})
	var active bool
	if err := harness.Poll(ctx, nil, claimsWait, pollInterval, func(ctx context.Context) (bool, error) {
		var err error
		active, err = finalizerpolicy.Probe(ctx, c, namespace)
		return err == nil && !active, nil
	}); err != nil {
		t.Fatalf("the finalizer policy still acts after its removal (active %v): %v", active, err)
	}
}
