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
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// TestSecretHeaders: headers come from a Secret; a missing Secret is
// reported; rotating the Secret (with the server's token) recovers the
// list; and the secret values never leak into events, conditions, logs or
// metric labels.
func TestSecretHeaders(t *testing.T) {
	t.Parallel()
	const (
		planted1 = "planted-SECRET-0xC0FFEE-one"
		planted2 = "planted-SECRET-0xBADC0DE-two"
	)
	ns := newNamespace(t)
	// Debug level, so the V(1) logs of the ETag client are captured too.
	rep := startManager(t, managerConfig{namespace: ns, devLog: true})
	ctx := context.Background()

	// The list server checks the bearer token; rotating it swaps in a
	// server with the new token (and the same document) behind the same
	// URL.
	first, err := fakeapi.New(fakeapi.WithToken(planted1))
	if err != nil {
		t.Fatal(err)
	}
	var current atomic.Pointer[fakeapi.Server]
	current.Store(first)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		current.Load().ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	setDoc(t, first, "/list", []string{})

	xl := newExternalList(ns, "private", hs.URL+"/list", func(s *v1alpha1.ExternalListSpec) {
		s.HeadersFrom = &v1alpha1.HeadersSource{SecretRef: v1alpha1.SecretReference{Name: "list-auth"}}
		s.AllowInsecureHTTP = true // httptest serves plain http on loopback
	})
	create(t, xl)
	c := waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonSecretNotFound, waitTimeout)
	if !strings.Contains(c.Message, "list-auth") {
		t.Errorf("SecretNotFound message %q does not name the Secret", c.Message)
	}
	waitEvent(t, ns, "ExternalList", "private", corev1.EventTypeWarning, v1alpha1.ReasonSecretNotFound, waitTimeout)

	// The Secret appears: the list recovers without any change to it.
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "list-auth", Namespace: ns},
		StringData: map[string]string{"Authorization": "Bearer " + planted1},
	}
	create(t, secret)
	waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	e1 := newListEntry(ns, "one", "private", "tenant-one")
	create(t, e1)
	waitCondition(t, e1, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	waitOnList(t, first, "/list", "", "tenant-one", true, waitTimeout)
	if n := first.Stats().CountCode(http.StatusUnauthorized); n != 0 {
		t.Errorf("%d requests were refused with the right token configured", n)
	}

	// Rotate the server's token: the operator's writes are refused...
	second, err := fakeapi.New(fakeapi.WithToken(planted2))
	if err != nil {
		t.Fatal(err)
	}
	raw, _, _ := first.Get("/list")
	if _, err := second.Set("/list", raw); err != nil {
		t.Fatal(err)
	}
	current.Store(second)
	e2 := newListEntry(ns, "two", "private", "tenant-two")
	create(t, e2)
	waitCondition(t, e2, v1alpha1.ConditionSynced, metav1.ConditionFalse, v1alpha1.ReasonUnauthorized, waitTimeout)
	// ...and the list reports it when it looks again (a spec change makes
	// it look now).
	patch := client.MergeFrom(xl.DeepCopy())
	xl.Spec.ResyncInterval = &metav1.Duration{Duration: 11 * time.Minute}
	if err := k8sClient.Patch(ctx, xl, patch); err != nil {
		t.Fatal(err)
	}
	waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonUnauthorized, waitTimeout)

	// Rotate the Secret: the list and the waiting entry recover.
	secret.StringData = map[string]string{"Authorization": "Bearer " + planted2}
	if err := k8sClient.Update(ctx, secret); err != nil {
		t.Fatal(err)
	}
	waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	waitCondition(t, e2, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	waitOnList(t, second, "/list", "", "tenant-two", true, waitTimeout)

	deleteObj(t, e1)
	waitGone(t, e1, waitTimeout)
	waitOnList(t, second, "/list", "", "tenant-one", false, waitTimeout)

	// The planted values appear nowhere the operator writes.
	assertNoLeak(t, ns, rep, planted1, planted2)
}

// assertNoLeak checks events, conditions, the manager's and the global log,
// and metric label values for the secrets.
func assertNoLeak(t *testing.T, ns string, rep *replica, secrets ...string) {
	t.Helper()
	leaks := func(where, s string) {
		for _, secret := range secrets {
			if i := strings.Index(s, secret); i >= 0 {
				t.Errorf("secret value found in %s: ...%q...", where, s[max(0, i-200):min(len(s), i+len(secret)+50)])
			}
		}
	}
	evs := events(t, ns)
	if len(evs) == 0 {
		t.Error("no events recorded; the leak check would be vacuous")
	}
	for _, e := range evs {
		leaks("event "+e.Name, strings.Join([]string{e.Reason, e.Note, e.Action, e.ReportingController, e.ReportingInstance}, " "))
	}

	var lists v1alpha1.ExternalListList
	if err := k8sClient.List(context.Background(), &lists, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var entries v1alpha1.ListEntryList
	if err := k8sClient.List(context.Background(), &entries, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var conds []metav1.Condition
	for _, l := range lists.Items {
		conds = append(conds, l.Status.Conditions...)
		leaks("ExternalList status etag", l.Status.ETag)
	}
	for _, e := range entries.Items {
		conds = append(conds, e.Status.Conditions...)
	}
	for _, c := range conds {
		leaks("condition "+c.Type, c.Reason+" "+c.Message)
	}

	logs := rep.log.String()
	if !strings.Contains(logs, "Reconciler error") {
		t.Error("the manager log holds no reconcile errors; the leak check would be vacuous")
	}
	leaks("the manager log", logs)
	leaks("the global log", globalLog.String())

	families, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				leaks("metric "+f.GetName()+" label "+l.GetName(), l.GetValue())
			}
		}
	}
}
