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

package iamfake_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/oauth2"
	crm "google.golang.org/api/cloudresourcemanager/v3"

	"github.com/listkeeper/listkeeper/internal/storetest/iamfake"
)

// TestUnauthenticated: a request without a token, or with one the token
// endpoint never issued, is 401 with WWW-Authenticate, on both APIs, and
// reads nothing.
func TestUnauthenticated(t *testing.T) {
	e := start(t)
	seed(t, e.srv, "projects/p", projectPolicy())
	seed(t, e.srv, bucket, bucketPolicy())
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	for _, tc := range []struct {
		name, wwwAuth string
		client        *http.Client
	}{
		{"no token", `Bearer realm="https://accounts.google.com/"`, &http.Client{Transport: tr}},
		{"a token never issued", `Bearer realm="https://accounts.google.com/", error="invalid_token"`,
			oauthClient(t, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "ya29.forged", TokenType: "Bearer"}))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, g := services(t, e.srv, tc.client)
			_, err := c.Projects.GetIamPolicy("projects/p", &crm.GetIamPolicyRequest{}).Do()
			ge := apiError(t, err, http.StatusUnauthorized)
			if got := status(t, ge.Body); got != "UNAUTHENTICATED" {
				t.Errorf("Resource Manager: status %q", got)
			}
			if got := ge.Header.Get("WWW-Authenticate"); got != tc.wwwAuth {
				t.Errorf("WWW-Authenticate = %q, want %q", got, tc.wwwAuth)
			}
			_, err = g.Buckets.GetIamPolicy("lists-bucket").OptionsRequestedPolicyVersion(3).Do()
			ge = apiError(t, err, http.StatusUnauthorized)
			if got := reason(t, ge.Body); got != "required" && got != "authError" {
				t.Errorf("Cloud Storage: reason %q", got)
			}
			if strings.Contains(ge.Body, "bindings") {
				t.Errorf("a refused read got a policy: %s", ge.Body)
			}
		})
	}
	if st := e.tokens.Stats(); st.Unknown == 0 {
		t.Error("the token check never refused a token: the forged one was not checked")
	}
}

// TestFaultHook: a FaultHook's error is answered in each API's shape,
// and the policy is neither read nor written.
func TestFaultHook(t *testing.T) {
	e := start(t)
	seed(t, e.srv, "projects/p", projectPolicy())
	seed(t, e.srv, bucket, bucketPolicy())
	for _, tc := range []struct {
		fault        *iamfake.Error
		code         int
		status, word string
	}{
		{iamfake.ErrResourceExhausted(), http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", "rateLimitExceeded"},
		{iamfake.ErrUnavailable(), http.StatusServiceUnavailable, "UNAVAILABLE", "backendError"},
	} {
		t.Run(tc.status, func(t *testing.T) {
			var calls []iamfake.Call
			e.srv.SetFaultHook(func(c iamfake.Call) *iamfake.Error {
				calls = append(calls, c) // requests of this subtest come one at a time
				return tc.fault
			})
			defer e.srv.SetFaultHook(nil)
			p := getV3Raw(t, e)
			_, err := e.crm.Projects.SetIamPolicy("projects/p", &crm.SetIamPolicyRequest{Policy: p}).Context(context.Background()).Do()
			if got := status(t, apiError(t, err, tc.code).Body); got != tc.status {
				t.Errorf("Resource Manager: status %q, want %q", got, tc.status)
			}
			_, err = e.gcs.Buckets.GetIamPolicy("lists-bucket").OptionsRequestedPolicyVersion(3).Do()
			if got := reason(t, apiError(t, err, tc.code).Body); got != tc.word {
				t.Errorf("Cloud Storage: reason %q, want %q", got, tc.word)
			}
			if len(calls) != 2 || calls[0].Method != iamfake.MethodSet || calls[0].Resource != "projects/p" ||
				calls[1].API != iamfake.Storage || calls[1].Resource != bucket {
				t.Errorf("the hook saw %+v", calls)
			}
		})
	}
	if c := e.srv.Commits(); c != 0 {
		t.Errorf("%d setIamPolicy calls committed through the fault", c)
	}
}

// getV3Raw reads projects/p without the fault hook's interference: the
// policy as SetPolicy's caller holds it, in the library's type.
func getV3Raw(t *testing.T, e *env) *crm.Policy {
	t.Helper()
	p, ok := e.srv.Policy("projects/p")
	if !ok {
		t.Fatal("projects/p is gone")
	}
	out := &crm.Policy{Version: int64(p.Version), Etag: p.Etag}
	for _, b := range p.Bindings {
		if b.Condition == nil {
			out.Bindings = append(out.Bindings, &crm.Binding{Role: b.Role, Members: b.Members})
		}
	}
	return out
}
