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

package controller

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/listconfig"
)

// TestCanonicalURL: a plain HTTP document is its URL without what differs
// between two clients of one document (tokens in the query or user info,
// spelling of scheme and host, the default port, dot segments); an empty
// segment or an escaped slash in the path is another document.
func TestCanonicalURL(t *testing.T) {
	t.Parallel()
	same := [][]string{
		{"https://lists.example.com/a/allow.json", "HTTPS://Lists.Example.COM:443/a/./allow.json?sig=abc#frag",
			"https://user:pw@lists.example.com/a/b/../allow.json", "https://lists.example.com./a/allow.json?token=x"},
		{"http://127.0.0.1:8080/l", "http://127.0.0.1:8080/l?x=1"},
		{"http://[::1]/l", "http://[::1]:80/l"},
	}
	seen := map[string]int{}
	for group, urls := range same {
		for _, raw := range urls {
			id := listconfig.DocumentIDOfURL(raw)
			if id == "" {
				t.Fatalf("%s: no document", raw)
			}
			if g, ok := seen[id]; ok && g != group {
				t.Errorf("%s names the document of group %d", raw, g)
			}
			seen[id] = group
		}
		if first := listconfig.DocumentIDOfURL(urls[0]); len(seen) != group+1 || first == "" {
			t.Errorf("group %d: the URLs %v name more than one document", group, urls)
		}
	}
	for _, other := range []string{"https://lists.example.com/a/deny.json", "http://lists.example.com/a/allow.json",
		"https://lists.example.com:8443/a/allow.json", "https://other.example.com/a/allow.json",
		"https://lists.example.com/a//allow.json", "https://lists.example.com/a%2Fallow.json"} {
		if _, ok := seen[listconfig.DocumentIDOfURL(other)]; ok {
			t.Errorf("%s names a document of another URL", other)
		}
	}
	if id := listconfig.DocumentIDOfURL("https://lists.example.com/a?token=secret"); strings.Contains(id, "secret") || strings.Contains(id, "lists") {
		t.Errorf("the document ID %q shows the URL", id)
	}
}

// TestOneClaimPerDocument: ExternalLists in three namespaces name one
// document: the owner's by spec.url, one by urlFrom with another token in
// the query, one (a tenant with no credentials) by the very same spec.url.
// Before, all three were Ready: the urlFrom one counted its holders apart
// (its entry said Synced for an ID the owner then removed), and the
// squatter's entry pinned an ID the owner deleted, with no write at all.
// Now the oldest list holds the claim; the others are DocumentInUse, write
// nothing, and their entries hold nothing. When the holder goes, the next
// takes the claim and writes its IDs.
func TestOneClaimPerDocument(t *testing.T) {
	t.Parallel()
	requireEnv(t)
	nsA, nsB, nsC := newNamespace(t), newNamespace(t), newNamespace(t)
	startManager(t, managerConfig{namespace: nsA, extraNamespaces: []string{nsB, nsC}})
	lists := newFakeServer(t)
	setDoc(t, lists.srv, "/shared", []string{"foreign"})

	owner := newExternalList(nsA, "allow", lists.url+"/shared?token=team-a")
	create(t, owner)
	waitCondition(t, owner, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	nextSecond(t) // the claim goes to the oldest, by creation time in seconds
	create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "url", Namespace: nsB},
		StringData: map[string]string{"url": lists.url + "/shared?token=someone-else"}})
	squatter := &v1alpha1.ExternalList{ObjectMeta: metav1.ObjectMeta{Name: "copy", Namespace: nsB},
		Spec: v1alpha1.ExternalListSpec{AllowInsecureHTTP: true,
			URLFrom: &v1alpha1.URLSource{SecretKeyRef: v1alpha1.SecretKeySelector{Name: "url", Key: "url"}}}}
	create(t, squatter)
	c := waitCondition(t, squatter, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse, waitTimeout)
	if !strings.Contains(c.Message, "another list") || strings.Contains(c.Message, nsA) || strings.Contains(c.Message, "127.0.0.1") {
		t.Errorf("DocumentInUse message %q: want it to say only that another list holds the claim, naming no namespace", c.Message)
	}
	waitCondition(t, squatter, v1alpha1.ConditionStalled, metav1.ConditionTrue, v1alpha1.ReasonDocumentInUse, waitTimeout)

	same := newExternalList(nsC, "same-url", lists.url+"/shared?token=team-a")
	create(t, same)
	waitCondition(t, same, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse, waitTimeout)

	mine := newListEntry(nsA, "mine", "allow", "tenant-1")
	create(t, mine)
	waitCondition(t, mine, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	squat := newListEntry(nsC, "squat", "same-url", "tenant-1")
	create(t, squat)
	waitCondition(t, squat, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse, waitTimeout)
	pin := newListEntry(nsB, "pin", "copy", "tenant-1")
	create(t, pin)
	waitCondition(t, pin, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse, waitTimeout)
	only := newListEntry(nsB, "only", "copy", "squatter-id")
	create(t, only)
	waitCondition(t, only, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse, waitTimeout)
	if got := mustDocItems(t, lists.srv, "/shared", ""); slices.Contains(got, "squatter-id") {
		t.Fatalf("the list that does not hold the claim wrote: %v", got)
	}

	// The owner's entry goes: its ID goes, whatever the other lists'
	// entries say.
	deleteObj(t, mine)
	waitGone(t, mine, waitTimeout)
	waitOnList(t, lists.srv, "/shared", "", "tenant-1", false, waitTimeout)

	// A second list in the owner's namespace is told which list holds it.
	second := newExternalList(nsA, "second", lists.url+"/shared")
	create(t, second)
	c = waitCondition(t, second, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse, waitTimeout)
	if !strings.Contains(c.Message, `ExternalList "allow"`) {
		t.Errorf("DocumentInUse message %q: want it to name the holder in the same namespace", c.Message)
	}
	deleteObj(t, second)

	// The holder goes (Orphan): the next list takes the claim, and its
	// entries' IDs are written.
	deleteObj(t, same)
	deleteObj(t, owner)
	waitGone(t, owner, waitTimeout)
	waitCondition(t, squatter, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	waitCondition(t, pin, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	waitCondition(t, only, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	got := mustDocItems(t, lists.srv, "/shared", "")
	if !slices.Contains(got, "tenant-1") || !slices.Contains(got, "squatter-id") || !slices.Contains(got, "foreign") {
		t.Fatalf("after the claim moved the document holds %v", got)
	}
	if xl := getExternalList(t, squatter); xl.Status.DocumentID == "" || xl.Status.DocumentID != listconfig.DocumentIDOfURL(lists.url+"/shared") {
		t.Errorf("status.documentID = %q, want the document's ID", xl.Status.DocumentID)
	}
}

// TestClusterExternalListSharedByNamespaces: a ClusterExternalList serves
// the namespaces its selector selects, and takes the claim from an
// ExternalList that named the document first. An entry of a namespace it
// does not select is NamespaceNotAllowed and never written, until the
// namespace is labelled.
func TestClusterExternalListSharedByNamespaces(t *testing.T) {
	t.Parallel()
	requireEnv(t)
	nsA, nsB, nsC := newNamespace(t), newNamespace(t), newNamespace(t)
	label(t, nsA, map[string]string{"listkeeper-test/team": nsA})
	startManager(t, managerConfig{namespace: nsA, extraNamespaces: []string{nsB, nsC}})
	lists := newFakeServer(t)
	setDoc(t, lists.srv, "/shared", []string{"foreign"})

	early := newExternalList(nsC, "early", lists.url+"/shared")
	create(t, early)
	waitCondition(t, early, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	earlyEntry := newListEntry(nsC, "early", "early", "early-id")
	create(t, earlyEntry)
	waitCondition(t, earlyEntry, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)

	cxl := &v1alpha1.ClusterExternalList{ObjectMeta: metav1.ObjectMeta{Name: "shared-" + nsA},
		Spec: v1alpha1.ClusterExternalListSpec{
			ExternalListSpec:  v1alpha1.ExternalListSpec{URL: lists.url + "/shared"},
			NamespaceSelector: metav1.LabelSelector{MatchLabels: map[string]string{"listkeeper-test/team": nsA}},
		}}
	create(t, cxl)
	t.Cleanup(func() { deleteObj(t, cxl) })
	waitCondition(t, cxl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	waitCondition(t, early, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse, waitTimeout)
	c := waitCondition(t, earlyEntry, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse, waitTimeout)
	if !strings.Contains(c.Message, "a ClusterExternalList") {
		t.Errorf("message %q", c.Message)
	}

	inA := clusterEntry(nsA, "in-a", cxl.Name, "a-id")
	inB := clusterEntry(nsB, "in-b", cxl.Name, "b-id")
	create(t, inA)
	create(t, inB)
	waitCondition(t, inA, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	c = waitCondition(t, inB, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonNamespaceNotAllowed, waitTimeout)
	if !strings.Contains(c.Message, nsB) {
		t.Errorf("NamespaceNotAllowed message %q does not name the namespace", c.Message)
	}
	if got := mustDocItems(t, lists.srv, "/shared", ""); slices.Contains(got, "b-id") {
		t.Fatalf("an entry of a namespace the selector does not select was written: %v", got)
	}
	// Deleting it writes nothing either.
	puts := putCount(lists.srv)
	deleteObj(t, inB)
	waitGone(t, inB, waitTimeout)
	if n := putCount(lists.srv) - puts; n != 0 {
		t.Errorf("deleting an entry that was never admitted wrote %d times", n)
	}

	// Labelled, the namespace is admitted.
	inB = clusterEntry(nsB, "in-b2", cxl.Name, "b-id")
	create(t, inB)
	waitCondition(t, inB, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonNamespaceNotAllowed, waitTimeout)
	label(t, nsB, map[string]string{"listkeeper-test/team": nsA})
	waitCondition(t, inB, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	waitOnList(t, lists.srv, "/shared", "", "b-id", true, waitTimeout)
	got := getClusterList(t, cxl)
	patch := client.MergeFrom(got.DeepCopy())
	got.Annotations = map[string]string{v1alpha1.ReconcileRequestedAtAnnotation: "now"}
	if err := k8sClient.Patch(ctxFor(t), got, patch); err != nil {
		t.Fatal(err)
	}
	eventually(t, waitTimeout, "entryCount to count the selected namespaces' entries", func() error {
		if n := getClusterList(t, cxl).Status.EntryCount; n != 2 {
			return fmt.Errorf("entryCount %d, want 2", n)
		}
		return nil
	})
}

// nextSecond waits until the wall clock is in a later second than now:
// creation timestamps have a resolution of one second, and lists created
// in the same second are ordered by UID.
func nextSecond(t *testing.T) {
	t.Helper()
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(1100 * time.Millisecond)))
}

func clusterEntry(ns, name, list, id string) *v1alpha1.ListEntry {
	e := newListEntry(ns, name, list, id)
	e.Spec.ListRef.Kind = v1alpha1.ListKindClusterExternalList
	return e
}

// label sets labels on namespace ns.
func label(t *testing.T, ns string, labels map[string]string) {
	t.Helper()
	obj := &corev1.Namespace{}
	if err := k8sClient.Get(ctxFor(t), client.ObjectKey{Name: ns}, obj); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(obj.DeepCopy())
	if obj.Labels == nil {
		obj.Labels = map[string]string{}
	}
	for k, v := range labels {
		obj.Labels[k] = v
	}
	if err := k8sClient.Patch(ctxFor(t), obj, patch); err != nil {
		t.Fatal(err)
	}
}

func getExternalList(t *testing.T, xl *v1alpha1.ExternalList) *v1alpha1.ExternalList {
	t.Helper()
	got := &v1alpha1.ExternalList{}
	if err := k8sClient.Get(ctxFor(t), client.ObjectKeyFromObject(xl), got); err != nil {
		t.Fatal(err)
	}
	return got
}

func getClusterList(t *testing.T, cxl *v1alpha1.ClusterExternalList) *v1alpha1.ClusterExternalList {
	t.Helper()
	got := &v1alpha1.ClusterExternalList{}
	if err := k8sClient.Get(ctxFor(t), client.ObjectKeyFromObject(cxl), got); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestHeaderRotationKeepsOrder: one entry's removal of an ID is in flight
// (its PUT held by a slow server) when the list's header Secret rotates and
// a new entry of the same ID is created. Before, the rotation built a new
// client: the new entry's add settled on that client's read (the ID still
// there) and the held removal then took the ID off while the new entry
// said Synced. One client per document keeps the order: the add follows
// the removal.
func TestHeaderRotationKeepsOrder(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	srv := newGatedServer(t)
	startManager(t, managerConfig{namespace: ns})
	setDoc(t, srv.Server, "/list", []string{"bystander"})
	create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "headers", Namespace: ns},
		StringData: map[string]string{"X-Api-Key": "one"}})
	xl := newExternalList(ns, "allow", srv.url+"/list", func(s *v1alpha1.ExternalListSpec) {
		s.HeadersFrom = &v1alpha1.HeadersSource{SecretRef: v1alpha1.SecretReference{Name: "headers"}}
		s.AllowInsecureHTTP = true
	})
	create(t, xl)
	first := createSynced(t, ns, "allow", "x")[0]

	srv.hold()
	deleteObj(t, first)
	eventually(t, waitTimeout, "the removal's PUT at the gate", func() error {
		if srv.held.Load() == 0 {
			return fmt.Errorf("no PUT held yet")
		}
		return nil
	})
	secret := &corev1.Secret{}
	if err := k8sClient.Get(ctxFor(t), client.ObjectKey{Namespace: ns, Name: "headers"}, secret); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(secret.DeepCopy())
	secret.Data = map[string][]byte{"X-Api-Key": []byte("two")}
	if err := k8sClient.Patch(ctxFor(t), secret, patch); err != nil {
		t.Fatal(err)
	}
	second := newListEntry(ns, "second", "allow", "x")
	create(t, second)
	// Give the new entry every chance to settle early, then let the
	// removal through.
	time.Sleep(2 * time.Second)
	srv.release()
	waitGone(t, first, waitTimeout)
	waitCondition(t, second, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	eventually(t, waitTimeout, "x back on the list", func() error {
		if !slices.Contains(mustDocItems(t, srv.Server, "/list", ""), "x") {
			return fmt.Errorf("x is off the list while entry %q is Synced", second.Name)
		}
		return nil
	})
	// And it stays there.
	time.Sleep(time.Second)
	if got := mustDocItems(t, srv.Server, "/list", ""); !slices.Contains(got, "x") {
		t.Fatalf("x left the list: %v", got)
	}
	e := &v1alpha1.ListEntry{}
	if err := k8sClient.Get(ctxFor(t), client.ObjectKeyFromObject(second), e); err != nil {
		t.Fatal(err)
	}
	if !meta.IsStatusConditionTrue(e.Status.Conditions, v1alpha1.ConditionReady) {
		t.Errorf("the second entry is not Ready: %+v", e.Status.Conditions)
	}
}

// TestNamespacedInstallationServesNoClusterLists: an installation that
// watches one namespace has no permission on cluster-scoped objects; an
// entry of a ClusterExternalList is told so at once (its reads of a kind
// nobody watches fail instead of waiting for an informer), while the
// namespace's own lists work.
func TestNamespacedInstallationServesNoClusterLists(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startManager(t, managerConfig{namespace: ns, namespacedOnly: true})
	lists := newFakeServer(t)
	setDoc(t, lists.srv, "/list", []string{})
	create(t, newExternalList(ns, "allow", lists.url+"/list"))
	createSynced(t, ns, "allow", "mine")
	e := clusterEntry(ns, "shared", "egress", "x")
	create(t, e)
	c := waitCondition(t, e, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonNamespaceNotAllowed, waitTimeout)
	if !strings.Contains(c.Message, "serves no ClusterExternalLists") {
		t.Errorf("message %q", c.Message)
	}
	deleteObj(t, e)
	waitGone(t, e, waitTimeout)
}
