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

package stores_test

import (
	"crypto/x509"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/stores"
)

// entraToken is the access token the fake Entra issues.
const entraToken = "eyJ0eXAiOiJKV1QifQ.fake-entra-access-token.sig"

// entraHandler serves what azidentity's workload identity asks of
// Microsoft Entra ID, for tenant: the tenant's OpenID configuration and its
// token endpoint, which trades the federated token (client_assertion) for
// an access token. assertions counts the token requests; token, when not
// nil, answers them instead.
func entraHandler(authority *string, assertions *atomic.Int64, token http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{tenant}/v2.0/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		base := *authority + "/" + r.PathValue("tenant")
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{
			"authorization_endpoint": base + "/oauth2/v2.0/authorize",
			"token_endpoint":         base + "/oauth2/v2.0/token",
			"issuer":                 base + "/v2.0",
		})
	})
	mux.HandleFunc("POST /{tenant}/oauth2/v2.0/token", func(w http.ResponseWriter, r *http.Request) {
		assertions.Add(1)
		if token != nil {
			token.ServeHTTP(w, r)
			return
		}
		if err := r.ParseForm(); err != nil || !strings.Contains(r.PostForm.Get("client_assertion"), "projected-azure-token") ||
			!strings.Contains(r.PostForm.Get("scope"), "https://storage.azure.com/.default") {
			http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"token_type": "Bearer", "expires_in": 3600, "ext_expires_in": 3600, "access_token": entraToken})
	})
	return mux
}

// startEntra serves a fake Entra over TLS, sets the workload identity
// environment for it, and makes the signers trust its certificate.
func startEntra(t *testing.T, token http.Handler) (*entraFake, *atomic.Int64) {
	t.Helper()
	var authority string
	assertions := &atomic.Int64{}
	e := startEntraFake(t, entraHandler(&authority, assertions, token))
	authority = e.srv.URL
	azureWorkloadIdentity(t, authority)
	pool := x509.NewCertPool()
	pool.AddCert(e.srv.Certificate())
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig.RootCAs = pool
	tr.DisableKeepAlives = true
	stores.SetCredentialTransport(t, tr)
	stores.DisableAzureInstanceDiscovery(t)
	return e, assertions
}

var azureWIAuth = &v1alpha1.StoreAuth{Azure: &v1alpha1.AzureAuth{WorkloadIdentity: &v1alpha1.AzureWorkloadIdentity{}}}

// TestAmbientAzure: Entra workload identity (against a fake Entra) gets a
// token for a host the policy adds, and the list server gets it.
func TestAmbientAzure(t *testing.T) {
	_, assertions := startEntra(t, nil)
	rec := startRecorder(t)
	if err := readList(t, azureWIAuth, rec.srv.URL+"/account/lists/l.json", noSecrets, stores.Policy{Ambient: true, AmbientHosts: []string{"127.0.0.1"}}); err != nil {
		t.Fatalf("read with the operator's identity from an allowed host: %v", err)
	}
	got, _ := rec.credentials()
	if len(got) != 1 || got[0] != "Authorization: Bearer "+entraToken {
		t.Fatalf("the list server got %v, want the Entra token", redactAll(got))
	}
	if assertions.Load() != 1 {
		t.Fatalf("%d token requests, want 1", assertions.Load())
	}
}

// TestDeadlineAzure: an Entra token endpoint that never answers holds a
// read no longer than the request's timeout.
func TestDeadlineAzure(t *testing.T) {
	h := newHang(t)
	startEntra(t, h)
	rec := startRecorder(t)
	readWithin(t, h, azureWIAuth, rec.srv.URL+"/account/lists/l.json", noSecrets, stores.Policy{Ambient: true, AmbientHosts: []string{"127.0.0.1"}})
	noCredential(t, rec)
}
