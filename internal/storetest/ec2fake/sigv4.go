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

package ec2fake

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
// refuses it. EC2 tells a client little: a key, scope, token or signature
// that does not check out is AuthFailure, without the canonical request
// that JSON services show.
func (s *Server) authenticate(r *http.Request, body []byte, now time.Time) (string, *Error) {
	authz := r.Header.Get("Authorization")
	if authz == "" {
		return "", errMissingAuthentication()
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
	if sp.scopeDay != t.Format(sigv4.ScopeFormat) || sp.region != s.cfg.region || sp.service != Service {
		return sp.accessKeyID, errAuthFailure()
	}
	c, ok := s.creds.Lookup(sp.accessKeyID)
	if !ok {
		return sp.accessKeyID, errAuthFailure()
	}
	if e := checkToken(c, r.Header.Get(sigv4.HeaderToken), c.CanExpire && !now.Before(c.Expires)); e != nil {
		return sp.accessKeyID, e
	}
	if d := now.Sub(t); d > MaxClockSkew || d < -MaxClockSkew {
		return sp.accessKeyID, errRequestExpired(fmt.Sprintf("Request has expired. Timestamp date is %s", t.UTC().Format(time.RFC3339)))
	}
	sum := sha256.Sum256(body)
	ok, _, err = sigv4.Verify(r.Context(), r, sigv4.Claim{
		Credentials: c, Service: Service, Region: s.cfg.region, Time: t,
		SignedHeaders: sp.signedHeaders, Signature: sp.signature, PayloadHash: hex.EncodeToString(sum[:]),
	})
	if err != nil {
		return sp.accessKeyID, InternalError()
	}
	if !ok {
		return sp.accessKeyID, errAuthFailure()
	}
	return sp.accessKeyID, nil
}

// parseAuthorization parses "AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=...".
// A header that is not of that shape is an incomplete signature; a scope
// whose terminator is wrong cannot be validated.
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
		return sp, errAuthFailure()
	}
	return sp, nil
}
