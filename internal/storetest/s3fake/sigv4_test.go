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
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// TestHeaderSignature proves that the verifier accepts what aws-sdk-go-v2's
// signer signs and refuses, with S3's status and code, every way a
// request can be unsigned, wrongly signed or tampered with after signing.
// A refused PUT never reaches the store.
func TestHeaderSignature(t *testing.T) {
	const key = "doc.json"
	original := []byte(`["a"]`)
	update := []byte(`["a","b"]`)
	wrongSecret := aws.Credentials{AccessKeyID: TestAccessKeyID, SecretAccessKey: "not-the-secret"}
	unknownKey := aws.Credentials{AccessKeyID: "UNKNOWNKEY0000000000", SecretAccessKey: TestSecretAccessKey}

	tests := []struct {
		name       string
		req        func(t *testing.T, url string) *http.Request
		wantStatus int
		wantCode   string
		check      func(t *testing.T, a answer)
	}{
		{
			name: "signed GET is accepted",
			req: func(t *testing.T, url string) *http.Request {
				return signedRequest(t, http.MethodGet, url, nil, nil, signing{})
			},
			wantStatus: http.StatusOK,
			check: func(t *testing.T, a answer) {
				if string(a.body) != string(original) {
					t.Errorf("body = %q, want %q", a.body, original)
				}
			},
		},
		{
			name: "signed PUT is accepted",
			req: func(t *testing.T, url string) *http.Request {
				return signedRequest(t, http.MethodPut, url, update, http.Header{"Content-Type": {"application/json"}}, signing{})
			},
			wantStatus: http.StatusOK,
		},
		{
			name: "signed PUT with UNSIGNED-PAYLOAD is accepted",
			req: func(t *testing.T, url string) *http.Request {
				return signedRequest(t, http.MethodPut, url, update, nil, signing{payloadHash: "UNSIGNED-PAYLOAD"})
			},
			wantStatus: http.StatusOK,
		},
		{
			name: "signed 14 minutes ago is accepted",
			req: func(t *testing.T, url string) *http.Request {
				return signedRequest(t, http.MethodGet, url, nil, nil, signing{at: t0.Add(-14 * time.Minute)})
			},
			wantStatus: http.StatusOK,
		},
		{
			name: "unsigned",
			req: func(t *testing.T, url string) *http.Request {
				return newRequest(t, http.MethodGet, url, nil, nil)
			},
			wantStatus: http.StatusForbidden,
			wantCode:   "AccessDenied",
		},
		{
			name: "unsigned PUT",
			req: func(t *testing.T, url string) *http.Request {
				return newRequest(t, http.MethodPut, url, update, nil)
			},
			wantStatus: http.StatusForbidden,
			wantCode:   "AccessDenied",
		},
		{
			name: "wrong secret",
			req: func(t *testing.T, url string) *http.Request {
				return signedRequest(t, http.MethodPut, url, update, nil, signing{creds: wrongSecret})
			},
			wantStatus: http.StatusForbidden,
			wantCode:   "SignatureDoesNotMatch",
			check: func(t *testing.T, a answer) {
				if a.err.AWSAccessKeyID != TestAccessKeyID || !strings.HasPrefix(a.err.StringToSign, "AWS4-HMAC-SHA256\n") ||
					!strings.HasPrefix(a.err.CanonicalRequest, "PUT\n/"+testBucket+"/"+key+"\n") {
					t.Errorf("SignatureDoesNotMatch lacks S3's diagnostics: %+v", a.err)
				}
			},
		},
		{
			name: "signature altered",
			req: func(t *testing.T, url string) *http.Request {
				req := signedRequest(t, http.MethodGet, url, nil, nil, signing{})
				authz := req.Header.Get("Authorization")
				last := authz[len(authz)-1]
				flipped := byte('0')
				if last == '0' {
					flipped = '1'
				}
				req.Header.Set("Authorization", authz[:len(authz)-1]+string(flipped))
				return req
			},
			wantStatus: http.StatusForbidden,
			wantCode:   "SignatureDoesNotMatch",
		},
		{
			// Same length: Content-Length is signed, so a longer body
			// breaks the signature before its hash is looked at.
			name: "body tampered after signing",
			req: func(t *testing.T, url string) *http.Request {
				req := signedRequest(t, http.MethodPut, url, update, nil, signing{})
				return withBody(t, req, []byte(`["a","x"]`))
			},
			wantStatus: http.StatusBadRequest,
			wantCode:   "XAmzContentSHA256Mismatch",
			check: func(t *testing.T, a answer) {
				if a.err.ClientComputedContentSHA256 != hexSHA256(update) || a.err.S3ComputedContentSHA256 != hexSHA256([]byte(`["a","x"]`)) {
					t.Errorf("hashes in the error = %q, %q", a.err.ClientComputedContentSHA256, a.err.S3ComputedContentSHA256)
				}
			},
		},
		{
			name: "body and payload hash tampered after signing",
			req: func(t *testing.T, url string) *http.Request {
				evil := []byte(`["a","evil"]`)
				req := signedRequest(t, http.MethodPut, url, update, nil, signing{})
				req = withBody(t, req, evil)
				req.Header.Set("X-Amz-Content-Sha256", hexSHA256(evil))
				return req
			},
			wantStatus: http.StatusForbidden,
			wantCode:   "SignatureDoesNotMatch",
		},
		{
			name: "signed header changed after signing",
			req: func(t *testing.T, url string) *http.Request {
				req := signedRequest(t, http.MethodPut, url, update, http.Header{"Content-Type": {"application/json"}}, signing{})
				req.Header.Set("Content-Type", "text/plain")
				return req
			},
			wantStatus: http.StatusForbidden,
			wantCode:   "SignatureDoesNotMatch",
		},
		{
			name: "signed If-Match changed after signing",
			req: func(t *testing.T, url string) *http.Request {
				req := signedRequest(t, http.MethodPut, url, update, http.Header{"If-Match": {`"stale"`}}, signing{})
				req.Header.Set("If-Match", "*")
				return req
			},
			wantStatus: http.StatusForbidden,
			wantCode:   "SignatureDoesNotMatch",
		},
		{
			// S3 requires host and the x-amz-* headers signed, not the
			// others: an If-Match added after signing is obeyed. Clients
			// should set it before signing (the signer signs it then).
			name: "unsigned If-Match is still obeyed",
			req: func(t *testing.T, url string) *http.Request {
				req := signedRequest(t, http.MethodPut, url, update, nil, signing{})
				req.Header.Set("If-Match", `"stale"`)
				return req
			},
			wantStatus: http.StatusPreconditionFailed,
			wantCode:   "PreconditionFailed",
		},
		{
			name: "key changed after signing",
			req: func(t *testing.T, url string) *http.Request {
				req := signedRequest(t, http.MethodPut, url, update, nil, signing{})
				req.URL.Path += ".other"
				return req
			},
			wantStatus: http.StatusForbidden,
			wantCode:   "SignatureDoesNotMatch",
		},
		{
			name: "query added after signing",
			req: func(t *testing.T, url string) *http.Request {
				req := signedRequest(t, http.MethodGet, url, nil, nil, signing{})
				req.URL.RawQuery = "versionId=1"
				return req
			},
			wantStatus: http.StatusForbidden,
			wantCode:   "SignatureDoesNotMatch",
		},
		{
			name: "x-amz header added after signing",
			req: func(t *testing.T, url string) *http.Request {
				req := signedRequest(t, http.MethodPut, url, update, nil, signing{})
				req.Header.Set("X-Amz-Meta-Owner", "mallory")
				return req
			},
			wantStatus: http.StatusForbidden,
			wantCode:   "AccessDenied",
			check: func(t *testing.T, a answer) {
				if a.err.HeadersNotSigned != "x-amz-meta-owner" {
					t.Errorf("HeadersNotSigned = %q, want x-amz-meta-owner", a.err.HeadersNotSigned)
				}
			},
		},
		{
			name: "wrong region",
			req: func(t *testing.T, url string) *http.Request {
				return signedRequest(t, http.MethodGet, url, nil, nil, signing{region: "eu-west-1"})
			},
			wantStatus: http.StatusBadRequest,
			wantCode:   "AuthorizationHeaderMalformed",
			check: func(t *testing.T, a answer) {
				if a.err.Region != DefaultRegion || !strings.Contains(a.err.Message, "the region 'eu-west-1' is wrong; expecting 'us-east-1'") {
					t.Errorf("error = %+v, want S3's wrong-region message and Region %s", a.err, DefaultRegion)
				}
			},
		},
		{
			name: "wrong service",
			req: func(t *testing.T, url string) *http.Request {
				return signedRequest(t, http.MethodGet, url, nil, nil, signing{service: "execute-api"})
			},
			wantStatus: http.StatusBadRequest,
			wantCode:   "AuthorizationHeaderMalformed",
		},
		{
			name: "unknown access key",
			req: func(t *testing.T, url string) *http.Request {
				return signedRequest(t, http.MethodPut, url, update, nil, signing{creds: unknownKey})
			},
			wantStatus: http.StatusForbidden,
			wantCode:   "InvalidAccessKeyId",
			check: func(t *testing.T, a answer) {
				if a.err.AWSAccessKeyID != unknownKey.AccessKeyID {
					t.Errorf("AWSAccessKeyId = %q", a.err.AWSAccessKeyID)
				}
			},
		},
		{
			name: "signed 16 minutes ago",
			req: func(t *testing.T, url string) *http.Request {
				return signedRequest(t, http.MethodGet, url, nil, nil, signing{at: t0.Add(-16 * time.Minute)})
			},
			wantStatus: http.StatusForbidden,
			wantCode:   "RequestTimeTooSkewed",
		},
		{
			name: "signed 16 minutes ahead",
			req: func(t *testing.T, url string) *http.Request {
				return signedRequest(t, http.MethodPut, url, update, nil, signing{at: t0.Add(16 * time.Minute)})
			},
			wantStatus: http.StatusForbidden,
			wantCode:   "RequestTimeTooSkewed",
		},
		{
			name: "X-Amz-Date changed after signing",
			req: func(t *testing.T, url string) *http.Request {
				req := signedRequest(t, http.MethodGet, url, nil, nil, signing{})
				req.Header.Set("X-Amz-Date", t0.Add(time.Second).Format("20060102T150405Z"))
				return req
			},
			wantStatus: http.StatusForbidden,
			wantCode:   "SignatureDoesNotMatch",
		},
		{
			name: "X-Amz-Date on another day than the credential scope",
			req: func(t *testing.T, url string) *http.Request {
				req := signedRequest(t, http.MethodGet, url, nil, nil, signing{})
				req.Header.Set("X-Amz-Date", t0.Add(-13*time.Hour).Format("20060102T150405Z"))
				return req
			},
			wantStatus: http.StatusBadRequest,
			wantCode:   "AuthorizationHeaderMalformed",
		},
		{
			name: "X-Amz-Date missing",
			req: func(t *testing.T, url string) *http.Request {
				req := signedRequest(t, http.MethodGet, url, nil, nil, signing{})
				req.Header.Del("X-Amz-Date")
				return req
			},
			wantStatus: http.StatusForbidden,
			wantCode:   "AccessDenied",
		},
		{
			name: "x-amz-content-sha256 missing",
			req: func(t *testing.T, url string) *http.Request {
				req := signedRequest(t, http.MethodGet, url, nil, nil, signing{})
				req.Header.Del("X-Amz-Content-Sha256")
				return req
			},
			wantStatus: http.StatusBadRequest,
			wantCode:   "InvalidRequest",
		},
		{
			name: "x-amz-content-sha256 not a hash",
			req: func(t *testing.T, url string) *http.Request {
				return signedRequest(t, http.MethodPut, url, update, nil, signing{payloadHash: "deadbeef"})
			},
			wantStatus: http.StatusBadRequest,
			wantCode:   "InvalidArgument",
		},
		{
			name: "aws-chunked payload is not supported",
			req: func(t *testing.T, url string) *http.Request {
				return signedRequest(t, http.MethodPut, url, update, nil, signing{payloadHash: "STREAMING-UNSIGNED-PAYLOAD-TRAILER"})
			},
			wantStatus: http.StatusNotImplemented,
			wantCode:   "NotImplemented",
		},
		{
			name: "Signature Version 2",
			req: func(t *testing.T, url string) *http.Request {
				return newRequest(t, http.MethodGet, url, nil, http.Header{"Authorization": {"AWS " + TestAccessKeyID + ":c2lnbmF0dXJl"}})
			},
			wantStatus: http.StatusBadRequest,
			wantCode:   "InvalidRequest",
		},
		{
			name: "bearer token",
			req: func(t *testing.T, url string) *http.Request {
				return newRequest(t, http.MethodGet, url, nil, http.Header{"Authorization": {"Bearer s3cr3t-bearer-token"}})
			},
			wantStatus: http.StatusBadRequest,
			wantCode:   "InvalidArgument",
			check: func(t *testing.T, a answer) {
				if strings.Contains(string(a.body), "s3cr3t-bearer-token") {
					t.Errorf("the error body repeats the bearer token:\n%s", a.body)
				}
			},
		},
		{
			name: "Authorization without Signature",
			req: func(t *testing.T, url string) *http.Request {
				req := signedRequest(t, http.MethodGet, url, nil, nil, signing{})
				authz, _, _ := strings.Cut(req.Header.Get("Authorization"), ", Signature=")
				req.Header.Set("Authorization", authz)
				return req
			},
			wantStatus: http.StatusBadRequest,
			wantCode:   "AuthorizationHeaderMalformed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := startServer(t)
			seed(t, s, key, original)
			a := do(t, s.Client(), tt.req(t, objectURL(s, key)))
			if a.status != tt.wantStatus || a.code != tt.wantCode {
				t.Fatalf("got %d %q, want %d %q\n%s", a.status, a.code, tt.wantStatus, tt.wantCode, a.body)
			}
			if tt.check != nil {
				tt.check(t, a)
			}
			if a.status >= 300 && string(stored(t, s, key)) != string(original) {
				t.Errorf("refused request changed the object to %q", stored(t, s, key))
			}
		})
	}
}

// TestPathEscaping pins that the path is signed as sent, escaped once, as
// S3 wants: a client must sign with DisableURIPathEscaping (the S3 client
// of aws-sdk-go-v2 does); the signer's default, for other services, escapes
// the path again and S3 refuses the signature for a key that needs
// escaping.
func TestPathEscaping(t *testing.T) {
	tests := []struct {
		name       string
		key        string
		escapePath bool
		wantStatus int
	}{
		{name: "plain key, S3 escaping", key: "lists/doc.json", wantStatus: http.StatusOK},
		{name: "plain key, default escaping", key: "lists/doc.json", escapePath: true, wantStatus: http.StatusOK},
		{name: "key with a space, S3 escaping", key: "my%20list.json", wantStatus: http.StatusOK},
		{name: "key with a space, default escaping", key: "my%20list.json", escapePath: true, wantStatus: http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := startServer(t)
			body := []byte(`[]`)
			req := signedRequest(t, http.MethodPut, objectURL(s, tt.key), body, nil, signing{escapePath: tt.escapePath})
			if a := do(t, s.Client(), req); a.status != tt.wantStatus {
				t.Fatalf("PUT %s = %d %s, want %d", tt.key, a.status, a.code, tt.wantStatus)
			}
		})
	}
}

// withBody replaces the body of req, keeping its headers and signature.
func withBody(t *testing.T, req *http.Request, body []byte) *http.Request {
	t.Helper()
	out := newRequest(t, req.Method, req.URL.String(), body, req.Header.Clone())
	return out
}
