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

package s3fake

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
)

var sessionCreds = aws.Credentials{
	AccessKeyID:     "LISTKEEPERSESSION001",
	SecretAccessKey: "session-secret",
	SessionToken:    "session-token",
	CanExpire:       true,
	Expires:         t0.Add(time.Hour),
}

// TestSessionToken pins how temporary credentials are judged, as S3 does:
// the token must come with its key, match, and not have expired.
func TestSessionToken(t *testing.T) {
	withToken := func(c aws.Credentials, token string) aws.Credentials {
		c.SessionToken = token
		return c
	}
	tests := []struct {
		name       string
		creds      aws.Credentials
		advance    time.Duration
		wantStatus int
		wantCode   string
	}{
		{name: "right token", creds: sessionCreds, wantStatus: http.StatusOK},
		{name: "no token", creds: withToken(sessionCreds, ""), wantStatus: http.StatusForbidden, wantCode: "InvalidAccessKeyId"},
		{name: "wrong token", creds: withToken(sessionCreds, "other-token"), wantStatus: http.StatusBadRequest, wantCode: "InvalidToken"},
		{name: "token on a long-term key", creds: withToken(DefaultCredentials(), "session-token"), wantStatus: http.StatusBadRequest, wantCode: "InvalidToken"},
		{name: "right token after it expired", creds: sessionCreds, advance: time.Hour, wantStatus: http.StatusBadRequest, wantCode: "ExpiredToken"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, clock := startServer(t, WithCredentials(DefaultCredentials(), sessionCreds))
			seed(t, s, "doc", []byte("v1"))
			clock.Advance(tt.advance)
			req := signedRequest(t, http.MethodGet, objectURL(s, "doc"), nil, nil, signing{creds: tt.creds, at: clock.Now()})
			if a := do(t, s.Client(), req); a.status != tt.wantStatus || a.code != tt.wantCode {
				t.Fatalf("got %d %q, want %d %q", a.status, a.code, tt.wantStatus, tt.wantCode)
			}
		})
	}
}

// TestCredentialsAtRunTime covers the methods that let a test break the
// credentials of a running Server: a request that was accepted before is
// refused after, with S3's code.
func TestCredentialsAtRunTime(t *testing.T) {
	rotated := aws.Credentials{AccessKeyID: "LISTKEEPERROTATED001", SecretAccessKey: "rotated-secret"}
	tests := []struct {
		name       string
		change     func(s *Server) error
		creds      aws.Credentials
		wantStatus int
		wantCode   string
	}{
		{name: "session token expired", change: func(s *Server) error { return s.ExpireSessionToken(sessionCreds.AccessKeyID) },
			creds: sessionCreds, wantStatus: http.StatusBadRequest, wantCode: "ExpiredToken"},
		{name: "key revoked", change: func(s *Server) error { return s.RevokeAccessKey(TestAccessKeyID) },
			creds: DefaultCredentials(), wantStatus: http.StatusForbidden, wantCode: "InvalidAccessKeyId"},
		{name: "keys rotated, old key", change: func(s *Server) error { return s.SetCredentials(rotated) },
			creds: DefaultCredentials(), wantStatus: http.StatusForbidden, wantCode: "InvalidAccessKeyId"},
		{name: "keys rotated, new key", change: func(s *Server) error { return s.SetCredentials(rotated) },
			creds: rotated, wantStatus: http.StatusOK},
		{name: "secret changed", change: func(s *Server) error {
			return s.SetCredentials(aws.Credentials{AccessKeyID: TestAccessKeyID, SecretAccessKey: "new-secret"})
		}, creds: DefaultCredentials(), wantStatus: http.StatusForbidden, wantCode: "SignatureDoesNotMatch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := startServer(t, WithCredentials(DefaultCredentials(), sessionCreds))
			seed(t, s, "doc", []byte("v1"))
			if tt.wantStatus != http.StatusOK {
				before := signedRequest(t, http.MethodGet, objectURL(s, "doc"), nil, nil, signing{creds: tt.creds})
				if a := do(t, s.Client(), before); a.status != http.StatusOK {
					t.Fatalf("before the change: %d %q, want 200", a.status, a.code)
				}
			}
			if err := tt.change(s); err != nil {
				t.Fatal(err)
			}
			after := signedRequest(t, http.MethodGet, objectURL(s, "doc"), nil, nil, signing{creds: tt.creds})
			if a := do(t, s.Client(), after); a.status != tt.wantStatus || a.code != tt.wantCode {
				t.Fatalf("after the change: %d %q, want %d %q", a.status, a.code, tt.wantStatus, tt.wantCode)
			}
		})
	}
}

func TestCredentialChangeErrors(t *testing.T) {
	s, err := New(WithCredentials(DefaultCredentials(), sessionCreds))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeAccessKey("NOPE"); !errors.Is(err, ErrUnknownAccessKey) {
		t.Errorf("RevokeAccessKey(unknown) = %v, want ErrUnknownAccessKey", err)
	}
	if err := s.ExpireSessionToken("NOPE"); !errors.Is(err, ErrUnknownAccessKey) {
		t.Errorf("ExpireSessionToken(unknown) = %v, want ErrUnknownAccessKey", err)
	}
	if err := s.ExpireSessionToken(TestAccessKeyID); err == nil {
		t.Error("ExpireSessionToken(long-term key) = nil, want an error")
	}
	if err := s.SetCredentials(DefaultCredentials(), DefaultCredentials()); err == nil {
		t.Error("SetCredentials(duplicate keys) = nil, want an error")
	}
	if got := len(s.Credentials()); got != 2 {
		t.Errorf("a failed SetCredentials changed the credentials: %d left", got)
	}
}

// TestTokenNotServedBack: gofakes3 would store the X-Amz-Security-Token of
// a PUT and send it with every GET (TestGofakes3KeepsRequestHeaders); the
// wrapper keeps it out of the store.
func TestTokenNotServedBack(t *testing.T) {
	s, _ := startServer(t, WithCredentials(sessionCreds))
	put := signedRequest(t, http.MethodPut, objectURL(s, "doc"), []byte("v1"), nil, signing{creds: sessionCreds})
	if a := do(t, s.Client(), put); a.status != http.StatusOK {
		t.Fatalf("PUT = %d %q", a.status, a.code)
	}
	get := do(t, s.Client(), signedRequest(t, http.MethodGet, objectURL(s, "doc"), nil, nil, signing{creds: sessionCreds}))
	for k := range get.header {
		switch http.CanonicalHeaderKey(k) {
		case "X-Amz-Security-Token", "X-Amz-Date", "X-Amz-Content-Sha256", "Authorization":
			t.Errorf("GET answer carries the PUT's %s", k)
		}
	}
}

// TestSignatureErrorShowsToken pins that SignatureDoesNotMatch carries the
// canonical request, session token included, as S3's does: a client must
// not log S3 error bodies as they come.
func TestSignatureErrorShowsToken(t *testing.T) {
	s, _ := startServer(t, WithCredentials(sessionCreds))
	wrong := sessionCreds
	wrong.SecretAccessKey = "wrong-secret"
	a := do(t, s.Client(), signedRequest(t, http.MethodGet, objectURL(s, "doc"), nil, nil, signing{creds: wrong}))
	if a.code != "SignatureDoesNotMatch" {
		t.Fatalf("got %d %q, want 403 SignatureDoesNotMatch", a.status, a.code)
	}
	if !strings.Contains(a.err.CanonicalRequest, "x-amz-security-token:"+sessionCreds.SessionToken) {
		t.Errorf("CanonicalRequest lacks the token:\n%s", a.err.CanonicalRequest)
	}
}
