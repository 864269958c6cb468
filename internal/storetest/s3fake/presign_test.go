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
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// presign returns a presigned URL for method on rawURL, made with
// aws-sdk-go-v2's signer; header is signed along.
func presign(t *testing.T, method, rawURL string, expires time.Duration, header http.Header, sg signing) string {
	t.Helper()
	sg = sg.withDefaults()
	req := newRequest(t, method, rawURL, nil, header)
	q := req.URL.Query()
	q.Set("X-Amz-Expires", strconv.Itoa(int(expires/time.Second)))
	req.URL.RawQuery = q.Encode()
	signer := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })
	signed, _, err := signer.PresignHTTP(context.Background(), sg.creds, req, "UNSIGNED-PAYLOAD", sg.service, sg.region, sg.at)
	if err != nil {
		t.Fatalf("presign: %v", err)
	}
	return signed
}

// editQuery changes one query parameter of a URL.
func editQuery(t *testing.T, rawURL, key, value string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	if value == "" {
		q.Del(key)
	} else {
		q.Set(key, value)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// TestPresignedURL: a presigned URL (SigV4 in the query string, the
// payload unsigned) is verified like a signed header, and also expires.
func TestPresignedURL(t *testing.T) {
	original := []byte(`["a"]`)
	tests := []struct {
		name       string
		method     string
		body       []byte
		url        func(t *testing.T, objURL string) string
		header     http.Header // sent, not signed
		advance    time.Duration
		wantStatus int
		wantCode   string
	}{
		{name: "GET", method: http.MethodGet, url: func(t *testing.T, u string) string {
			return presign(t, http.MethodGet, u, time.Hour, nil, signing{})
		}, wantStatus: http.StatusOK},
		{name: "PUT with a body", method: http.MethodPut, body: []byte(`["b"]`), url: func(t *testing.T, u string) string {
			return presign(t, http.MethodPut, u, time.Hour, nil, signing{})
		}, wantStatus: http.StatusOK},
		{name: "PUT with a signed If-None-Match on an existing key", method: http.MethodPut, body: []byte(`["b"]`),
			header: http.Header{"If-None-Match": {"*"}},
			url: func(t *testing.T, u string) string {
				return presign(t, http.MethodPut, u, time.Hour, http.Header{"If-None-Match": {"*"}}, signing{})
			}, wantStatus: http.StatusPreconditionFailed, wantCode: "PreconditionFailed"},
		{name: "used just before it expires", method: http.MethodGet, advance: time.Hour, url: func(t *testing.T, u string) string {
			return presign(t, http.MethodGet, u, time.Hour, nil, signing{})
		}, wantStatus: http.StatusOK},
		{name: "expired", method: http.MethodGet, advance: time.Hour + time.Second, url: func(t *testing.T, u string) string {
			return presign(t, http.MethodGet, u, time.Hour, nil, signing{})
		}, wantStatus: http.StatusForbidden, wantCode: "AccessDenied"},
		{name: "signed for later", method: http.MethodGet, url: func(t *testing.T, u string) string {
			return presign(t, http.MethodGet, u, time.Hour, nil, signing{at: t0.Add(time.Hour)})
		}, wantStatus: http.StatusForbidden, wantCode: "AccessDenied"},
		{name: "expiry stretched", method: http.MethodGet, advance: 2 * time.Hour, url: func(t *testing.T, u string) string {
			return editQuery(t, presign(t, http.MethodGet, u, time.Hour, nil, signing{}), "X-Amz-Expires", "86400")
		}, wantStatus: http.StatusForbidden, wantCode: "SignatureDoesNotMatch"},
		{name: "signature altered", method: http.MethodGet, url: func(t *testing.T, u string) string {
			return editQuery(t, presign(t, http.MethodGet, u, time.Hour, nil, signing{}), "X-Amz-Signature", strings.Repeat("0", 64))
		}, wantStatus: http.StatusForbidden, wantCode: "SignatureDoesNotMatch"},
		{name: "GET URL used for PUT", method: http.MethodPut, body: []byte(`["b"]`), url: func(t *testing.T, u string) string {
			return presign(t, http.MethodGet, u, time.Hour, nil, signing{})
		}, wantStatus: http.StatusForbidden, wantCode: "SignatureDoesNotMatch"},
		{name: "another key", method: http.MethodGet, url: func(t *testing.T, u string) string {
			return strings.Replace(presign(t, http.MethodGet, u, time.Hour, nil, signing{}), "/doc.json?", "/other.json?", 1)
		}, wantStatus: http.StatusForbidden, wantCode: "SignatureDoesNotMatch"},
		{name: "unsigned x-amz header sent", method: http.MethodPut, body: []byte(`["b"]`), header: http.Header{"X-Amz-Meta-Owner": {"mallory"}},
			url: func(t *testing.T, u string) string {
				return presign(t, http.MethodPut, u, time.Hour, nil, signing{})
			}, wantStatus: http.StatusForbidden, wantCode: "AccessDenied"},
		{name: "wrong region", method: http.MethodGet, url: func(t *testing.T, u string) string {
			return presign(t, http.MethodGet, u, time.Hour, nil, signing{region: "eu-west-1"})
		}, wantStatus: http.StatusBadRequest, wantCode: "AuthorizationQueryParametersError"},
		{name: "unknown key", method: http.MethodGet, url: func(t *testing.T, u string) string {
			creds := DefaultCredentials()
			creds.AccessKeyID = "UNKNOWNKEY0000000000"
			return presign(t, http.MethodGet, u, time.Hour, nil, signing{creds: creds})
		}, wantStatus: http.StatusForbidden, wantCode: "InvalidAccessKeyId"},
		{name: "X-Amz-Expires missing", method: http.MethodGet, url: func(t *testing.T, u string) string {
			return editQuery(t, presign(t, http.MethodGet, u, time.Hour, nil, signing{}), "X-Amz-Expires", "")
		}, wantStatus: http.StatusBadRequest, wantCode: "AuthorizationQueryParametersError"},
		{name: "X-Amz-Expires over a week", method: http.MethodGet, url: func(t *testing.T, u string) string {
			return presign(t, http.MethodGet, u, MaxPresignExpiry+time.Second, nil, signing{})
		}, wantStatus: http.StatusBadRequest, wantCode: "AuthorizationQueryParametersError"},
		{name: "and an Authorization header", method: http.MethodGet, header: http.Header{"Authorization": {"AWS4-HMAC-SHA256 Credential=x"}},
			url: func(t *testing.T, u string) string {
				return presign(t, http.MethodGet, u, time.Hour, nil, signing{})
			}, wantStatus: http.StatusBadRequest, wantCode: "InvalidArgument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, clock := startServer(t)
			seed(t, s, "doc.json", original)
			target := tt.url(t, objectURL(s, "doc.json"))
			clock.Advance(tt.advance)
			a := do(t, s.Client(), newRequest(t, tt.method, target, tt.body, tt.header))
			if a.status != tt.wantStatus || a.code != tt.wantCode {
				t.Fatalf("got %d %q, want %d %q\n%s", a.status, a.code, tt.wantStatus, tt.wantCode, a.body)
			}
			got := string(stored(t, s, "doc.json"))
			switch {
			case a.status == http.StatusOK && tt.method == http.MethodPut:
				if got != string(tt.body) {
					t.Errorf("stored %q, want %q", got, tt.body)
				}
			case got != string(original):
				t.Errorf("the object is %q, want it unchanged", got)
			}
			if recs := s.Requests(); tt.wantCode != "InvalidArgument" && recs[len(recs)-1].Auth != AuthPresigned {
				t.Errorf("logged auth = %s, want presigned", recs[len(recs)-1].Auth)
			}
		})
	}
}

// TestPresignedURLSessionToken: a presigned URL made with temporary
// credentials carries X-Amz-Security-Token, which must match.
func TestPresignedURLSessionToken(t *testing.T) {
	s, _ := startServer(t, WithCredentials(sessionCreds))
	seed(t, s, "doc.json", []byte("v1"))
	signed := presign(t, http.MethodGet, objectURL(s, "doc.json"), time.Hour, nil, signing{creds: sessionCreds})
	if a := do(t, s.Client(), newRequest(t, http.MethodGet, signed, nil, nil)); a.status != http.StatusOK {
		t.Fatalf("GET = %d %q, want 200", a.status, a.code)
	}
	wrong := editQuery(t, signed, "X-Amz-Security-Token", "other-token")
	if a := do(t, s.Client(), newRequest(t, http.MethodGet, wrong, nil, nil)); a.code != "InvalidToken" {
		t.Fatalf("GET with another token = %d %q, want 400 InvalidToken", a.status, a.code)
	}
	if err := s.ExpireSessionToken(sessionCreds.AccessKeyID); err != nil {
		t.Fatal(err)
	}
	if a := do(t, s.Client(), newRequest(t, http.MethodGet, signed, nil, nil)); a.code != "ExpiredToken" {
		t.Fatalf("GET after expiry = %d %q, want 400 ExpiredToken", a.status, a.code)
	}
}
