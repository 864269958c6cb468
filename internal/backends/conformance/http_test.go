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

	"github.com/listkeeper/listkeeper/internal/backends/conformance"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// TestHTTP: a JSON document behind the list HTTP contract, served by the
// fake list server (strict profile) with a bearer token.
func TestHTTP(t *testing.T) { conformance.Run(t, httpHarness()) }

const httpToken = "conformance-token"

func httpHarness() conformance.Harness {
	return conformance.Harness{
		Kind: "http", Start: startHTTP, IDs: entryIDs, IsWrite: isPut,
		Absent: true, Create: true, Ordered: true,
		Unsafe: etagUnsafe,
	}
}

// startHTTP serves a fake list server on loopback; the list is
// /lists/allow.json, and the missing one /lists/missing.json.
func startHTTP(t *testing.T, probe *conformance.Probe) *conformance.Target {
	srv, err := fakeapi.New(fakeapi.WithToken(httpToken))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	target := func(t *testing.T, path string) *conformance.Target {
		return &conformance.Target{
			URL:          ts.URL + path,
			Options:      []etagclient.Option{etagclient.WithHeaders(http.Header{"Authorization": {"Bearer " + httpToken}})},
			ItemsPointer: docPointer,
			Seed: func(t *testing.T, items []string) {
				if _, err := srv.Set(path, jsonDoc(t, items)); err != nil {
					t.Fatal(err)
				}
			},
			Stored: func(*testing.T) ([]byte, bool) {
				body, _, ok := srv.Get(path)
				return body, ok
			},
			Items:   docItems,
			Foreign: docForeign,
			Inject:  fakeapiInject(srv, probe),
		}
	}
	tg := target(t, "/lists/allow.json")
	tg.Missing = func(t *testing.T, _ *conformance.Probe) *conformance.Target { return target(t, "/lists/missing.json") }
	return tg
}
