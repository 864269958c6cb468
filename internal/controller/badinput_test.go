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
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// TestInvalidSpecsRefused: the API server refuses specs that can never work,
// with messages that say what is wrong.
func TestInvalidSpecsRefused(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	ctx := context.Background()

	tests := []struct {
		name  string
		obj   client.Object
		field string
		msg   string
	}{
		{
			name:  "url scheme",
			obj:   newExternalList(ns, "ftp", "ftp://127.0.0.1/list"),
			field: "spec.url", msg: "url must be an http or https URL",
		},
		{
			name: "items pointer",
			obj: newExternalList(ns, "pointer", "http://127.0.0.1/list", func(s *v1alpha1.ExternalListSpec) {
				s.ItemsPointer = "items"
			}),
			field: "spec.itemsPointer", msg: "itemsPointer must be empty or an RFC 6901 JSON pointer",
		},
		{
			name: "items pointer bad escape",
			obj: newExternalList(ns, "escape", "http://127.0.0.1/list", func(s *v1alpha1.ExternalListSpec) {
				s.ItemsPointer = "/a~2b"
			}),
			field: "spec.itemsPointer", msg: "'~' may only appear as '~0'",
		},
		{
			name: "mode",
			obj: newExternalList(ns, "mode", "http://127.0.0.1/list", func(s *v1alpha1.ExternalListSpec) {
				s.Mode = "Sometimes"
			}),
			field: "spec.mode", msg: `supported values: "Additive", "Exclusive"`,
		},
		{
			name:  "id of 254 characters",
			obj:   newListEntry(ns, "long", "allow", strings.Repeat("x", 254)),
			field: "spec.id", msg: "253",
		},
		{
			name:  "empty id",
			obj:   newListEntry(ns, "empty", "allow", ""),
			field: "spec.id", msg: "at least 1",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := k8sClient.Create(ctx, tc.obj)
			checkRejected(t, err, tc.field, tc.msg)
		})
	}

	t.Run("changing spec.id", func(t *testing.T) {
		e := newListEntry(ns, "immutable", "allow", "before")
		create(t, e)
		e.Spec.ID = "after"
		checkRejected(t, k8sClient.Update(ctx, e), "spec.id", "id is immutable")
	})
	t.Run("changing spec.listRef", func(t *testing.T) {
		e := newListEntry(ns, "immutable-ref", "allow", "id")
		create(t, e)
		e.Spec.ListRef.Name = "other"
		checkRejected(t, k8sClient.Update(ctx, e), "spec.listRef", "listRef is immutable")
	})
}

// checkRejected fails t unless err is an Invalid error with a cause on
// field whose message contains msg.
func checkRejected(t *testing.T, err error, field, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted; want it refused on %s", field)
	}
	if !apierrors.IsInvalid(err) {
		t.Fatalf("want an Invalid error, got %v", err)
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details == nil {
		t.Fatalf("want an error with causes, got %v", err)
	}
	for _, c := range status.Status().Details.Causes {
		if c.Field == field && strings.Contains(c.Message, msg) {
			return
		}
	}
	t.Fatalf("want a cause on %s containing %q, got %v", field, msg, err)
}

// TestBadLists: lists the operator must refuse to write to. Each entry
// reports the reason on Synced=False and in a Warning event, the list
// reports it on Ready=False, and nothing is written to the list.
func TestBadLists(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startManager(t, managerConfig{namespace: ns})

	// A closed port on the loopback interface.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedURL := "http://" + l.Addr().String() + "/list"
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	// A server that answers with an HTML page and a strong ETag, as a
	// login page or a misrouted ingress would.
	var htmlPuts atomic.Int64
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut {
			htmlPuts.Add(1)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("ETag", `"html-1"`)
		_, _ = w.Write([]byte("<!doctype html><html><body>Sign in</body></html>"))
	}))
	t.Cleanup(html.Close)

	// A server that serves weak ETags.
	weak := newFakeServer(t, fakeapi.WithETagMode(fakeapi.ETagWeak))
	setDoc(t, weak.srv, "/list", []string{"a"})

	// A document whose items pointer leads to a string.
	notArray := newFakeServer(t)
	setDoc(t, notArray.srv, "/list", map[string]any{"items": "not-an-array"})

	tests := []struct {
		name    string
		url     string
		pointer string
		reason  string
		written func() int64 // writes that reached the server
		doc     *fakeServer  // unchanged document, when the server keeps one
	}{
		{name: "unreachable", url: closedURL, reason: v1alpha1.ReasonListUnreachable},
		{name: "html", url: html.URL + "/list", reason: v1alpha1.ReasonInvalidDocument, written: htmlPuts.Load},
		{name: "weak-etag", url: weak.url + "/list", reason: v1alpha1.ReasonUnsafeServer,
			written: func() int64 { return putCount(weak.srv) }, doc: weak},
		{name: "not-array", url: notArray.url + "/list", pointer: "/items", reason: v1alpha1.ReasonInvalidDocument,
			written: func() int64 { return putCount(notArray.srv) }, doc: notArray},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var before []byte
			if tc.doc != nil {
				before, _, _ = tc.doc.srv.Get("/list")
			}
			xl := newExternalList(ns, tc.name, tc.url, func(s *v1alpha1.ExternalListSpec) { s.ItemsPointer = tc.pointer })
			create(t, xl)
			entry := newListEntry(ns, tc.name, tc.name, "id-"+tc.name)
			create(t, entry)

			c := waitCondition(t, entry, v1alpha1.ConditionSynced, metav1.ConditionFalse, tc.reason, waitTimeout)
			if c.Message == "" {
				t.Errorf("Synced=False without a message")
			}
			ev := waitEvent(t, ns, "ListEntry", tc.name, corev1.EventTypeWarning, tc.reason, waitTimeout)
			t.Logf("entry: %s: %s; event: %s", c.Reason, c.Message, ev.Note)
			waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionFalse, tc.reason, waitTimeout)
			waitEvent(t, ns, "ExternalList", tc.name, corev1.EventTypeWarning, tc.reason, waitTimeout)

			if tc.written != nil {
				if n := tc.written(); n != 0 {
					t.Errorf("%d PUTs reached the server; want none", n)
				}
			}
			if tc.doc != nil {
				after, _, _ := tc.doc.srv.Get("/list")
				if string(after) != string(before) {
					t.Errorf("document changed from %s to %s", before, after)
				}
			}

			// Deleting the entry cannot confirm that its ID is off a list
			// that cannot be read: the finalizer holds it, and says why.
			deleteObj(t, entry)
			waitEventAction(t, ns, "ListEntry", tc.name, corev1.EventTypeWarning, tc.reason, "Remove", waitTimeout)
			if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(entry), entry); err != nil {
				t.Fatalf("the entry was released although its removal could not be confirmed: %v", err)
			}
			// Deleting the ExternalList lets the entry go.
			deleteObj(t, xl)
			waitGone(t, entry, waitTimeout)
			waitEvent(t, ns, "ListEntry", tc.name, corev1.EventTypeWarning, v1alpha1.ReasonRemoveSkipped, waitTimeout)
			if tc.written != nil {
				if n := tc.written(); n != 0 {
					t.Errorf("%d PUTs reached the server after the delete; want none", n)
				}
			}
		})
	}
}

// TestMultibyteID: spec.id is limited to 253 characters by the API. An ID of
// 253 two-byte characters is accepted by the API server; the operator must
// either sync it or, if the list client refuses it, report InvalidSpec
// (never retry it forever as ListUnreachable) and still let the entry be
// deleted.
func TestMultibyteID(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startManager(t, managerConfig{namespace: ns})
	path := listPath(t, ns)
	setDoc(t, sharedLists, path, []string{})
	create(t, newExternalList(ns, "allow", sharedListsURL+path))

	id := strings.Repeat("é", 253)
	entry := newListEntry(ns, "wide", "allow", id)
	create(t, entry)
	if err := (etagclient.Change{Add: []string{id}}).Validate(); err != nil {
		t.Logf("the list client refuses the ID (%v): the entry must report InvalidSpec", err)
		waitCondition(t, entry, v1alpha1.ConditionSynced, metav1.ConditionFalse, v1alpha1.ReasonInvalidSpec, waitTimeout)
		waitEvent(t, ns, "ListEntry", "wide", corev1.EventTypeWarning, v1alpha1.ReasonInvalidSpec, waitTimeout)
	} else {
		t.Log("the list client accepts the ID: the entry must sync")
		waitCondition(t, entry, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
		waitOnList(t, sharedLists, path, "", id, true, waitTimeout)
	}
	deleteObj(t, entry)
	waitGone(t, entry, waitTimeout)
	if got := mustDocItems(t, sharedLists, path, ""); len(got) != 0 {
		t.Errorf("items = %v, want none", got)
	}
}
