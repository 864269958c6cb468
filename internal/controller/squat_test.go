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
	"net/http"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// TestSquatterBlocksNothing: the claim on a document went to the oldest
// list that named it, whether or not it could read it. A tenant with no
// credentials at all created an ExternalList naming another team's URL
// first, and the owner's list was DocumentInUse with none of its entries
// ever written (a held-out run: 100 entries missing after 90 s, the
// server answered the squatter 401 259 times). A list takes part in the
// claim only once it has read the document with its own credentials, so
// the squatter blocks nothing; it says why it cannot read (Unauthorized),
// and a list that can read but comes later is DocumentInUse without
// learning that another namespace uses the URL.
func TestSquatterBlocksNothing(t *testing.T) {
	t.Parallel()
	requireEnv(t)
	owner, squatter, late := newNamespace(t), newNamespace(t), newNamespace(t)
	startManager(t, managerConfig{namespace: owner, extraNamespaces: []string{squatter, late}})
	const token = "owner-token-0xFEED"
	lists := newFakeServer(t, fakeapi.WithToken(token))
	setDoc(t, lists.srv, "/shared", []string{"foreign"})

	squat := newExternalList(squatter, "squat", lists.url+"/shared", func(s *v1alpha1.ExternalListSpec) { s.AllowInsecureHTTP = true })
	create(t, squat)
	pin := newListEntry(squatter, "pin", "squat", "squatter-id")
	create(t, pin)
	waitCondition(t, squat, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonUnauthorized, waitTimeout)
	nextSecond(t) // the squatter is older by creation time, the claim's order

	withToken := func(ns string) func(*v1alpha1.ExternalListSpec) {
		create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "auth", Namespace: ns},
			StringData: map[string]string{"Authorization": "Bearer " + token}})
		return func(s *v1alpha1.ExternalListSpec) {
			s.AllowInsecureHTTP = true
			s.HeadersFrom = &v1alpha1.HeadersSource{SecretRef: v1alpha1.SecretReference{Name: "auth"}}
		}
	}
	mine := newExternalList(owner, "allow", lists.url+"/shared", withToken(owner))
	create(t, mine)
	var entries []*v1alpha1.ListEntry
	for i := range 5 {
		e := newListEntry(owner, fmt.Sprintf("tenant-%d", i), "allow", fmt.Sprintf("tenant-%d", i))
		create(t, e)
		entries = append(entries, e)
	}
	waitCondition(t, mine, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	for _, e := range entries {
		waitCondition(t, e, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	}
	got := mustDocItems(t, lists.srv, "/shared", "")
	for _, e := range entries {
		if !slices.Contains(got, e.Spec.ID) {
			t.Errorf("the owner's ID %s is not on the document: %v", e.Spec.ID, got)
		}
	}
	if slices.Contains(got, "squatter-id") {
		t.Errorf("the squatter's ID was written: %v", got)
	}
	if c := waitCondition(t, squat, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonUnauthorized, waitTimeout); strings.Contains(c.Message, owner) {
		t.Errorf("the squatter's condition names the owner's namespace: %q", c.Message)
	}

	// The squatter's entry learns that its list cannot read, not that
	// another list holds the document.
	c := waitCondition(t, pin, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonUnauthorized, waitTimeout)
	if strings.Contains(c.Message, "another list") || strings.Contains(c.Message, owner) {
		t.Errorf("the squatter's entry is told who else uses the document: %q", c.Message)
	}

	// A list that can read, made later, loses the claim to the owner, and
	// its message names no other namespace.
	nextSecond(t) // the owner is older
	reader := newExternalList(late, "reader", lists.url+"/shared", withToken(late))
	create(t, reader)
	c = waitCondition(t, reader, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse, waitTimeout)
	if strings.Contains(c.Message, owner) || strings.Contains(c.Message, "namespace") {
		t.Errorf("DocumentInUse message %q tells who else uses the document", c.Message)
	}
	for _, e := range events(t, late) {
		if strings.Contains(e.Note, owner) || strings.Contains(e.Note, "another namespace") {
			t.Errorf("event %s: %q tells who else uses the document", e.Reason, e.Note)
		}
	}
	if n := lists.srv.Stats().CountCode(http.StatusUnauthorized); n == 0 {
		t.Errorf("the server refused no request: the squatter never tried to read")
	}
}

// TestUnselectedNamespaceSeesOnlyNamespaceNotAllowed: an entry in a
// namespace that a ClusterExternalList does not select was shown that
// list's own error, which named a Secret of the operator's namespace
// (`secret "prod-azure-sas-payments" not found`). It learns only that its
// namespace is not served.
func TestUnselectedNamespaceSeesOnlyNamespaceNotAllowed(t *testing.T) {
	t.Parallel()
	requireEnv(t)
	selected, outside := newNamespace(t), newNamespace(t)
	label(t, selected, map[string]string{"listkeeper-test/team": selected})
	startManager(t, managerConfig{namespace: selected, extraNamespaces: []string{outside}, clusterNamespace: selected})
	const secret = "prod-azure-sas-payments"
	cxl := &v1alpha1.ClusterExternalList{ObjectMeta: metav1.ObjectMeta{Name: "broken-" + selected},
		Spec: v1alpha1.ClusterExternalListSpec{
			ExternalListSpec: v1alpha1.ExternalListSpec{AllowInsecureHTTP: true,
				URLFrom: &v1alpha1.URLSource{SecretKeyRef: v1alpha1.SecretKeySelector{Name: secret, Key: "url"}}},
			NamespaceSelector: metav1.LabelSelector{MatchLabels: map[string]string{"listkeeper-test/team": selected}},
		}}
	create(t, cxl)
	t.Cleanup(func() { deleteObj(t, cxl) })
	waitCondition(t, cxl, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonSecretNotFound, waitTimeout)

	in := clusterEntry(selected, "in", cxl.Name, "in-id")
	out := clusterEntry(outside, "out", cxl.Name, "out-id")
	create(t, in)
	create(t, out)
	// A selected namespace's entry is told why its list cannot be written.
	waitCondition(t, in, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonSecretNotFound, waitTimeout)
	c := waitCondition(t, out, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonNamespaceNotAllowed, waitTimeout)
	if strings.Contains(c.Message, secret) {
		t.Errorf("NamespaceNotAllowed message %q names the list's Secret", c.Message)
	}
	for _, e := range events(t, outside) {
		if strings.Contains(e.Note, secret) {
			t.Errorf("event %s: %q names the list's Secret", e.Reason, e.Note)
		}
	}
	for _, cond := range conditionsOf(out) {
		if strings.Contains(cond.Message, secret) {
			t.Errorf("condition %s: %q names the list's Secret", cond.Type, cond.Message)
		}
	}
}
