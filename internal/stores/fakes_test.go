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
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// recorder is a list server that must never see a credential: it records
// the credential-bearing parts of every request it gets (headers and query
// parameters that carry a token or a signature) and answers a read with an
// empty list.
type recorder struct {
	srv *httptest.Server

	mu       sync.Mutex
	requests int
	leaked   []string // "Authorization: Bearer ya29…", "X-Amz-Security-Token", …
}

// credentialHeaders are the request headers that carry a credential or a
// signature made with one.
var credentialHeaders = []string{"Authorization", "X-Amz-Security-Token", "X-Amz-Date", "X-Goog-Api-Key"}

// credentialQuery are the query parameters that do (SigV4 presigned, SAS).
var credentialQuery = []string{"X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token", "sig", "access_token"}

func startRecorder(t *testing.T) *recorder {
	t.Helper()
	r := &recorder{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.requests++
		for _, h := range credentialHeaders {
			if v := req.Header.Get(h); v != "" {
				r.leaked = append(r.leaked, h+": "+v)
			}
		}
		q := req.URL.Query()
		for _, p := range credentialQuery {
			if q.Has(p) {
				r.leaked = append(r.leaked, "?"+p)
			}
		}
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("ETag", `"1"`)
		w.Header().Set("x-goog-generation", "1")
		_, _ = w.Write([]byte(`[]`))
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// credentials returns what credentials the recorder received, and how many
// requests it got.
func (r *recorder) credentials() ([]string, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.leaked...), r.requests
}

// hits is a handler that counts the requests and connections it gets and
// answers each with answer (nil: 404).
type hits struct {
	n      atomic.Int64
	answer http.HandlerFunc
}

func (h *hits) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.n.Add(1)
	if h.answer == nil {
		http.NotFound(w, r)
		return
	}
	h.answer(w, r)
}

// hang is a handler that never answers: each request waits until the test
// ends (or its client gives up), so a client that does not honour its own
// deadline stays blocked.
type hang struct {
	stop chan struct{}
	once sync.Once
	// entered counts requests, left those that ended (released, or given
	// up by their client).
	entered, left atomic.Int64
}

func newHang(t *testing.T) *hang {
	h := &hang{stop: make(chan struct{})}
	t.Cleanup(h.release)
	return h
}

func (h *hang) release() { h.once.Do(func() { close(h.stop) }) }

func (h *hang) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.entered.Add(1)
	defer h.left.Add(1)
	// Only a request whose body was read notices that its client went
	// away (net/http's server watches the connection after the body).
	_, _ = io.Copy(io.Discard, r.Body)
	select {
	case <-h.stop:
	case <-r.Context().Done():
	}
}

// open returns how many requests are still waiting.
func (h *hang) open() int64 { return h.entered.Load() - h.left.Load() }

// serve serves h on 127.0.0.1 until the test ends; the hang (if any) is
// released first, so that Close does not wait for it.
func serve(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	if hg, ok := h.(*hang); ok {
		t.Cleanup(hg.release) // runs before s.Close (cleanups run last first)
	}
	return s
}

// writeFile writes data to a file of its own in the test's temporary
// directory and returns its path.
func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// isolateAWS points the AWS SDK's default chain at nothing of the machine's
// own: no shared config or credentials files, no instance metadata, no
// credentials in the environment. A test then adds what it wants.
func isolateAWS(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_CONFIG_FILE":                        filepath.Join(dir, "config"),
		"AWS_SHARED_CREDENTIALS_FILE":            filepath.Join(dir, "credentials"),
		"AWS_EC2_METADATA_DISABLED":              "true",
		"AWS_ACCESS_KEY_ID":                      "",
		"AWS_SECRET_ACCESS_KEY":                  "",
		"AWS_SESSION_TOKEN":                      "",
		"AWS_PROFILE":                            "",
		"AWS_ROLE_ARN":                           "",
		"AWS_WEB_IDENTITY_TOKEN_FILE":            "",
		"AWS_CONTAINER_CREDENTIALS_FULL_URI":     "",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "",
		"AWS_ENDPOINT_URL":                       "",
		"AWS_ENDPOINT_URL_STS":                   "",
		"AWS_REGION":                             "us-east-1",
	} {
		t.Setenv(k, v)
	}
}

// fakeSTS answers AssumeRoleWithWebIdentity with fixed temporary
// credentials, as the AWS Security Token Service does for IRSA.
func fakeSTS(accessKeyID, secret, session string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil || r.PostForm.Get("Action") != "AssumeRoleWithWebIdentity" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/xml")
		fmt.Fprintf(w, `<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleWithWebIdentityResult>
    <Credentials>
      <AccessKeyId>%s</AccessKeyId>
      <SecretAccessKey>%s</SecretAccessKey>
      <SessionToken>%s</SessionToken>
      <Expiration>%s</Expiration>
    </Credentials>
    <SubjectFromWebIdentityToken>system:serviceaccount:listkeeper:manager</SubjectFromWebIdentityToken>
    <AssumedRoleUser>
      <Arn>arn:aws:sts::123456789012:assumed-role/listkeeper/manager</Arn>
      <AssumedRoleId>AROAFAKE:manager</AssumedRoleId>
    </AssumedRoleUser>
  </AssumeRoleWithWebIdentityResult>
  <ResponseMetadata><RequestId>fake</RequestId></ResponseMetadata>
</AssumeRoleWithWebIdentityResponse>`, accessKeyID, secret, session, time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
	}
}

// webIdentity makes the AWS default chain use IRSA's web identity against
// sts (a server on 127.0.0.1), as EKS sets it up for a pod.
func webIdentity(t *testing.T, sts string) {
	t.Helper()
	isolateAWS(t)
	t.Setenv("AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/listkeeper")
	t.Setenv("AWS_WEB_IDENTITY_TOKEN_FILE", writeFile(t, "token", []byte("eyJhbGciOiJSUzI1NiJ9.projected-service-account-token.sig")))
	t.Setenv("AWS_ROLE_SESSION_NAME", "manager")
	t.Setenv("AWS_ENDPOINT_URL_STS", sts)
}

// noCredential fails the test if r received any credential.
func noCredential(t *testing.T, r *recorder) {
	t.Helper()
	if got, n := r.credentials(); len(got) > 0 {
		t.Errorf("the list server received %d credentials in %d requests: %s", len(got), n, strings.Join(redactAll(got), "; "))
	}
}

// redactAll keeps what a credential was, not its value, for a test's
// message.
func redactAll(got []string) []string {
	out := make([]string, len(got))
	for i, g := range got {
		if k, v, ok := strings.Cut(g, ": "); ok {
			out[i] = fmt.Sprintf("%s (%d bytes)", k, len(v))
		} else {
			out[i] = g
		}
	}
	return out
}
