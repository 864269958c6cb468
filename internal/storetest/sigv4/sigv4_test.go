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

package sigv4

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

func TestSplit(t *testing.T) {
	const good = "AWS4-HMAC-SHA256 Credential=AKID/20261204/eu-west-1/wafv2/aws4_request, SignedHeaders=host;x-amz-date, Signature=abc"
	for _, tc := range []struct {
		name   string
		authz  string
		strict bool
		fault  Fault
		bad    string
	}{
		{"good", good, true, FaultNone, ""},
		{"other algorithm", "AWS AKID:sig", false, FaultAlgorithm, ""},
		{"bearer", "Bearer secret-token", true, FaultAlgorithm, ""},
		{"component without =", "AWS4-HMAC-SHA256 Credential=a/b/c/d/e, SignedHeaders, Signature=x", false, FaultComponent, "SignedHeaders"},
		{"unknown key, lenient", good + ", Extra=1", false, FaultNone, ""},
		{"unknown key, strict", good + ", Extra=1", true, FaultComponent, "Extra=1"},
		{"no signature", "AWS4-HMAC-SHA256 Credential=a/b/c/d/e, SignedHeaders=host", false, FaultMissing, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, fault := Split(tc.authz, tc.strict)
			if fault != tc.fault || h.Bad != tc.bad {
				t.Fatalf("Split(%q, %t) = fault %d, bad %q; want fault %d, bad %q", tc.authz, tc.strict, fault, h.Bad, tc.fault, tc.bad)
			}
			if fault == FaultNone && (h.Credential == "" || h.SignedHeaders == "" || h.Signature == "") {
				t.Fatalf("Split(%q) = %+v: a component is empty", tc.authz, h)
			}
		})
	}
	if s, ok := ParseScope("AKID/20261204/eu-west-1/wafv2/aws4_request"); !ok || s.Region != "eu-west-1" || s.Service != "wafv2" || s.Terminal != ScopeTerminal {
		t.Fatalf("ParseScope = %+v, %t", s, ok)
	}
	if _, ok := ParseScope("AKID/20261204/eu-west-1/aws4_request"); ok {
		t.Fatal("ParseScope accepted a scope of four parts")
	}
}

// TestVerify signs a request with the SDK's signer, as a client does, and
// checks that Verify accepts it and refuses it once the body, a signed
// header or the secret differs.
func TestVerify(t *testing.T) {
	creds := aws.Credentials{AccessKeyID: "AKID", SecretAccessKey: "secret"}
	when := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	body := []byte(`{"Name":"allow"}`)
	sum := func(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }

	signed := func() *http.Request {
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080/", bytes.NewReader(body))
		r.Header.Set("X-Amz-Target", "AWSWAF_20190729.GetIPSet")
		if err := v4.NewSigner().SignHTTP(context.Background(), creds, r, sum(body), "wafv2", "eu-west-1", when); err != nil {
			t.Fatal(err)
		}
		return r
	}
	claim := func(r *http.Request, c aws.Credentials, payload []byte) Claim {
		h, fault := Split(r.Header.Get("Authorization"), false)
		if fault != FaultNone {
			t.Fatalf("the SDK's header does not split: fault %d", fault)
		}
		return Claim{Credentials: c, Service: "wafv2", Region: "eu-west-1", Time: when,
			SignedHeaders: h.SignedHeaders, Signature: h.Signature, PayloadHash: sum(payload)}
	}

	r := signed()
	if ok, tr, err := Verify(context.Background(), r, claim(r, creds, body)); err != nil || !ok {
		t.Fatalf("Verify refused a request the SDK signed: ok %t, err %v", ok, err)
	} else if tr.Canonical == "" || tr.StringToSign == "" {
		t.Fatalf("Verify's trace is empty: %+v", tr)
	}

	r = signed()
	if ok, _, _ := Verify(context.Background(), r, claim(r, creds, []byte(`{"Name":"deny"}`))); ok {
		t.Error("Verify accepted another body")
	}
	r = signed()
	r.Header.Set("X-Amz-Target", "AWSWAF_20190729.UpdateIPSet")
	if ok, _, _ := Verify(context.Background(), r, claim(r, creds, body)); ok {
		t.Error("Verify accepted a changed signed header")
	}
	r = signed()
	if ok, _, _ := Verify(context.Background(), r, claim(r, aws.Credentials{AccessKeyID: "AKID", SecretAccessKey: "other"}, body)); ok {
		t.Error("Verify accepted another secret")
	}
}
