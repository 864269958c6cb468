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
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/stores"
	"github.com/listkeeper/listkeeper/internal/storetest/wafv2fake"
)

// TestWAFv2NotFound: a set that is not there is ErrNotFound, for a read
// and for a write; the read never says Absent (a set is never created).
func TestWAFv2NotFound(t *testing.T) {
	f := startWAF(t)
	spec := f.spec()
	spec.ID = "00000000-0000-4000-8000-000000000000"
	b, err := wafBackend(t, spec, wafAuth, wafKey, stores.Policy{}, wafEnv(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	ans, err := b.Read(t.Context(), etagclient.Version{})
	if !errors.Is(err, etagclient.ErrNotFound) || ans.Absent {
		t.Fatalf("Read = %+v, %v; want ErrNotFound", ans, err)
	}
	safeText(t, err)

	// A write on the version of a read of the real set, to a set that is
	// gone by then.
	read := mustRead(t, mustWAFBackend(t, f, 0))
	_, err = b.Write(t.Context(), read.Doc, false, read.Version)
	if !errors.Is(err, etagclient.ErrNotFound) || !strings.Contains(err.Error(), "(WAFNonexistentItemException)") {
		t.Errorf("Write: %v, want ErrNotFound naming WAFNonexistentItemException", err)
	}
	if _, err := b.Write(t.Context(), read.Doc, true, etagclient.Version{}); !errors.Is(err, etagclient.ErrRejected) {
		t.Errorf("create: %v, want ErrRejected", err)
	}
	if _, err := b.Write(t.Context(), read.Doc, false, etagclient.Version{}); !errors.Is(err, etagclient.ErrUnsafeServer) {
		t.Errorf("a write without a read: %v, want ErrUnsafeServer", err)
	}
}

// TestWAFv2Unauthorized: keys AWS does not know, a wrong secret and an
// expired session token are ErrUnauthorized, in words that carry neither
// the canonical request AWS shows nor the secret.
func TestWAFv2Unauthorized(t *testing.T) {
	temp := aws.Credentials{AccessKeyID: "LISTKEEPERWAFTEMP001", SecretAccessKey: "temp-secret", SessionToken: "session-token-1"}
	f := startWAF(t, wafv2fake.WithCredentials(wafv2fake.DefaultCredentials(), temp))
	if err := f.srv.ExpireSessionToken(temp.AccessKeyID); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		sec  stores.SecretFunc
		code string
	}{
		{"wrong secret", wafSecrets(wafv2fake.TestAccessKeyID, "not-the-secret"), "InvalidSignatureException"},
		{"unknown key", wafSecrets("LISTKEEPERWAFNOKEY01", "x"), "UnrecognizedClientException"},
		{"expired session token", secrets(map[string]map[string]string{"aws": {
			stores.AWSAccessKeyID: temp.AccessKeyID, stores.AWSSecretAccessKey: temp.SecretAccessKey, stores.AWSSessionToken: temp.SessionToken}}), "ExpiredTokenException"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := wafBackend(t, f.spec(), wafAuth, tc.sec, stores.Policy{}, wafEnv(t, 2))
			if err != nil {
				t.Fatal(err)
			}
			_, err = b.Read(t.Context(), etagclient.Version{})
			if !errors.Is(err, etagclient.ErrUnauthorized) || !strings.Contains(err.Error(), "("+tc.code+")") {
				t.Fatalf("err = %v, want ErrUnauthorized naming %s", err, tc.code)
			}
			safeText(t, err)
		})
	}
	if n := f.srv.Stats().Total; n != 3 {
		t.Errorf("%d requests, want 3: a refused signature is not retried", n)
	}
}

// TestWAFv2RetriedThenServed: throttling and WAFUnavailableEntityException
// are retried by the SDK, within the engine's retries, until WAF serves
// the call; the fake's log shows the tries.
func TestWAFv2RetriedThenServed(t *testing.T) {
	f := startWAF(t)
	b := mustWAFBackend(t, f, 2)
	f.srv.SetFaultHook(wafv2fake.FailFirst(wafv2fake.OpGetIPSet, 2, wafv2fake.Throttling))
	ans := mustRead(t, b)
	st := f.srv.Stats()
	if st.Count(wafv2fake.OpGetIPSet, http.StatusBadRequest) != 2 || st.Succeeded(wafv2fake.OpGetIPSet) != 1 || st.CountCode("ThrottlingException") != 2 {
		t.Fatalf("GetIPSet requests = %v, want 2 throttled then 1 served", st.Requests[wafv2fake.OpGetIPSet])
	}

	f.srv.SetFaultHook(wafv2fake.FailFirst(wafv2fake.OpUpdateIPSet, 2, wafv2fake.UnavailableEntity))
	w, err := b.Write(t.Context(), with(t, ans.Doc, etagclient.Change{Add: []string{"203.0.113.9/32"}}), false, ans.Version)
	if err != nil || w.Outcome != etagclient.WriteCommitted {
		t.Fatalf("Write = %+v, %v", w, err)
	}
	if st := f.srv.Stats(); st.CountCode("WAFUnavailableEntityException") != 2 || st.Succeeded(wafv2fake.OpUpdateIPSet) != 1 {
		t.Errorf("UpdateIPSet requests = %v, want 2 unavailable then 1 served", st.Requests[wafv2fake.OpUpdateIPSet])
	}
}

// TestWAFv2InvalidParameter: an address WAF refuses makes the write
// ErrRejected, naming the field but not the address WAF's message echoes.
func TestWAFv2InvalidParameter(t *testing.T) {
	f := startWAF(t)
	b := mustWAFBackend(t, f, 2)
	ans := mustRead(t, b)
	_, err := b.Write(t.Context(), with(t, ans.Doc, etagclient.Change{Add: []string{"10.9.8.7/24"}}), false, ans.Version)
	if !errors.Is(err, etagclient.ErrRejected) || !strings.Contains(err.Error(), "field IP_ADDRESS (WAFInvalidParameterException)") {
		t.Fatalf("err = %v, want ErrRejected naming the field and the code", err)
	}
	if strings.Contains(err.Error(), "10.9.8.7") {
		t.Errorf("the error echoes the address: %v", err)
	}
	if n := f.srv.Stats().Operations(wafv2fake.OpUpdateIPSet); n != 1 {
		t.Errorf("%d UpdateIPSet requests, want 1: a refusal is not retried", n)
	}
}

// TestWAFv2AnswerLost: an update that landed but whose answer was lost is
// a write of unknown outcome; only a fresh read can tell, and it shows
// the change.
func TestWAFv2AnswerLost(t *testing.T) {
	f := startWAF(t)
	b := mustWAFBackend(t, f, 0)
	ans := mustRead(t, b)
	f.srv.SetFaultHook(wafv2fake.FailFirst(wafv2fake.OpUpdateIPSet, 1, wafv2fake.DropAnswer))
	w, err := b.Write(t.Context(), with(t, ans.Doc, etagclient.Change{Add: []string{"203.0.113.9/32"}}), false, ans.Version)
	if err != nil || w.Outcome != etagclient.WriteUnknown || w.Cause == nil {
		t.Fatalf("Write = %+v, %v; want WriteUnknown with a cause", w, err)
	}
	if got := mustRead(t, b).Doc.Items(); len(got) != 2 {
		t.Errorf("items after the lost answer = %v: the update landed", got)
	}
}

// fencedTransport is the engine's fence in miniature: it refuses every
// UpdateIPSet before it is sent, as the engine's client does once the
// writer's right has ended, and counts the attempts.
type fencedTransport struct {
	next     http.RoundTripper
	attempts atomic.Int64
}

func (t *fencedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if strings.HasSuffix(req.Header.Get("X-Amz-Target"), ".UpdateIPSet") {
		t.attempts.Add(1)
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, errFencedAttempt
	}
	return t.next.RoundTrip(req)
}

var errFencedAttempt = errors.Join(etagclient.ErrFenced, errors.New("the writer's right ended"))

// TestWAFv2Fenced: a write that the engine's fence refused, or whose
// context the fence ended, is a write of unknown outcome whose cause is
// the fence's, so that the engine knows; the SDK does not retry it.
func TestWAFv2Fenced(t *testing.T) {
	f := startWAF(t)
	env := wafEnv(t, 3)
	fence := &fencedTransport{next: env.HTTPClient.Transport}
	env.HTTPClient.Transport = fence
	b, err := wafBackend(t, f.spec(), wafAuth, wafKey, stores.Policy{}, env)
	if err != nil {
		t.Fatal(err)
	}
	ans := mustRead(t, b)
	next := with(t, ans.Doc, etagclient.Change{Add: []string{"203.0.113.9/32"}})

	w, err := b.Write(t.Context(), next, false, ans.Version)
	if err != nil || w.Outcome != etagclient.WriteUnknown || !errors.Is(w.Cause, etagclient.ErrFenced) {
		t.Fatalf("Write = %+v, %v; want WriteUnknown caused by the fence", w, err)
	}
	if n := fence.attempts.Load(); n != 1 {
		t.Errorf("%d attempts, want 1: a fenced write is not retried", n)
	}

	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(errFencedAttempt)
	w, err = b.Write(ctx, next, false, ans.Version)
	if err != nil || w.Outcome != etagclient.WriteUnknown || !errors.Is(w.Cause, etagclient.ErrFenced) {
		t.Fatalf("Write under a fenced context = %+v, %v; want WriteUnknown caused by the fence", w, err)
	}
	if n := f.srv.Stats().Operations(wafv2fake.OpUpdateIPSet); n != 0 {
		t.Errorf("%d updates reached WAF", n)
	}
}

// TestWAFv2Limits: a set with more addresses than the engine's item limit,
// or an answer larger than its size limit, is not taken.
func TestWAFv2Limits(t *testing.T) {
	f := startWAF(t)
	if _, err := f.srv.SetAddresses(wafv2fake.ScopeRegional, f.id, []string{wafForeign, "198.51.100.0/24"}); err != nil {
		t.Fatal(err)
	}
	env := wafEnv(t, 0)
	env.MaxItems = 1
	b, err := wafBackend(t, f.spec(), wafAuth, wafKey, stores.Policy{}, env)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Read(t.Context(), etagclient.Version{}); !errors.Is(err, etagclient.ErrTooManyItems) {
		t.Errorf("2 addresses, limit 1: %v, want ErrTooManyItems", err)
	}

	env = wafEnv(t, 0)
	env.MaxBodyBytes = 64
	b, err = wafBackend(t, f.spec(), wafAuth, wafKey, stores.Policy{}, env)
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Read(t.Context(), etagclient.Version{})
	if !errors.Is(err, etagclient.ErrInvalidDocument) {
		t.Errorf("an answer over 64 bytes: %v, want ErrInvalidDocument", err)
	}
	safeText(t, err)
}

// TestWAFv2Spec: a spec that cannot work is ErrSpec before anything is
// loaded or sent.
func TestWAFv2Spec(t *testing.T) {
	f := startWAF(t)
	mod := func(m func(*v1alpha1.WAFv2IPSet)) *v1alpha1.WAFv2IPSet {
		s := f.spec()
		m(s)
		return s
	}
	tests := []struct {
		name     string
		spec     *v1alpha1.WAFv2IPSet
		auth     *v1alpha1.AWSAuth
		insecure bool
	}{
		{"no spec.auth.aws", f.spec(), nil, true},
		{"http without allowInsecureHTTP", f.spec(), wafAuth, false},
		{"an endpoint with a query", mod(func(s *v1alpha1.WAFv2IPSet) { s.Endpoint += "/?token=x" }), wafAuth, true},
		{"an endpoint with user info", mod(func(s *v1alpha1.WAFv2IPSet) { s.Endpoint = strings.Replace(s.Endpoint, "//", "//u:p@", 1) }), wafAuth, true},
		{"not a URL", mod(func(s *v1alpha1.WAFv2IPSet) { s.Endpoint = "127.0.0.1:443" }), wafAuth, true},
		{"another scheme", mod(func(s *v1alpha1.WAFv2IPSet) { s.Endpoint = "ftp://127.0.0.1/" }), wafAuth, true},
		{"an unknown scope", mod(func(s *v1alpha1.WAFv2IPSet) { s.Scope = "GLOBAL" }), wafAuth, true},
		{"CLOUDFRONT outside us-east-1", mod(func(s *v1alpha1.WAFv2IPSet) { s.Scope, s.Region = v1alpha1.WAFv2ScopeCloudFront, "eu-west-1" }), wafAuth, true},
		{"no id", mod(func(s *v1alpha1.WAFv2IPSet) { s.ID = "" }), wafAuth, true},
		{"a region that is not one", mod(func(s *v1alpha1.WAFv2IPSet) { s.Region = "local" }), wafAuth, true},
		{"a Secret without its keys", f.spec(), wafAuth, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sec := wafKey
			if tt.name == "a Secret without its keys" {
				sec = secrets(map[string]map[string]string{"aws": {stores.AWSAccessKeyID: "x"}})
			}
			_, _, err := stores.WAFv2Backend(t.Context(), tt.spec, tt.auth, sec, stores.Policy{}, tt.insecure)
			if !errors.Is(err, stores.ErrSpec) {
				t.Fatalf("err = %v, want ErrSpec", err)
			}
			if strings.Contains(err.Error(), "token=x") || strings.Contains(err.Error(), "u:p") {
				t.Errorf("the error shows the endpoint's secrets: %v", err)
			}
		})
	}
	if n := f.srv.Stats().Total; n != 0 {
		t.Errorf("%d requests were sent", n)
	}
	if _, _, err := stores.WAFv2Backend(t.Context(), nil, wafAuth, wafKey, stores.Policy{}, true); !errors.Is(err, stores.ErrSpec) {
		t.Errorf("no spec.wafv2: %v", err)
	}
}

// TestWAFv2Fingerprint: the fingerprint changes with the Secret's keys
// (a rotated Secret gets a new client) and only with them.
func TestWAFv2Fingerprint(t *testing.T) {
	f := startWAF(t)
	fp := func(sec stores.SecretFunc) string {
		t.Helper()
		_, fp, err := stores.WAFv2Backend(t.Context(), f.spec(), wafAuth, sec, stores.Policy{}, true)
		if err != nil {
			t.Fatal(err)
		}
		return fp
	}
	a, again, rotated := fp(wafKey), fp(wafKey), fp(wafSecrets(wafv2fake.TestAccessKeyID, "rotated"))
	if a == "" || a != again || a == rotated {
		t.Errorf("fingerprints: %q, again %q, rotated %q", a, again, rotated)
	}
	if strings.Contains(a, wafv2fake.TestSecretAccessKey) {
		t.Error("the fingerprint carries the secret")
	}
}
