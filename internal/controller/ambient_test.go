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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// TestNoAmbientCredentialsForTenants: a namespaced ExternalList whose
// spec.auth names no Secret would sign with the operator's own identity;
// it is refused with AmbientCredentialsNotAllowed, and the host it names
// (an attacker's) receives nothing at all. A ClusterExternalList may use
// the operator's identity, but only towards the provider's own endpoints.
func TestNoAmbientCredentialsForTenants(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIAOPERATORIDENTITY")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "operator-secret-planted")
	t.Setenv("AWS_SESSION_TOKEN", "operator-session-planted")
	ns := newNamespace(t)
	var got atomic.Int64
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		w.Header().Set("ETag", `"v1"`)
		_, _ = w.Write([]byte(`[]`))
	}))
	t.Cleanup(attacker.Close)
	startManager(t, managerConfig{namespace: ns, clusterAmbient: true})
	ambient := func(s *v1alpha1.ExternalListSpec) {
		s.Auth = &v1alpha1.StoreAuth{AWS: &v1alpha1.AWSAuth{Region: "eu-west-1"}}
		s.AllowInsecureHTTP = true
	}
	xl := newExternalList(ns, "steal", attacker.URL+"/bucket/list.json", ambient)
	create(t, xl)
	c := waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonAmbientCredentialsNotAllowed, waitTimeout)
	if !strings.Contains(c.Message, "namespaced-ambient-credentials") {
		t.Errorf("message %q does not say how to proceed", c.Message)
	}
	waitCondition(t, xl, v1alpha1.ConditionStalled, metav1.ConditionTrue, v1alpha1.ReasonAmbientCredentialsNotAllowed, waitTimeout)
	e := newListEntry(ns, "e", "steal", "x")
	create(t, e)
	waitCondition(t, e, v1alpha1.ConditionSynced, metav1.ConditionFalse, v1alpha1.ReasonAmbientCredentialsNotAllowed, waitTimeout)

	cxl := &v1alpha1.ClusterExternalList{ObjectMeta: metav1.ObjectMeta{Name: "steal-" + ns},
		Spec: v1alpha1.ClusterExternalListSpec{NamespaceSelector: metav1.LabelSelector{}}}
	cxl.Spec.URL = attacker.URL + "/bucket/other.json"
	ambient(&cxl.Spec.ExternalListSpec)
	create(t, cxl)
	t.Cleanup(func() { deleteObj(t, cxl) })
	waitCondition(t, cxl, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonAmbientCredentialsNotAllowed, waitTimeout)
	if n := got.Load(); n != 0 {
		t.Fatalf("the attacker's host received %d requests; want none", n)
	}
}
