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

package gcstoken_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/listkeeper/listkeeper/internal/storetest/gcstoken"
)

// parsedKey is what a test needs of a service-account key.
type parsedKey struct {
	gcstoken.ServiceAccountKey
	private *rsa.PrivateKey
}

func parseKey(t *testing.T, key []byte) parsedKey {
	t.Helper()
	var k parsedKey
	if err := json.Unmarshal(key, &k.ServiceAccountKey); err != nil {
		t.Fatalf("key JSON: %v", err)
	}
	block, _ := pem.Decode([]byte(k.PrivateKey))
	if block == nil || block.Type != "PRIVATE KEY" {
		t.Fatalf("private_key is not a PKCS #8 PEM block: %q", k.PrivateKey)
	}
	priv, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatalf("private_key: %v", err)
	}
	var ok bool
	if k.private, ok = priv.(*rsa.PrivateKey); !ok {
		t.Fatalf("private_key is a %T", priv)
	}
	return k
}

// assertion signs claims with key under method, with kid in the header
// unless it is empty.
func assertion(t *testing.T, method jwt.SigningMethod, key any, kid string, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatalf("sign: %v", err)
	}
	return s
}

// postToken posts a token request and returns the status and the decoded
// JSON answer.
func postToken(t *testing.T, tokenURL string, form url.Values) (int, map[string]any) {
	t.Helper()
	resp, err := http.PostForm(tokenURL, form)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("answer %d %q is not JSON: %v", resp.StatusCode, body, err)
	}
	return resp.StatusCode, m
}

// TestTokenEndpoint checks what the endpoint accepts and refuses, with
// assertions made by hand.
func TestTokenEndpoint(t *testing.T) {
	clock := newFakeClock(time.Now())
	e := startEndpoint(t, gcstoken.WithClock(clock.now), gcstoken.WithLifetime(90*time.Second+500*time.Millisecond))
	defer http.DefaultClient.CloseIdleConnections()
	k := parseKey(t, e.key)
	if k.Type != "service_account" || k.TokenURI != e.url || k.ClientEmail == "" || k.PrivateKeyID == "" || k.ProjectID != gcstoken.ProjectID {
		t.Fatalf("key %+v", k.ServiceAccountKey)
	}
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	now := clock.now()
	claims := func(edit func(jwt.MapClaims)) jwt.MapClaims {
		c := jwt.MapClaims{
			"iss": k.ClientEmail, "aud": k.TokenURI, "scope": storageScope,
			"iat": now.Add(-10 * time.Second).Unix(), "exp": now.Add(50 * time.Minute).Unix(),
		}
		if edit != nil {
			edit(c)
		}
		return c
	}
	good := assertion(t, jwt.SigningMethodRS256, k.private, k.PrivateKeyID, claims(nil))
	tests := []struct {
		name      string
		grant     string
		assertion string
		wantError string // "" for success
		wantDesc  string // a part of error_description
	}{
		{name: "good", assertion: good},
		{name: "good without kid", assertion: assertion(t, jwt.SigningMethodRS256, k.private, "", claims(nil))},
		{name: "wrong grant type", grant: "client_credentials", assertion: good, wantError: "unsupported_grant_type"},
		{name: "no assertion", wantError: "invalid_request"},
		{name: "not a JWT", assertion: "a.b.c", wantError: "invalid_grant", wantDesc: "Signature"},
		{name: "signed by another key", assertion: assertion(t, jwt.SigningMethodRS256, other, k.PrivateKeyID, claims(nil)), wantError: "invalid_grant", wantDesc: "Invalid JWT Signature"},
		{name: "wrong kid", assertion: assertion(t, jwt.SigningMethodRS256, k.private, "other", claims(nil)), wantError: "invalid_grant", wantDesc: "Invalid JWT Signature"},
		{name: "HMAC", assertion: assertion(t, jwt.SigningMethodHS256, []byte("secret"), k.PrivateKeyID, claims(nil)), wantError: "invalid_grant"},
		{name: "unknown account", assertion: assertion(t, jwt.SigningMethodRS256, k.private, "", claims(func(c jwt.MapClaims) { c["iss"] = "nobody@example.com" })), wantError: "invalid_grant", wantDesc: "account not found"},
		{name: "wrong audience", assertion: assertion(t, jwt.SigningMethodRS256, k.private, "", claims(func(c jwt.MapClaims) { c["aud"] = "https://oauth2.googleapis.com/token" })), wantError: "invalid_grant", wantDesc: "aud"},
		{name: "expired", assertion: assertion(t, jwt.SigningMethodRS256, k.private, "", claims(func(c jwt.MapClaims) {
			c["iat"], c["exp"] = now.Add(-2*time.Hour).Unix(), now.Add(-time.Hour).Unix()
		})), wantError: "invalid_grant", wantDesc: "short-lived"},
		{name: "issued in the future", assertion: assertion(t, jwt.SigningMethodRS256, k.private, "", claims(func(c jwt.MapClaims) {
			c["iat"], c["exp"] = now.Add(time.Hour).Unix(), now.Add(90*time.Minute).Unix()
		})), wantError: "invalid_grant", wantDesc: "short-lived"},
		{name: "longer than an hour", assertion: assertion(t, jwt.SigningMethodRS256, k.private, "", claims(func(c jwt.MapClaims) { c["exp"] = now.Add(2 * time.Hour).Unix() })), wantError: "invalid_grant", wantDesc: "short-lived"},
		{name: "no exp", assertion: assertion(t, jwt.SigningMethodRS256, k.private, "", claims(func(c jwt.MapClaims) { delete(c, "exp") })), wantError: "invalid_grant"},
		{name: "no iat", assertion: assertion(t, jwt.SigningMethodRS256, k.private, "", claims(func(c jwt.MapClaims) { delete(c, "iat") })), wantError: "invalid_grant"},
		{name: "no scope", assertion: assertion(t, jwt.SigningMethodRS256, k.private, "", claims(func(c jwt.MapClaims) { delete(c, "scope") })), wantError: "invalid_scope"},
	}
	issued := 0
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			form := url.Values{"grant_type": {gcstoken.GrantTypeJWTBearer}}
			if tt.grant != "" {
				form.Set("grant_type", tt.grant)
			}
			if tt.assertion != "" {
				form.Set("assertion", tt.assertion)
			}
			code, answer := postToken(t, e.url, form)
			if tt.wantError != "" {
				desc, _ := answer["error_description"].(string)
				if code != 400 || answer["error"] != tt.wantError || !strings.Contains(desc, tt.wantDesc) {
					t.Fatalf("answer %d %v, want 400 %s with %q", code, answer, tt.wantError, tt.wantDesc)
				}
				return
			}
			issued++
			token, _ := answer["access_token"].(string)
			if code != 200 || !strings.HasPrefix(token, "ya29.") || answer["token_type"] != "Bearer" || answer["expires_in"] != float64(90) {
				t.Fatalf("answer %d %v", code, answer)
			}
			if err := e.Valid(token); err != nil {
				t.Errorf("Valid(issued token) = %v", err)
			}
		})
	}
	if st := e.Stats(); st.Issued != issued || st.Refused != len(tests)-issued {
		t.Errorf("stats %+v, want %d issued and %d refused", st, issued, len(tests)-issued)
	}
}

// TestValid checks that a token is valid for exactly its lifetime, and
// that Valid's errors can be told apart.
func TestValid(t *testing.T) {
	clock := newFakeClock(time.Now())
	e := startEndpoint(t, gcstoken.WithClock(clock.now), gcstoken.WithLifetime(time.Minute))
	defer http.DefaultClient.CloseIdleConnections()
	k := parseKey(t, e.key)
	now := clock.now()
	a := assertion(t, jwt.SigningMethodRS256, k.private, "", jwt.MapClaims{
		"iss": k.ClientEmail, "aud": k.TokenURI, "scope": storageScope, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
	})
	_, answer := postToken(t, e.url, url.Values{"grant_type": {gcstoken.GrantTypeJWTBearer}, "assertion": {a}})
	token, _ := answer["access_token"].(string)

	clock.advance(time.Minute - time.Nanosecond)
	if err := e.Valid(token); err != nil {
		t.Errorf("Valid just before the end of the lifetime = %v", err)
	}
	clock.advance(time.Nanosecond)
	if err := e.Valid(token); !errors.Is(err, gcstoken.ErrExpiredToken) {
		t.Errorf("Valid at the end of the lifetime = %v, want ErrExpiredToken", err)
	}
	if err := e.Valid("ya29.never-issued"); !errors.Is(err, gcstoken.ErrUnknownToken) {
		t.Errorf("Valid(unknown) = %v, want ErrUnknownToken", err)
	}
	if st := e.Stats(); st.Accepted != 1 || st.Expired != 1 || st.Unknown != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestEndpointRoutes(t *testing.T) {
	e := startEndpoint(t)
	defer http.DefaultClient.CloseIdleConnections()
	for _, tt := range []struct {
		method, path string
		want         int
	}{
		{"GET", gcstoken.TokenPath, http.StatusMethodNotAllowed},
		{"POST", "/other", http.StatusNotFound},
	} {
		req, _ := http.NewRequest(tt.method, strings.TrimSuffix(e.url, gcstoken.TokenPath)+tt.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%s %s = %d, want %d", tt.method, tt.path, resp.StatusCode, tt.want)
		}
	}
}

func TestNewRejectsInvalidOptions(t *testing.T) {
	for name, opt := range map[string]gcstoken.Option{
		"lifetime under a second": gcstoken.WithLifetime(999 * time.Millisecond),
		"nil clock":               gcstoken.WithClock(nil),
	} {
		if _, err := gcstoken.New(opt); err == nil {
			t.Errorf("%s: New succeeded", name)
		}
	}
	s, err := gcstoken.New()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.NewServiceAccountKey("/token"); err == nil {
		t.Error("NewServiceAccountKey accepted a relative URL")
	}
}
