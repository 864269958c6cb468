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

package wafv2fake_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/wafv2"
	"github.com/aws/aws-sdk-go-v2/service/wafv2/types"

	"github.com/listkeeper/listkeeper/internal/storetest/wafv2fake"
)

// TestSignatureRefused: requests the SDK signs with the wrong secret, an
// unknown key, for another region, or with a missing, wrong or expired
// session token are refused with 400 and AWS's codes, before they reach
// the set.
func TestSignatureRefused(t *testing.T) {
	temp := aws.Credentials{AccessKeyID: "LISTKEEPERWAFTEMP001", SecretAccessKey: "temp-secret", SessionToken: "session-7f3e"}
	expiring := aws.Credentials{AccessKeyID: "LISTKEEPERWAFTEMP002", SecretAccessKey: "temp-secret-2", SessionToken: "session-9a1c"}
	s := start(t, wafv2fake.WithCredentials(wafv2fake.DefaultCredentials(), temp, expiring))
	id := seed(t, s)
	if err := s.ExpireSessionToken(expiring.AccessKeyID); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		creds  aws.Credentials
		region string
		code   string
	}{
		{"wrong secret", aws.Credentials{AccessKeyID: wafv2fake.TestAccessKeyID, SecretAccessKey: "not-the-secret"}, "", "InvalidSignatureException"},
		{"unknown access key", aws.Credentials{AccessKeyID: "LISTKEEPERWAFNOKEY01", SecretAccessKey: "x"}, "", "UnrecognizedClientException"},
		{"signed for another region", wafv2fake.DefaultCredentials(), "eu-west-1", "InvalidSignatureException"},
		{"temporary key without its token", aws.Credentials{AccessKeyID: temp.AccessKeyID, SecretAccessKey: temp.SecretAccessKey}, "", "UnrecognizedClientException"},
		{"temporary key with another token", aws.Credentials{AccessKeyID: temp.AccessKeyID, SecretAccessKey: temp.SecretAccessKey, SessionToken: "forged"}, "", "UnrecognizedClientException"},
		{"expired session token", expiring, "", "ExpiredTokenException"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := client(t, s, tt.creds)
			if tt.region != "" {
				c = wafv2.New(c.Options(), func(o *wafv2.Options) { o.Region = tt.region })
			}
			_, err := c.GetIPSet(t.Context(), &wafv2.GetIPSetInput{Name: aws.String("allow"), Scope: types.ScopeRegional, Id: aws.String(id)})
			wantCode(t, err, tt.code)
			wantStatus(t, err, http.StatusBadRequest)
			recs := s.Requests()
			if last := recs[len(recs)-1]; last.AccessKeyID != tt.creds.AccessKeyID || last.Code != tt.code {
				t.Errorf("logged %+v", last)
			}
		})
	}

	t.Run("the temporary key with its token", func(t *testing.T) {
		if _, err := client(t, s, temp).GetIPSet(t.Context(), &wafv2.GetIPSetInput{Name: aws.String("allow"), Scope: types.ScopeRegional, Id: aws.String(id)}); err != nil {
			t.Fatalf("GetIPSet: %v", err)
		}
	})
}

// TestClockSkew: a request dated more than 15 minutes from the server's
// clock is refused, either way.
func TestClockSkew(t *testing.T) {
	for _, skew := range []time.Duration{-16 * time.Minute, 16 * time.Minute} {
		s := start(t, wafv2fake.WithClock(func() time.Time { return time.Now().Add(skew) }))
		id := seed(t, s)
		_, err := client(t, s).GetIPSet(t.Context(), &wafv2.GetIPSetInput{Name: aws.String("allow"), Scope: types.ScopeRegional, Id: aws.String(id)})
		wantCode(t, err, "InvalidSignatureException")
	}
	s := start(t, wafv2fake.WithClock(func() time.Time { return time.Now().Add(14 * time.Minute) }))
	id := seed(t, s)
	if _, err := client(t, s).GetIPSet(t.Context(), &wafv2.GetIPSetInput{Name: aws.String("allow"), Scope: types.ScopeRegional, Id: aws.String(id)}); err != nil {
		t.Errorf("14 minutes off: %v", err)
	}
}

// answer is a raw answer of the server: its status, X-Amzn-ErrorType and
// body.
type answer struct {
	status    int
	errorType string
	body      map[string]any
}

// post sends body to the server as operation op, signed with the default
// credentials unless sign is false; tamper, when set, changes the request
// after it was signed.
func post(t *testing.T, s *wafv2fake.Server, op string, body []byte, sign bool, tamper func(*http.Request)) answer {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL()+"/", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", wafv2fake.ContentType)
	req.Header.Set("X-Amz-Target", wafv2fake.TargetPrefix+op)
	if sign {
		sum := sha256.Sum256(body)
		if err := v4.NewSigner().SignHTTP(t.Context(), wafv2fake.DefaultCredentials(), req, hex.EncodeToString(sum[:]),
			wafv2fake.Service, s.Region(), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if tamper != nil {
		tamper(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, errorType: resp.Header.Get("X-Amzn-ErrorType")}
	if err := json.Unmarshal(raw, &a.body); err != nil {
		t.Fatalf("answer is not JSON: %q", raw)
	}
	if ct := resp.Header.Get("Content-Type"); ct != wafv2fake.ContentType {
		t.Errorf("Content-Type = %q", ct)
	}
	return a
}

// code returns the error code of an answer from its __type, without a
// namespace prefix, and checks that the header says the same.
func (a answer) code(t *testing.T) string {
	t.Helper()
	typ, _ := a.body["__type"].(string)
	if i := strings.LastIndex(typ, "#"); i >= 0 {
		typ = typ[i+1:]
	}
	if typ != a.errorType {
		t.Errorf("__type says %q, X-Amzn-ErrorType %q", typ, a.errorType)
	}
	return typ
}

// TestRawRequests: what the SDK never sends (it checks requests before it
// signs them) is answered as AWS's front end and the service's model do.
func TestRawRequests(t *testing.T) {
	s := start(t)
	id := seed(t, s)
	set, _ := s.IPSet(wafv2fake.ScopeRegional, id)
	good := `{"Name":"allow","Scope":"REGIONAL","Id":"` + id + `","Addresses":["192.0.2.0/24"],"LockToken":"` + set.LockToken + `"}`
	tests := []struct {
		name     string
		op       string
		body     string
		unsigned bool
		tamper   func(*http.Request)
		status   int
		code     string
	}{
		{name: "no signature", op: wafv2fake.OpGetIPSet, body: `{}`, unsigned: true, status: 400, code: "MissingAuthenticationTokenException"},
		{name: "body changed after signing", op: wafv2fake.OpUpdateIPSet, body: good, status: 400, code: "InvalidSignatureException",
			tamper: func(r *http.Request) {
				b := strings.Replace(good, "192.0.2.0/24", "0.0.0.0/1", 1)
				r.Body, r.ContentLength = io.NopCloser(strings.NewReader(b)), int64(len(b))
			}},
		{name: "target changed after signing", op: wafv2fake.OpGetIPSet, body: `{}`, status: 400, code: "InvalidSignatureException",
			tamper: func(r *http.Request) { r.Header.Set("X-Amz-Target", wafv2fake.TargetPrefix+wafv2fake.OpListIPSets) }},
		{name: "SigV2-style header", op: wafv2fake.OpGetIPSet, body: `{}`, status: 400, code: "IncompleteSignatureException",
			tamper: func(r *http.Request) { r.Header.Set("Authorization", "AWS "+wafv2fake.TestAccessKeyID+":c2lnbmF0dXJl") }},
		{name: "unknown operation", op: "DeleteIPSet", body: `{}`, status: 400, code: "UnknownOperationException"},
		{name: "not JSON", op: wafv2fake.OpGetIPSet, body: `{"Name":`, status: 400, code: "SerializationException"},
		{name: "no lock token", op: wafv2fake.OpUpdateIPSet, status: 400, code: "ValidationException",
			body: `{"Name":"allow","Scope":"REGIONAL","Id":"` + id + `","Addresses":[]}`},
		{name: "no addresses", op: wafv2fake.OpUpdateIPSet, status: 400, code: "ValidationException",
			body: `{"Name":"allow","Scope":"REGIONAL","Id":"` + id + `","LockToken":"` + set.LockToken + `"}`},
		{name: "empty description", op: wafv2fake.OpUpdateIPSet, status: 400, code: "ValidationException",
			body: strings.Replace(good, `"Addresses"`, `"Description":"","Addresses"`, 1)},
		{name: "unknown scope", op: wafv2fake.OpGetIPSet, status: 400, code: "ValidationException",
			body: `{"Name":"allow","Scope":"GLOBAL","Id":"` + id + `"}`},
		{name: "a good update", op: wafv2fake.OpUpdateIPSet, body: good, status: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := post(t, s, tt.op, []byte(tt.body), !tt.unsigned, tt.tamper)
			if a.status != tt.status {
				t.Fatalf("status = %d (%v), want %d", a.status, a.body, tt.status)
			}
			if tt.code != "" {
				if got := a.code(t); got != tt.code {
					t.Errorf("code = %q (%v), want %q", got, a.body["Message"], tt.code)
				}
			}
		})
	}
	if after, _ := s.IPSet(wafv2fake.ScopeRegional, id); !equal(after.Addresses, []string{"192.0.2.0/24"}) {
		t.Errorf("addresses = %v: only the good update may have landed", after.Addresses)
	}
}

// TestCloudFrontScope: CLOUDFRONT sets live in us-east-1; elsewhere the
// scope is refused.
func TestCloudFrontScope(t *testing.T) {
	s := start(t, wafv2fake.WithRegion("eu-west-1"))
	if _, err := s.CreateIPSet(wafv2fake.ScopeCloudFront, "edge", "", wafv2fake.IPv4, nil); err == nil {
		t.Error("a CLOUDFRONT set was created in eu-west-1")
	}
	_, err := client(t, s).ListIPSets(t.Context(), &wafv2.ListIPSetsInput{Scope: types.ScopeCloudfront})
	var invalid *types.WAFInvalidParameterException
	if !errors.As(err, &invalid) || invalid.Field != types.ParameterExceptionFieldScopeValue {
		t.Errorf("err = %v, want WAFInvalidParameterException for SCOPE_VALUE", err)
	}

	us := start(t)
	id, err := us.CreateIPSet(wafv2fake.ScopeCloudFront, "edge", "", wafv2fake.IPv4, nil)
	if err != nil {
		t.Fatal(err)
	}
	if set, _ := us.IPSet(wafv2fake.ScopeCloudFront, id); !strings.Contains(set.ARN, ":global/ipset/edge/") {
		t.Errorf("ARN = %q", set.ARN)
	}
}
