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
	"encoding/pem"
	"io"
	"log"
	"net/http/httptest"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// TestPrivateCA: a list served over https by a certificate that only
// spec.caBundle trusts. With the bundle the entry syncs; without it the
// certificate error is reported (never skipped) and nothing is written.
func TestPrivateCA(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startManager(t, managerConfig{namespace: ns})

	api, err := fakeapi.New()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(api)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are expected
	srv.StartTLS()                                   // 127.0.0.1, a certificate of its own CA
	t.Cleanup(srv.Close)
	caPEM := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	setDoc(t, api, "/trusted", []string{"b"})
	setDoc(t, api, "/untrusted", []string{"b"})

	trusted := newExternalList(ns, "trusted", srv.URL+"/trusted", func(s *v1alpha1.ExternalListSpec) { s.CABundle = caPEM })
	untrusted := newExternalList(ns, "untrusted", srv.URL+"/untrusted")
	create(t, trusted)
	create(t, untrusted)
	ok := newListEntry(ns, "ok", "trusted", "tls-ok")
	bad := newListEntry(ns, "bad", "untrusted", "tls-bad")
	create(t, ok)
	create(t, bad)

	waitOnList(t, api, "/trusted", "", "tls-ok", true, waitTimeout)
	waitCondition(t, ok, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)

	c := waitCondition(t, bad, v1alpha1.ConditionSynced, metav1.ConditionFalse, v1alpha1.ReasonListUnreachable, waitTimeout)
	if !strings.Contains(c.Message, "x509") && !strings.Contains(c.Message, "certificate") {
		t.Errorf("condition message %q does not name the certificate error", c.Message)
	}
	waitCondition(t, untrusted, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonListUnreachable, waitTimeout)
	if got := mustDocItems(t, api, "/untrusted", ""); strings.Join(got, ",") != "b" {
		t.Errorf("untrusted list = %v, want it unchanged [b]", got)
	}
}
