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

package conformance_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/backends/conformance"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
	"github.com/listkeeper/listkeeper/internal/stores"
	"github.com/listkeeper/listkeeper/internal/storetest/gcstoken"
)

// TestGCS: an object behind the fake list server's gcs profile (writes
// conditional on the generation), with OAuth 2.0 tokens from a
// service-account key that a fake token endpoint checks.
func TestGCS(t *testing.T) { conformance.Run(t, gcsHarness()) }

func gcsHarness() conformance.Harness {
	return conformance.Harness{
		Kind: "gcs", Start: startGCS, IDs: entryIDs, IsWrite: isPut,
		Absent: true, Create: true, Ordered: true,
		Unsafe: map[string]func(*http.Response){
			"no-generation":        func(resp *http.Response) { resp.Header.Del(fakeapi.HeaderGeneration) },
			"malformed-generation": func(resp *http.Response) { resp.Header.Set(fakeapi.HeaderGeneration, "W/7") },
		},
	}
}

func startGCS(t *testing.T, probe *conformance.Probe) *conformance.Target {
	tokens, err := gcstoken.New()
	if err != nil {
		t.Fatal(err)
	}
	tokenSrv := httptest.NewServer(tokens)
	t.Cleanup(tokenSrv.Close)
	srv, err := fakeapi.New(fakeapi.WithProfile(fakeapi.ProfileGCS), fakeapi.WithTokenCheck(tokens.Valid))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	key, err := tokens.NewServiceAccountKey(tokenSrv.URL + gcstoken.TokenPath)
	if err != nil {
		t.Fatal(err)
	}
	auth := &v1alpha1.StoreAuth{GCP: &v1alpha1.GCPAuth{SecretRef: &v1alpha1.SecretReference{Name: "gcp"}}}
	sec := secrets(map[string]map[string]string{"gcp": {stores.GCPCredentialsKey: string(key)}})
	// The fake token endpoint is on 127.0.0.1, not Google's.
	policy := stores.Policy{GCPTokenURIs: []string{tokenSrv.URL + gcstoken.TokenPath}}
	target := func(t *testing.T, path string) *conformance.Target {
		url := ts.URL + path
		opts, _, err := stores.Options(t.Context(), auth, url, sec, policy)
		if err != nil {
			t.Fatalf("stores.Options: %v", err)
		}
		return &conformance.Target{
			URL: url, Options: opts, ItemsPointer: docPointer,
			Seed: func(t *testing.T, items []string) {
				if _, err := srv.Set(path, jsonDoc(t, items)); err != nil {
					t.Fatal(err)
				}
			},
			Stored: func(*testing.T) ([]byte, bool) {
				body, _, ok := srv.Get(path)
				return body, ok
			},
			Items: docItems, Foreign: docForeign,
			Inject: fakeapiInject(srv, probe),
		}
	}
	tg := target(t, "/lists/allow.json")
	tg.Missing = func(t *testing.T, _ *conformance.Probe) *conformance.Target { return target(t, "/lists/missing.json") }
	return tg
}
