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
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/stores"
	"github.com/listkeeper/listkeeper/internal/storetest/gcstoken"
)

// internalSecret stands for what an internal service behind a key's
// token_uri must never have read back to a tenant.
const internalSecret = "INTERNAL-ONLY db_password=hunter2-5e1f"

// gcpKey returns a service-account key JSON whose token_uri is tokenURI
// ("" leaves the field out), signed by an account of a fresh gcstoken
// Server, and the Secret that carries it.
func gcpKey(t *testing.T, tokenURI string) ([]byte, stores.SecretFunc) {
	t.Helper()
	s, err := gcstoken.New()
	if err != nil {
		t.Fatal(err)
	}
	key, err := s.NewServiceAccountKey("https://oauth2.googleapis.com/token")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(key, &m); err != nil {
		t.Fatal(err)
	}
	if tokenURI == "" {
		delete(m, "token_uri")
	} else {
		m["token_uri"] = tokenURI
	}
	if key, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	return key, secrets(map[string]map[string]string{"gcp": {stores.GCPCredentialsKey: string(key)}})
}

var gcpSecretAuth = &v1alpha1.StoreAuth{GCP: &v1alpha1.GCPAuth{SecretRef: &v1alpha1.SecretReference{Name: "gcp"}}}

// TestGCPTokenURI: a key's token_uri must be Google's token endpoint or
// one the policy adds; anything else is an invalid spec, refused before
// any request.
func TestGCPTokenURI(t *testing.T) {
	const fake = "http://127.0.0.1:8089/token"
	for _, tc := range []struct {
		tokenURI string
		extra    []string
		ok       bool
	}{
		{"https://oauth2.googleapis.com/token", nil, true},
		{"", nil, true}, // the library's default: Google's
		{"https://accounts.google.com/o/oauth2/token", nil, true},
		{"https://OAuth2.GoogleAPIs.com/token", nil, true},
		{fake, []string{fake}, true},
		{fake, nil, false},
		{"http://oauth2.googleapis.com/token", nil, false},
		{"https://oauth2.googleapis.com:8443/token", nil, false},
		{"https://oauth2.googleapis.com.evil.example/token", nil, false},
		{"https://evil.example/token#https://oauth2.googleapis.com/token", nil, false},
		{"https://oauth2.googleapis.com@evil.example/token", nil, false},
		{"https://oauth2.googleapis.com/token?redirect=https://evil.example/", nil, false},
		{"https://oauth2.googleapis.com/other", nil, false},
		{"https://metadata.google.internal/computeMetadata/v1/", nil, false},
		{"http://127.0.0.1:8089/token/", []string{fake}, false},
	} {
		t.Run(tc.tokenURI, func(t *testing.T) {
			_, sec := gcpKey(t, tc.tokenURI)
			_, _, err := stores.Options(t.Context(), gcpSecretAuth, "https://storage.googleapis.com/lists/l.json", sec,
				stores.Policy{GCPTokenURIs: tc.extra})
			switch {
			case tc.ok && err != nil:
				t.Fatalf("refused: %v", err)
			case !tc.ok && (!errors.Is(err, stores.ErrTokenURINotAllowed) || !errors.Is(err, stores.ErrSpec)):
				t.Fatalf("err = %v, want ErrTokenURINotAllowed, an ErrSpec", err)
			case !tc.ok && tc.tokenURI != "" && strings.Contains(err.Error(), tc.tokenURI):
				t.Fatalf("the error repeats the key's token_uri: %v", err)
			}
		})
	}
}

// TestGCPTokenURIInternal: a key pointing its token_uri at an internal
// service is refused before any request reaches it.
func TestGCPTokenURIInternal(t *testing.T) {
	internal := &hits{answer: func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, internalSecret, http.StatusForbidden)
	}}
	internalSrv := serve(t, internal)
	_, sec := gcpKey(t, internalSrv.URL+"/token")
	rec := startRecorder(t)
	err := readList(t, gcpSecretAuth, rec.srv.URL+"/lists/l.json", sec, stores.Policy{Ambient: true, AmbientHosts: []string{"127.0.0.1"}})
	if n := internal.n.Load(); n > 0 {
		t.Errorf("the internal endpoint got %d requests", n)
	}
	if err != nil && strings.Contains(err.Error(), "INTERNAL-ONLY") {
		t.Errorf("the error reads back the internal endpoint's answer: %v", err)
	}
	if !errors.Is(err, stores.ErrTokenURINotAllowed) {
		t.Errorf("err = %v, want ErrTokenURINotAllowed", err)
	}
	t.Logf("refused: %v", err)
}

// TestGCPTokenError: an allowed token endpoint that fails is reported by
// its status, never by its body.
func TestGCPTokenError(t *testing.T) {
	tokenSrv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"error":"` + internalSecret + `","error_description":"` + internalSecret + `"}`))
	}))
	tokenURI := tokenSrv.URL + "/token"
	_, sec := gcpKey(t, tokenURI)
	rec := startRecorder(t)
	err := readList(t, gcpSecretAuth, rec.srv.URL+"/lists/l.json", sec, stores.Policy{GCPTokenURIs: []string{tokenURI}})
	if !errors.Is(err, etagclient.ErrUnauthorized) {
		t.Errorf("err = %v, want ErrUnauthorized", err)
	}
	if err != nil && (strings.Contains(err.Error(), "INTERNAL-ONLY") || strings.Contains(err.Error(), "hunter2")) {
		t.Errorf("the error carries the token endpoint's body: %v", err)
	}
	if err == nil || !strings.Contains(err.Error(), "500") {
		t.Errorf("err = %v, want the token endpoint's status 500 in it", err)
	}
	t.Logf("token endpoint failed: %v", err)
	noCredential(t, rec)
}

// TestGCPTokenRedirect: a token endpoint that redirects elsewhere is not
// followed.
func TestGCPTokenRedirect(t *testing.T) {
	elsewhere := &hits{answer: func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, internalSecret, http.StatusForbidden)
	}}
	elsewhereSrv := serve(t, elsewhere)
	tokenSrv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhereSrv.URL+"/token", http.StatusFound)
	}))
	tokenURI := tokenSrv.URL + "/token"
	_, sec := gcpKey(t, tokenURI)
	rec := startRecorder(t)
	err := readList(t, gcpSecretAuth, rec.srv.URL+"/lists/l.json", sec, stores.Policy{GCPTokenURIs: []string{tokenURI}})
	if n := elsewhere.n.Load(); n > 0 {
		t.Errorf("the redirect was followed: the other host got %d requests", n)
	}
	if !errors.Is(err, etagclient.ErrUnauthorized) {
		t.Errorf("err = %v, want ErrUnauthorized", err)
	}
	if err != nil && strings.Contains(err.Error(), "INTERNAL-ONLY") {
		t.Errorf("the error carries the other host's body: %v", err)
	}
	t.Logf("redirected: %v", err)
	noCredential(t, rec)
}
