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

// Package sigv4 is the AWS Signature Version 4 verifier the fakes under
// internal/storetest share (s3fake, wafv2fake): it splits what a request
// claims (the Authorization header or a presigned URL's query), rebuilds
// the request as the client signed it, signs that again with
// aws-sdk-go-v2's own signer and compares the signatures in constant time.
// What each fake keeps for itself is what AWS words differently per
// service: the order of its checks and the text of its errors.
package sigv4

import (
	"context"
	"crypto/subtle"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/smithy-go/logging"
)

// The SigV4 vocabulary: the algorithm name, the time formats of
// X-Amz-Date and of the credential scope, the scope's terminator, and the
// headers and query parameters that carry a signature.
const (
	Algorithm      = "AWS4-HMAC-SHA256"
	DateFormat     = "20060102T150405Z"
	ScopeFormat    = "20060102"
	ScopeTerminal  = "aws4_request"
	HeaderDate     = "X-Amz-Date"
	HeaderToken    = "X-Amz-Security-Token"
	QuerySignature = "X-Amz-Signature"
	QuerySigned    = "X-Amz-SignedHeaders"
)

// Fault says what is wrong with the shape of an Authorization header.
type Fault int

// The faults Split reports.
const (
	// FaultNone: the header has the algorithm and all three components.
	FaultNone Fault = iota
	// FaultAlgorithm: the header does not start with Algorithm.
	FaultAlgorithm
	// FaultComponent: a component is not "key=value", or, when strict,
	// its key is unknown (Header.Bad holds it).
	FaultComponent
	// FaultMissing: Credential, SignedHeaders or Signature is missing.
	FaultMissing
)

// Header is the parsed Authorization header of a request.
type Header struct {
	Credential    string
	SignedHeaders string
	Signature     string
	// Bad is the offending component, for FaultComponent.
	Bad string
}

// Split parses "AWS4-HMAC-SHA256 Credential=..., SignedHeaders=...,
// Signature=...". A component that is not "key=value" is a fault; one with
// an unknown key is a fault only when strict (S3 refuses those, other
// services ignore them).
func Split(authz string, strict bool) (Header, Fault) {
	var h Header
	rest, ok := strings.CutPrefix(authz, Algorithm+" ")
	if !ok {
		return h, FaultAlgorithm
	}
	for part := range strings.SplitSeq(rest, ",") {
		part = strings.TrimSpace(part)
		k, v, ok := strings.Cut(part, "=")
		switch {
		case !ok:
			h.Bad = part
			return h, FaultComponent
		case k == "Credential":
			h.Credential = v
		case k == "SignedHeaders":
			h.SignedHeaders = v
		case k == "Signature":
			h.Signature = v
		case strict:
			h.Bad = part
			return h, FaultComponent
		}
	}
	if h.Credential == "" || h.SignedHeaders == "" || h.Signature == "" {
		return h, FaultMissing
	}
	return h, FaultNone
}

// Scheme is the first word of an Authorization header: errors name it,
// never the credentials that follow it (a bearer token, say).
func Scheme(authz string) string {
	scheme, _, _ := strings.Cut(authz, " ")
	return scheme
}

// Scope is the credential scope "<AKID>/<YYYYMMDD>/<region>/<service>/aws4_request".
type Scope struct {
	AccessKeyID, Day, Region, Service, Terminal string
}

// ParseScope splits a credential scope; ok is false unless it has exactly
// five parts. It checks nothing else: services word each refusal their own
// way.
func ParseScope(v string) (s Scope, ok bool) {
	parts := strings.Split(v, "/")
	if len(parts) != 5 {
		return s, false
	}
	return Scope{AccessKeyID: parts[0], Day: parts[1], Region: parts[2], Service: parts[3], Terminal: parts[4]}, true
}

// HeaderListHas reports whether name is in a SignedHeaders list.
func HeaderListHas(list, name string) bool {
	for h := range strings.SplitSeq(list, ";") {
		if h == name {
			return true
		}
	}
	return false
}

// Claim is what a request says it signed, to be verified.
type Claim struct {
	Credentials   aws.Credentials
	Service       string
	Region        string
	Time          time.Time
	SignedHeaders string
	Signature     string
	// PayloadHash is the hex SHA-256 of the body, or UNSIGNED-PAYLOAD.
	PayloadHash string
	// Presigned: the signature is in the query string.
	Presigned bool
	// S3 signs the path as sent, without escaping it a second time, and
	// never hoists headers into a presigned query.
	S3 bool
}

// Trace is what the signer computed: the canonical request and the string
// to sign. AWS shows them in its refusal, which is why a client must never
// log such messages as they come.
type Trace struct {
	Canonical, StringToSign string
}

// Verify signs r again as c says it was signed and compares the result
// with c's signature in constant time. err is the signer's own failure;
// ok is false when the signatures or the signed header lists differ.
func Verify(ctx context.Context, r *http.Request, c Claim) (ok bool, trace Trace, err error) {
	req := Signable(r, c.SignedHeaders, c.Presigned).WithContext(ctx)
	// A signer per request: v4.Signer caches derived keys by access key
	// ID, day, region and service, not by secret, so a shared one would
	// go on accepting an old secret after the fake's credentials changed.
	signer := v4.NewSigner()
	var log signingLog
	opts := func(o *v4.SignerOptions) {
		o.DisableURIPathEscaping = c.S3
		o.DisableHeaderHoisting = c.S3
		o.Logger = &log
		o.LogSigning = true
	}
	var gotHeaders, want string
	if c.Presigned {
		signed, _, err := signer.PresignHTTP(ctx, c.Credentials, req, c.PayloadHash, c.Service, c.Region, c.Time, opts)
		if err != nil {
			return false, Trace{}, err
		}
		u, err := url.Parse(signed)
		if err != nil {
			return false, Trace{}, err
		}
		gotHeaders, want = u.Query().Get(QuerySigned), u.Query().Get(QuerySignature)
	} else {
		if err := signer.SignHTTP(ctx, c.Credentials, req, c.PayloadHash, c.Service, c.Region, c.Time, opts); err != nil {
			return false, Trace{}, err
		}
		h, _ := Split(req.Header.Get("Authorization"), false)
		gotHeaders, want = h.SignedHeaders, h.Signature
	}
	trace = Trace(log)
	ok = gotHeaders == c.SignedHeaders && subtle.ConstantTimeCompare([]byte(want), []byte(c.Signature)) == 1
	return ok, trace, nil
}

// Signable builds the request the signer is given: r's method, path, query
// (without the signature, when presigned) and host, and only the headers
// the client signed. The signer adds X-Amz-Date and X-Amz-Security-Token
// itself, from the signing time and the credential.
func Signable(r *http.Request, signedHeaders string, presigned bool) *http.Request {
	u := *r.URL
	u.Scheme, u.Host = "http", r.Host
	if r.TLS != nil {
		u.Scheme = "https"
	}
	if presigned {
		q := r.URL.Query()
		q.Del(QuerySignature)
		u.RawQuery = q.Encode()
	}
	req := (&http.Request{Method: r.Method, URL: &u, Host: r.Host, Header: http.Header{}}).WithContext(r.Context())
	for h := range strings.SplitSeq(signedHeaders, ";") {
		switch h {
		case "host":
		case "content-length":
			req.ContentLength = r.ContentLength
		default:
			if vs := r.Header.Values(h); len(vs) > 0 {
				req.Header[textproto.CanonicalMIMEHeaderKey(h)] = vs
			}
		}
	}
	return req
}

// signingLog captures the canonical request and the string to sign that
// the signer logs.
type signingLog struct{ Canonical, StringToSign string }

// Logf implements logging.Logger.
func (t *signingLog) Logf(_ logging.Classification, _ string, v ...any) {
	if len(v) >= 2 {
		t.Canonical, _ = v[0].(string)
		t.StringToSign, _ = v[1].(string)
	}
}
