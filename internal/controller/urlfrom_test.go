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
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// TestURLFromSecret: a URL that carries a token (a SAS or presigned URL)
// comes from a Secret. Entries sync through it, a rotated URL is picked up
// without a restart, and the token appears nowhere the operator writes.
func TestURLFromSecret(t *testing.T) {
	t.Parallel()
	const (
		token1 = "sig=planted-SAS-0xFEEDFACE-one"
		token2 = "sig=planted-SAS-0xDEADBEEF-two"
	)
	ns := newNamespace(t)
	rep := startManager(t, managerConfig{namespace: ns, devLog: true})
	lists, err := fakeapi.New()
	if err != nil {
		t.Fatal(err)
	}
	// The server accepts a request only with the current token in its
	// query, as a SAS does.
	var want atomic.Value
	want.Store(token1)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.RawQuery != want.Load().(string) {
			http.Error(w, "signature mismatch", http.StatusForbidden)
			return
		}
		lists.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	setDoc(t, lists, "/blob", []string{"keep"})

	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "sas", Namespace: ns},
		StringData: map[string]string{"url": hs.URL + "/blob?" + token1},
	}
	create(t, secret)
	xl := newExternalList(ns, "blob", "", func(s *v1alpha1.ExternalListSpec) {
		s.URLFrom = &v1alpha1.URLSource{SecretKeyRef: v1alpha1.SecretKeySelector{Name: "sas", Key: "url"}}
		s.AllowInsecureHTTP = true // httptest serves plain http on loopback
	})
	create(t, xl)
	waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	// Only scheme and host show: not the path (a token may be in it), not
	// even the query's parameter names.
	if want := hs.URL; xl.Status.RedactedURL != want {
		t.Errorf("status.redactedURL = %q, want %q", xl.Status.RedactedURL, want)
	}
	e1 := newListEntry(ns, "one", "blob", "tenant-one")
	create(t, e1)
	waitCondition(t, e1, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	waitOnList(t, lists, "/blob", "", "tenant-one", true, waitTimeout)

	// The SAS is rotated: the old one stops working, the new one is in the
	// Secret; a new entry syncs through the new URL.
	want.Store(token2)
	secret.StringData = map[string]string{"url": hs.URL + "/blob?" + token2}
	if err := k8sClient.Update(ctxFor(t), secret); err != nil {
		t.Fatal(err)
	}
	e2 := newListEntry(ns, "two", "blob", "tenant-two")
	create(t, e2)
	waitCondition(t, e2, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	waitOnList(t, lists, "/blob", "", "tenant-two", true, waitTimeout)

	// A key that is not in the Secret: SecretNotFound, naming the key, not
	// the URL.
	bad := newExternalList(ns, "bad", "", func(s *v1alpha1.ExternalListSpec) {
		s.URLFrom = &v1alpha1.URLSource{SecretKeyRef: v1alpha1.SecretKeySelector{Name: "sas", Key: "nope"}}
	})
	create(t, bad)
	c := waitCondition(t, bad, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonSecretNotFound, waitTimeout)
	if !strings.Contains(c.Message, `"nope"`) {
		t.Errorf("message %q does not name the missing key", c.Message)
	}
	assertNoLeak(t, ns, rep, "planted-SAS-0xFEEDFACE-one", "planted-SAS-0xDEADBEEF-two")
}
