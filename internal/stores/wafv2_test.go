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
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/stores"
	"github.com/listkeeper/listkeeper/internal/storetest/wafv2fake"
)

// The IP set of the WAFv2 tests: an IPv4 set with a description and an
// address another writer put there.
const (
	wafSetName     = "allow"
	wafDescription = "office and VPN"
	wafForeign     = "192.0.2.0/24"
)

// wafFixture is a started fake WAFv2 holding the test's IP set.
type wafFixture struct {
	srv *wafv2fake.Server
	id  string
}

func startWAF(t *testing.T, opts ...wafv2fake.Option) *wafFixture {
	t.Helper()
	srv, err := wafv2fake.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	t.Cleanup(srv.Close)
	id, err := srv.CreateIPSet(wafv2fake.ScopeRegional, wafSetName, wafDescription, wafv2fake.IPv4, []string{wafForeign})
	if err != nil {
		t.Fatal(err)
	}
	return &wafFixture{srv: srv, id: id}
}

// spec names the fixture's set, at its endpoint.
func (f *wafFixture) spec() *v1alpha1.WAFv2IPSet {
	return &v1alpha1.WAFv2IPSet{Region: f.srv.Region(), Scope: v1alpha1.WAFv2ScopeRegional, Name: wafSetName, ID: f.id, Endpoint: f.srv.URL()}
}

// set returns the fixture's set as the fake holds it.
func (f *wafFixture) set(t *testing.T) wafv2fake.IPSet {
	t.Helper()
	set, ok := f.srv.IPSet(wafv2fake.ScopeRegional, f.id)
	if !ok {
		t.Fatal("the IP set is gone")
	}
	return set
}

// wafAuth signs with the Secret "aws". Its region and service are an
// object store's and must not matter: a WAFv2 list signs for
// spec.wafv2.region and the service wafv2.
var wafAuth = &v1alpha1.AWSAuth{Region: "eu-central-1", Service: "s3", SecretRef: &v1alpha1.SecretReference{Name: "aws"}}

// wafSecrets holds the fake's test key as the Secret "aws".
func wafSecrets(keyID, secret string) stores.SecretFunc {
	return secrets(map[string]map[string]string{"aws": {stores.AWSAccessKeyID: keyID, stores.AWSSecretAccessKey: secret}})
}

var wafKey = wafSecrets(wafv2fake.TestAccessKeyID, wafv2fake.TestSecretAccessKey)

// wafEnv is what an engine lends a backend: an HTTP client that does not
// retry, and retries counts the SDK's own.
func wafEnv(t *testing.T, retries int) etagclient.BackendEnv {
	t.Helper()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	return etagclient.BackendEnv{
		URL: "wafv2://us-east-1/REGIONAL/allow", ShownURL: "wafv2://us-east-1/REGIONAL/allow",
		HTTPClient:   &http.Client{Transport: tr, Timeout: 10 * time.Second},
		MaxBodyBytes: etagclient.DefaultMaxBodyBytes, MaxItems: etagclient.DefaultMaxItems,
		TransportRetries: retries,
	}
}

// wafBackend builds the backend of spec as the operator does, with the
// short retry waits of a test.
func wafBackend(t *testing.T, spec *v1alpha1.WAFv2IPSet, auth *v1alpha1.AWSAuth, sec stores.SecretFunc, policy stores.Policy, env etagclient.BackendEnv) (etagclient.Backend, error) {
	t.Helper()
	stores.SetWAFv2RetryWait(t, time.Millisecond, 2*time.Millisecond)
	factory, _, err := stores.WAFv2Backend(t.Context(), spec, auth, sec, policy, true)
	if err != nil {
		return nil, err
	}
	b, err := factory(env)
	if err != nil {
		t.Fatalf("factory: %v", err)
	}
	t.Cleanup(b.Close)
	return b, nil
}

func mustWAFBackend(t *testing.T, f *wafFixture, retries int) etagclient.Backend {
	t.Helper()
	b, err := wafBackend(t, f.spec(), wafAuth, wafKey, stores.Policy{}, wafEnv(t, retries))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustRead(t *testing.T, b etagclient.Backend) etagclient.ReadAnswer {
	t.Helper()
	ans, err := b.Read(t.Context(), etagclient.Version{})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return ans
}

// with returns doc with ch applied.
func with(t *testing.T, doc *etagclient.Document, ch etagclient.Change) *etagclient.Document {
	t.Helper()
	next, _, err := doc.Apply(ch)
	if err != nil {
		t.Fatal(err)
	}
	return next
}

// document returns a document of these items.
func document(t *testing.T, items []string) *etagclient.Document {
	t.Helper()
	empty, err := etagclient.NewDocument(nil)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := empty.WithItems(items)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// safeText fails the test when an error's text carries what the server or
// the test's secrets chose: AWS's message, a canonical request, a key.
func safeText(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	msg := err.Error()
	for _, bad := range []string{"Canonical", "String-to-Sign", "couldn’t", "Error reason", wafv2fake.TestSecretAccessKey, "RequestID", "127.0.0.1", "http"} {
		if strings.Contains(msg, bad) {
			t.Errorf("error text carries %q: %s", bad, msg)
		}
	}
}

// TestWAFv2ReadWrite: a read gives the set's addresses as items and its
// lock token as the version; a write on it adds an address, keeps the
// other writer's address and the description, and returns the next lock
// token, on which the next write goes without a read.
func TestWAFv2ReadWrite(t *testing.T) {
	f := startWAF(t)
	b := mustWAFBackend(t, f, 0)

	ans := mustRead(t, b)
	if got := ans.Doc.Items(); !slices.Equal(got, []string{wafForeign}) {
		t.Fatalf("items = %v", got)
	}
	if ans.Version.Tag != f.set(t).LockToken || ans.Absent || ans.NotModified {
		t.Fatalf("answer = %+v, want the set's lock token %q", ans, f.set(t).LockToken)
	}

	w, err := b.Write(t.Context(), with(t, ans.Doc, etagclient.Change{Add: []string{"203.0.113.9/32"}}), false, ans.Version)
	if err != nil || w.Outcome != etagclient.WriteCommitted {
		t.Fatalf("Write = %+v, %v", w, err)
	}
	set := f.set(t)
	if !slices.Equal(set.Addresses, []string{wafForeign, "203.0.113.9/32"}) || set.Description != wafDescription {
		t.Fatalf("set = %+v: the foreign address and the description must stay", set)
	}
	if w.Version.Tag != set.LockToken || w.Version.Tag == ans.Version.Tag {
		t.Errorf("version after the write = %q, the set's token %q", w.Version.Tag, set.LockToken)
	}

	// The next change goes on the version the write returned.
	next := document(t, []string{wafForeign, "203.0.113.9/32", "198.51.100.0/24"})
	w2, err := b.Write(t.Context(), next, false, w.Version)
	if err != nil || w2.Outcome != etagclient.WriteCommitted {
		t.Fatalf("second Write = %+v, %v", w2, err)
	}
	if set := f.set(t); len(set.Addresses) != 3 || set.Description != wafDescription {
		t.Errorf("set = %+v", set)
	}
	if st := f.srv.Stats(); st.Operations(wafv2fake.OpGetIPSet) != 1 || st.Succeeded(wafv2fake.OpUpdateIPSet) != 2 {
		t.Errorf("requests = %+v, want 1 read and 2 updates", st.Requests)
	}
}

// TestWAFv2NoDescription: a set without a description stays without one
// (an empty one would be refused), and a write based on a read keeps the
// description the read saw, not one of its own.
func TestWAFv2NoDescription(t *testing.T) {
	f := startWAF(t)
	id, err := f.srv.CreateIPSet(wafv2fake.ScopeRegional, "bare", "", wafv2fake.IPv6, []string{"2001:db8::/32"})
	if err != nil {
		t.Fatal(err)
	}
	spec := f.spec()
	spec.Name, spec.ID = "bare", id
	b, err := wafBackend(t, spec, wafAuth, wafKey, stores.Policy{}, wafEnv(t, 0))
	if err != nil {
		t.Fatal(err)
	}
	ans := mustRead(t, b)
	if w, err := b.Write(t.Context(), with(t, ans.Doc, etagclient.Change{Add: []string{"2001:db8:1::/48"}}), false, ans.Version); err != nil || w.Outcome != etagclient.WriteCommitted {
		t.Fatalf("Write = %+v, %v", w, err)
	}
	if set, _ := f.srv.IPSet(wafv2fake.ScopeRegional, id); set.Description != "" || !slices.Equal(set.Addresses, []string{"2001:db8::/32", "2001:db8:1::/48"}) {
		t.Errorf("set = %+v", set)
	}
}

// TestWAFv2StaleToken: a write on a read that another writer overtook is
// a lost race (WAFOptimisticLockException), not an error, and changes
// nothing.
func TestWAFv2StaleToken(t *testing.T) {
	f := startWAF(t)
	b := mustWAFBackend(t, f, 2)
	ans := mustRead(t, b)
	if _, err := f.srv.SetAddresses(wafv2fake.ScopeRegional, f.id, []string{wafForeign, "198.51.100.1/32"}); err != nil {
		t.Fatal(err)
	}
	w, err := b.Write(t.Context(), with(t, ans.Doc, etagclient.Change{Add: []string{"203.0.113.9/32"}}), false, ans.Version)
	if err != nil || w.Outcome != etagclient.WriteLost {
		t.Fatalf("Write = %+v, %v; want WriteLost", w, err)
	}
	if got := f.set(t).Addresses; !slices.Equal(got, []string{wafForeign, "198.51.100.1/32"}) {
		t.Errorf("addresses = %v", got)
	}
	if n := f.srv.Stats().Operations(wafv2fake.OpUpdateIPSet); n != 1 {
		t.Errorf("%d UpdateIPSet requests, want 1: a lost race is not retried by the SDK", n)
	}
}

// TestWAFv2TooManyAddresses: a write of more than 10,000 addresses is
// refused with ErrRejected, naming the limit, before anything is sent;
// 10,000 are written.
func TestWAFv2TooManyAddresses(t *testing.T) {
	f := startWAF(t)
	b := mustWAFBackend(t, f, 0)
	ans := mustRead(t, b)
	items := make([]string, stores.WAFv2MaxAddresses+1)
	for i := range items {
		items[i] = fmt.Sprintf("10.%d.%d.%d/32", i>>16, i>>8&0xff, i&0xff)
	}

	w, err := b.Write(t.Context(), document(t, items), false, ans.Version)
	if !errors.Is(err, etagclient.ErrRejected) || !strings.Contains(fmt.Sprint(err), "at most 10,000 addresses") {
		t.Fatalf("Write = %+v, %v; want ErrRejected naming the limit", w, err)
	}
	if n := f.srv.Stats().Operations(wafv2fake.OpUpdateIPSet); n != 0 {
		t.Fatalf("%d UpdateIPSet requests reached the server, want 0", n)
	}

	if w, err := b.Write(t.Context(), document(t, items[:stores.WAFv2MaxAddresses]), false, ans.Version); err != nil || w.Outcome != etagclient.WriteCommitted {
		t.Fatalf("10,000 addresses: %+v, %v", w, err)
	}
	if n := len(f.set(t).Addresses); n != stores.WAFv2MaxAddresses {
		t.Errorf("%d addresses stored", n)
	}
}

// TestWAFv2Errors: what each answer of WAF, or none, means to the engine.
// Messages carry fixed words and known codes, never AWS's text.
func TestWAFv2Errors(t *testing.T) {
	tests := []struct {
		name    string
		op      string
		fault   func() *wafv2fake.Error
		times   int // how many requests get the fault; the retries are 1
		class   error
		outcome etagclient.WriteOutcome // of a write without error
		code    string
	}{
		{"throttled past the retries", wafv2fake.OpUpdateIPSet, wafv2fake.Throttling, 5, etagclient.ErrUnreachable, 0, "ThrottlingException"},
		{"unavailable past the retries", wafv2fake.OpUpdateIPSet, wafv2fake.UnavailableEntity, 5, etagclient.ErrUnreachable, 0, "WAFUnavailableEntityException"},
		{"access denied", wafv2fake.OpUpdateIPSet, wafv2fake.AccessDenied, 1, etagclient.ErrUnauthorized, 0, "AccessDeniedException"},
		{"503 past the retries", wafv2fake.OpUpdateIPSet, wafv2fake.ServiceUnavailable, 5, nil, etagclient.WriteUnknown, ""},
		{"WAF's 500 past the retries", wafv2fake.OpUpdateIPSet, wafv2fake.WAFInternalError, 5, nil, etagclient.WriteUnknown, ""},
		{"no answer", wafv2fake.OpUpdateIPSet, wafv2fake.DropConnection, 5, nil, etagclient.WriteUnknown, ""},
		{"read throttled past the retries", wafv2fake.OpGetIPSet, wafv2fake.Throttling, 5, etagclient.ErrUnreachable, 0, "ThrottlingException"},
		{"read without an answer", wafv2fake.OpGetIPSet, wafv2fake.DropConnection, 5, etagclient.ErrUnreachable, 0, ""},
		{"read, 503", wafv2fake.OpGetIPSet, wafv2fake.ServiceUnavailable, 5, etagclient.ErrUnreachable, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := startWAF(t)
			b := mustWAFBackend(t, f, 1)
			var ans etagclient.ReadAnswer
			if tt.op == wafv2fake.OpUpdateIPSet {
				ans = mustRead(t, b)
			}
			f.srv.SetFaultHook(wafv2fake.FailFirst(tt.op, tt.times, tt.fault))
			var err error
			var w etagclient.WriteAnswer
			if tt.op == wafv2fake.OpGetIPSet {
				_, err = b.Read(t.Context(), etagclient.Version{})
			} else {
				w, err = b.Write(t.Context(), with(t, ans.Doc, etagclient.Change{Add: []string{"203.0.113.9/32"}}), false, ans.Version)
			}
			if tt.class == nil {
				if err != nil || w.Outcome != tt.outcome || w.Cause == nil {
					t.Fatalf("Write = %+v, %v; want outcome %d with a cause", w, err, tt.outcome)
				}
				safeText(t, w.Cause)
				t.Logf("cause: %v", w.Cause)
			} else {
				if !errors.Is(err, tt.class) {
					t.Fatalf("err = %v, want %v", err, tt.class)
				}
				if tt.code != "" && !strings.Contains(err.Error(), "("+tt.code+")") {
					t.Errorf("err = %v, want the code %s named", err, tt.code)
				}
				safeText(t, err)
				t.Logf("error: %v", err)
			}
			if n := f.srv.Stats().Operations(tt.op); tt.times > 1 && n != 2 {
				t.Errorf("%d %s requests, want 2: one try and one retry", n, tt.op)
			}
		})
	}
}

// TestWAFv2RequestBodyAfterAnswer: net/http's writer of a request reads
// its body once more after the Content-Length bytes, to check that there
// are no more, and may do that after the answer arrived, when the SDK has
// already closed the body; a failure then closes the connection under the
// answer being read, and a GetIPSet that WAF answered fails as an answer
// that could not be read. The body the backend sends must read as ended,
// without an error, once closed: the transport below the backend (real
// HTTP to the fake) records it, and the test reads it as net/http's writer
// does (io.Copy to io.Discard) after the call returned.
func TestWAFv2RequestBodyAfterAnswer(t *testing.T) {
	f := startWAF(t)
	env := wafEnv(t, 0)
	keep := &bodyKeeper{next: env.HTTPClient.Transport}
	env.HTTPClient = &http.Client{Transport: keep, Timeout: env.HTTPClient.Timeout}
	b, err := wafBackend(t, f.spec(), wafAuth, wafKey, stores.Policy{}, env)
	if err != nil {
		t.Fatal(err)
	}
	mustRead(t, b)
	if len(keep.bodies) != 1 {
		t.Fatalf("%d requests with a body, want the GetIPSet's", len(keep.bodies))
	}
	if n, err := io.Copy(io.Discard, keep.bodies[0]); n != 0 || err != nil {
		t.Errorf("the closed body read %d more bytes and %v, want none and no error", n, err)
	}
}

// bodyKeeper keeps the body of every request it sends on. It is used by
// one request at a time.
type bodyKeeper struct {
	next   http.RoundTripper
	bodies []io.Reader
}

func (k *bodyKeeper) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		k.bodies = append(k.bodies, req.Body)
	}
	return k.next.RoundTrip(req)
}
