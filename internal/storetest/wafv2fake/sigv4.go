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
	"encoding/hex"
	"fmt"
	"net/http"
	"time"

	"github.com/listkeeper/listkeeper/internal/storetest/sigv4"
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
	amzDate := r.Header.Get(sigv4.HeaderDate)
	t, err := time.Parse(sigv4.DateFormat, amzDate)
	if err != nil {
		return sp.accessKeyID, errIncompleteSignature("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.")
	}
	if sp.scopeDay != t.Format(sigv4.ScopeFormat) {
		return sp.accessKeyID, errInvalidSignature(fmt.Sprintf("Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '%s' != '%s', from '%s'.",
			sp.scopeDay, t.Format(sigv4.ScopeFormat), amzDate))
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
	if e := checkToken(c, r.Header.Get(sigv4.HeaderToken), c.CanExpire && !now.Before(c.Expires)); e != nil {
		return sp.accessKeyID, e
	}
	switch d := now.Sub(t); {
	case d > MaxClockSkew:
		return sp.accessKeyID, errInvalidSignature(fmt.Sprintf("Signature expired: %s is now earlier than %s (%s - 15 min.)",
			amzDate, now.Add(-MaxClockSkew).UTC().Format(sigv4.DateFormat), now.UTC().Format(sigv4.DateFormat)))
	case d < -MaxClockSkew:
		return sp.accessKeyID, errInvalidSignature(fmt.Sprintf("Signature not yet current: %s is still later than %s (%s + 15 min.)",
			amzDate, now.Add(MaxClockSkew).UTC().Format(sigv4.DateFormat), now.UTC().Format(sigv4.DateFormat)))
	}
	sum := sha256.Sum256(body)
	ok, trace, err := sigv4.Verify(r.Context(), r, sigv4.Claim{
		Credentials: c, Service: Service, Region: s.cfg.region, Time: t,
		SignedHeaders: sp.signedHeaders, Signature: sp.signature, PayloadHash: hex.EncodeToString(sum[:]),
	})
	if err != nil {
		return sp.accessKeyID, InternalFailure()
	}
	if !ok {
		// AWS's answer shows what it computed, which is why a client
		// must never log these messages as they come.
		return sp.accessKeyID, errInvalidSignature("The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.\n\n" +
			"The Canonical String for this request should have been\n'" + trace.Canonical + "'\n\n" +
			"The String-to-Sign should have been\n'" + trace.StringToSign + "'\n")
	}
	return sp.accessKeyID, nil
}

// parseAuthorization parses "AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=...",
// worded as AWS WAF words its refusals.
func parseAuthorization(authz string) (sigParams, *Error) {
	var sp sigParams
	h, fault := sigv4.Split(authz, false)
	switch fault {
	case sigv4.FaultAlgorithm:
		return sp, errIncompleteSignature(fmt.Sprintf("Unsupported AWS 'algorithm': '%s'.", sigv4.Scheme(authz)))
	case sigv4.FaultComponent, sigv4.FaultMissing:
		return sp, errIncompleteSignature("Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters.")
	}
	sp.signedHeaders, sp.signature = h.SignedHeaders, h.Signature
	scope, ok := sigv4.ParseScope(h.Credential)
	if !ok || scope.AccessKeyID == "" {
		return sp, errIncompleteSignature("Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term.")
	}
	sp.accessKeyID, sp.scopeDay, sp.region, sp.service = scope.AccessKeyID, scope.Day, scope.Region, scope.Service
	if scope.Terminal != sigv4.ScopeTerminal {
		return sp, errInvalidSignature(fmt.Sprintf("Credential should be scoped with a valid terminator: '%s'. ", sigv4.ScopeTerminal))
	}
	return sp, nil
}
