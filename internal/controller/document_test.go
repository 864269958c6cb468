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
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

func withPointer(p string) func(*v1alpha1.ExternalListSpec) {
	return func(s *v1alpha1.ExternalListSpec) { s.ItemsPointer = p }
}

func withQueryKeys(keys ...string) func(*v1alpha1.ExternalListSpec) {
	return func(s *v1alpha1.ExternalListSpec) { s.DocumentQueryKeys = keys }
}

// TestTwoSpellingsOneClaim: two ExternalLists name one document and one
// array in it, spelled two ways (a port with a leading zero, an array
// index with a plus sign). They are one claim: the younger list is
// DocumentInUse and says why, and its entry's ID is never written.
func TestTwoSpellingsOneClaim(t *testing.T) {
	t.Parallel()
	requireEnv(t)
	ns := newNamespace(t)
	startManager(t, managerConfig{namespace: ns})
	lists := newFakeServer(t)
	setDoc(t, lists.srv, "/spelled", map[string]any{"lists": []any{[]string{"foreign"}}})
	u, err := url.Parse(lists.url)
	if err != nil {
		t.Fatal(err)
	}

	first := newExternalList(ns, "first", lists.url+"/spelled", withPointer("/lists/0"))
	create(t, first)
	waitCondition(t, first, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	nextSecond(t) // the claim goes to the oldest, by creation time in seconds
	second := newExternalList(ns, "second", "http://"+u.Hostname()+":0"+u.Port()+"/spelled", withPointer("/lists/+0"))
	create(t, second)
	c := waitCondition(t, second, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse, waitTimeout)
	if !strings.Contains(c.Message, `ExternalList "first"`) || !strings.Contains(c.Message, "spellings") {
		t.Errorf("DocumentInUse message %q: want it to name the holder and say that two spellings of one document are one", c.Message)
	}

	mine := newListEntry(ns, "mine", "first", "tenant-1")
	theirs := newListEntry(ns, "theirs", "second", "tenant-2")
	create(t, mine)
	create(t, theirs)
	waitCondition(t, mine, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	waitCondition(t, theirs, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse, waitTimeout)
	if got := mustDocItems(t, lists.srv, "/spelled", "/lists/0"); !slices.Equal(got, []string{"foreign", "tenant-1"}) {
		t.Errorf("the document holds %v, want only the holder's entry's ID beside the foreign one", got)
	}
}

// TestDocumentQueryKeysSelectDocuments: a server that serves two lists at
// one path, selected by ?name=. Two lists that name the parameter in
// spec.documentQueryKeys are two documents, both Ready, each written with
// its own entries; a third naming one of them with another token in the
// query is that document's second list, DocumentInUse.
func TestDocumentQueryKeysSelectDocuments(t *testing.T) {
	t.Parallel()
	requireEnv(t)
	ns := newNamespace(t)
	startManager(t, managerConfig{namespace: ns})
	lists := newFakeServer(t)
	byName := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = r.Clone(r.Context())
		r.URL.Path, r.URL.RawPath = "/by-name/"+r.URL.Query().Get("name"), ""
		r.URL.RawQuery = ""
		lists.srv.ServeHTTP(w, r)
	}))
	t.Cleanup(byName.Close)
	setDoc(t, lists.srv, "/by-name/allow", []string{})
	setDoc(t, lists.srv, "/by-name/deny", []string{})

	allow := newExternalList(ns, "allow", byName.URL+"/v1/list?name=allow&token=a", withQueryKeys("name"))
	deny := newExternalList(ns, "deny", byName.URL+"/v1/list?token=b&name=deny", withQueryKeys("name"))
	create(t, allow)
	create(t, deny)
	waitCondition(t, allow, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	waitCondition(t, deny, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	a, d := newListEntry(ns, "a", "allow", "10.0.0.1"), newListEntry(ns, "d", "deny", "10.0.0.2")
	create(t, a)
	create(t, d)
	waitCondition(t, a, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	waitCondition(t, d, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	if got := mustDocItems(t, lists.srv, "/by-name/allow", ""); !slices.Equal(got, []string{"10.0.0.1"}) {
		t.Errorf("allow holds %v", got)
	}
	if got := mustDocItems(t, lists.srv, "/by-name/deny", ""); !slices.Equal(got, []string{"10.0.0.2"}) {
		t.Errorf("deny holds %v", got)
	}

	nextSecond(t)
	again := newExternalList(ns, "allow-again", byName.URL+"/v1/list?token=c&name=allow", withQueryKeys("name"))
	create(t, again)
	waitCondition(t, again, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse, waitTimeout)
}
