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

package wafv2fake

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/textproto"
	"strings"
	"time"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/smithy-go/logging"
)

// The SigV4 vocabulary: the algorithm name, the time formats of X-Amz-Date
// and of the credential scope, and the scope's terminator.
const (
	sigAlgorithm  = "AWS4-HMAC-SHA256"
	amzDateFormat = "20060102T150405Z"
	scopeDate     = "20060102"
	scopeTerminal = "aws4_request"
	hdrAmzDate    = "X-Amz-Date"
	hdrToken      = "X-Amz-Security-Token"
)

// sigParams are the SigV4 parameters of a request's Authorization header.
type sigParams struct {
	accessKeyID   string
	scopeDay      string
	region        string
	service       string
	signedHeaders string
	signature     string
}

// authenticate checks the SigV4 signature in r's Authorization header
// against the accepted credentials at now, over body. It returns the
// access key ID the request claimed (for the request log), also when it
// refuses it.
func (s *Server) authenticate(r *http.Request, body []byte, now time.Time) (string, *Error) {
	authz := r.Header.Get("Authorization")
	if authz == "" {
		return "", errMissingToken()
	}
	sp, e := parseAuthorization(authz)
	if e != nil {
		return sp.accessKeyID, e
	}
	amzDate := r.Header.Get(hdrAmzDate)
	t, err := time.Parse(amzDateFormat, amzDate)
	if err != nil {
		return sp.accessKeyID, errIncompleteSignature("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.")
	}
	if sp.scopeDay != t.Format(scopeDate) {
		return sp.accessKeyID, errInvalidSignature(fmt.Sprintf("Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '%s' != '%s', from '%s'.",
			sp.scopeDay, t.Format(scopeDate), amzDate))
	}
	if sp.region != s.cfg.region {
		return sp.accessKeyID, errInvalidSignature("Credential should be scoped to a valid region. ")
	}
	if sp.service != Service {
		return sp.accessKeyID, errInvalidSignature(fmt.Sprintf("Credential should be scoped to correct service: '%s'. ", Service))
	}
	c, ok := s.creds.Lookup(sp.accessKeyID)
	if !ok {
		return sp.accessKeyID, errUnrecognizedClient()
	}
	if e := checkToken(c, r.Header.Get(hdrToken), c.CanExpire && !now.Before(c.Expires)); e != nil {
		return sp.accessKeyID, e
	}
	switch d := now.Sub(t); {
	case d > MaxClockSkew:
		return sp.accessKeyID, errInvalidSignature(fmt.Sprintf("Signature expired: %s is now earlier than %s (%s - 15 min.)",
			amzDate, now.Add(-MaxClockSkew).UTC().Format(amzDateFormat), now.UTC().Format(amzDateFormat)))
	case d < -MaxClockSkew:
		return sp.accessKeyID, errInvalidSignature(fmt.Sprintf("Signature not yet current: %s is still later than %s (%s + 15 min.)",
			amzDate, now.Add(MaxClockSkew).UTC().Format(amzDateFormat), now.UTC().Format(amzDateFormat)))
	}
	sum := sha256.Sum256(body)
	req := signable(r, sp.signedHeaders)
	// A signer per request: v4.Signer caches derived keys by access key
	// ID, day, region and service, not by secret, so a shared one would
	// go on accepting the old secret after SetCredentials changed it.
	var trace signingTrace
	signer := v4.NewSigner(func(o *v4.SignerOptions) {
		o.Logger = &trace
		o.LogSigning = true
	})
	if err := signer.SignHTTP(r.Context(), c, req, hex.EncodeToString(sum[:]), Service, s.cfg.region, t); err != nil {
		return sp.accessKeyID, InternalFailure()
	}
	want, _ := parseAuthorization(req.Header.Get("Authorization"))
	if want.signedHeaders != sp.signedHeaders ||
		subtle.ConstantTimeCompare([]byte(want.signature), []byte(sp.signature)) != 1 {
		// AWS's answer shows what it computed, which is why a client
		// must never log these messages as they come.
		return sp.accessKeyID, errInvalidSignature("The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.\n\n" +
			"The Canonical String for this request should have been\n'" + trace.canonical + "'\n\n" +
			"The String-to-Sign should have been\n'" + trace.stringToSign + "'\n")
	}
	return sp.accessKeyID, nil
}

// parseAuthorization parses "AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=...".
func parseAuthorization(authz string) (sigParams, *Error) {
	var sp sigParams
	rest, ok := strings.CutPrefix(authz, sigAlgorithm+" ")
	if !ok {
		scheme, _, _ := strings.Cut(authz, " ")
		return sp, errIncompleteSignature(fmt.Sprintf("Unsupported AWS 'algorithm': '%s'.", scheme))
	}
	var credential string
	for part := range strings.SplitSeq(rest, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return sp, errIncompleteSignature("Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters.")
		}
		switch k {
		case "Credential":
			credential = v
		case "SignedHeaders":
			sp.signedHeaders = v
		case "Signature":
			sp.signature = v
		}
	}
	if credential == "" || sp.signedHeaders == "" || sp.signature == "" {
		return sp, errIncompleteSignature("Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters.")
	}
	parts := strings.Split(credential, "/")
	if len(parts) != 5 || parts[0] == "" {
		return sp, errIncompleteSignature("Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term.")
	}
	sp.accessKeyID, sp.scopeDay, sp.region, sp.service = parts[0], parts[1], parts[2], parts[3]
	if parts[4] != scopeTerminal {
		return sp, errInvalidSignature(fmt.Sprintf("Credential should be scoped with a valid terminator: '%s'. ", scopeTerminal))
	}
	return sp, nil
}

// signable builds the request the signer is given: r's method, path, query
// and host, and only the headers the client signed. The signer adds
// X-Amz-Date and X-Amz-Security-Token itself, from the signing time and
// the credential.
func signable(r *http.Request, signedHeaders string) *http.Request {
	u := *r.URL
	u.Scheme, u.Host = "http", r.Host
	if r.TLS != nil {
		u.Scheme = "https"
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

// signingTrace captures the canonical request and the string to sign that
// the signer logs, for the message of InvalidSignatureException (as AWS
// sends them).
type signingTrace struct{ canonical, stringToSign string }

// Logf implements logging.Logger.
func (t *signingTrace) Logf(_ logging.Classification, _ string, v ...any) {
	if len(v) >= 2 {
		t.canonical, _ = v[0].(string)
		t.stringToSign, _ = v[1].(string)
	}
}
