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
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// recorder is a handler in front of a fake list server that records every
// request's Authorization header.
type recorder struct {
	next http.Handler
	mu   sync.Mutex
	auth []string
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.auth = append(r.auth, req.Header.Get("Authorization"))
	r.mu.Unlock()
	r.next.ServeHTTP(w, req)
}

func (r *recorder) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.auth...)
}

// TestInsecureTransport: Secret headers and a URL from a Secret are never
// sent over plain http unless spec.allowInsecureHTTP is set. The API server
// refuses what it can see (spec.url with headersFrom or auth); the operator
// refuses a urlFrom whose URL is http with InsecureTransport and sends
// nothing, until the list opts in.
func TestInsecureTransport(t *testing.T) {
	t.Parallel()
	const token = "planted-TOKEN-0xAB12-insecure"
	ns := newNamespace(t)
	rep := startManager(t, managerConfig{namespace: ns, devLog: true})
	lists, err := fakeapi.New(fakeapi.WithToken(token))
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{next: lists}
	hs := httptest.NewServer(rec)
	t.Cleanup(hs.Close)
	setDoc(t, lists, "/list", []string{"bystander"})
	create(t, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "list-auth", Namespace: ns},
		StringData: map[string]string{"Authorization": "Bearer " + token},
	})
	create(t, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "list-url", Namespace: ns},
		StringData: map[string]string{"url": hs.URL + "/list"},
	})
	headers := func(s *v1alpha1.ExternalListSpec) {
		s.HeadersFrom = &v1alpha1.HeadersSource{SecretRef: v1alpha1.SecretReference{Name: "list-auth"}}
	}

	// What CEL sees: spec.url is http and headersFrom or auth is set.
	for name, mutate := range map[string]func(*v1alpha1.ExternalListSpec){
		"headers": headers,
		"workload identity": func(s *v1alpha1.ExternalListSpec) {
			s.Auth = &v1alpha1.StoreAuth{GCP: &v1alpha1.GCPAuth{}}
		},
	} {
		err := k8sClient.Create(ctxFor(t), newExternalList(ns, "cel", hs.URL+"/list", mutate))
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "allowInsecureHTTP") {
			t.Errorf("%s over http: want the API server to refuse it naming allowInsecureHTTP, got %v", name, err)
		}
	}

	// What only the operator sees: the URL in the Secret is http.
	xl := newExternalList(ns, "private", "", headers, func(s *v1alpha1.ExternalListSpec) {
		s.URLFrom = &v1alpha1.URLSource{SecretKeyRef: v1alpha1.SecretKeySelector{Name: "list-url", Key: "url"}}
	})
	create(t, xl)
	entry := newListEntry(ns, "tenant-a", "private", "tenant-a")
	create(t, entry)
	c := waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonInsecureTransport, waitTimeout)
	for _, want := range []string{"spec.headersFrom", "spec.urlFrom", "allowInsecureHTTP"} {
		if !strings.Contains(c.Message, want) {
			t.Errorf("Ready message %q does not name %s", c.Message, want)
		}
	}
	waitEvent(t, ns, "ExternalList", "private", corev1.EventTypeWarning, v1alpha1.ReasonInsecureTransport, waitTimeout)
	waitCondition(t, entry, v1alpha1.ConditionSynced, metav1.ConditionFalse, v1alpha1.ReasonInsecureTransport, waitTimeout)
	waitEvent(t, ns, "ListEntry", "tenant-a", corev1.EventTypeWarning, v1alpha1.ReasonInsecureTransport, waitTimeout)
	if got := rec.requests(); len(got) != 0 {
		t.Fatalf("%d requests reached the plain-http server before the list opted in; want none", len(got))
	}

	// The list opts in: the same server now gets the header, and the entry
	// syncs.
	setSpec(t, xl, func(s *v1alpha1.ExternalListSpec) { s.AllowInsecureHTTP = true })
	waitCondition(t, entry, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	waitOnList(t, lists, "/list", "", "tenant-a", true, waitTimeout)
	got := rec.requests()
	if len(got) == 0 {
		t.Fatal("no request after opting in; the check above would be vacuous")
	}
	for i, a := range got {
		if a != "Bearer "+token {
			t.Errorf("request %d carried Authorization %q, want the Secret's", i, a)
		}
	}
	assertNoLeak(t, ns, rep, token)
}
