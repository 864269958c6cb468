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
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/listkeeper/listkeeper/internal/storetest/sigv4"
)

// The SigV4 vocabulary: the algorithm name, the time format of X-Amz-Date,
// the query parameters of a presigned URL, and the payload hash values.
const (
	sigAlgorithm   = sigv4.Algorithm
	amzDateFormat  = sigv4.DateFormat
	scopeDate      = sigv4.ScopeFormat
	scopeTerminal  = sigv4.ScopeTerminal
	unsignedHash   = "UNSIGNED-PAYLOAD"
	streamingHash  = "STREAMING-"
	hdrAmzDate     = sigv4.HeaderDate
	hdrToken       = sigv4.HeaderToken
	hdrContentHash = "X-Amz-Content-Sha256"
	qAlgorithm     = "X-Amz-Algorithm"
	qCredential    = "X-Amz-Credential"
	qDate          = "X-Amz-Date"
	qExpires       = "X-Amz-Expires"
	qSignedHeaders = sigv4.QuerySigned
	qSignature     = sigv4.QuerySignature
	qToken         = "X-Amz-Security-Token"
	qContentHash   = "X-Amz-Content-Sha256"
)

// AuthKind says how a request was authenticated.
type AuthKind int

// The kinds of authentication.
const (
	// AuthNone: the request carried no signature (it is refused).
	AuthNone AuthKind = iota
	// AuthHeader: SigV4 in the Authorization header.
	AuthHeader
	// AuthPresigned: SigV4 in the query string (a presigned URL).
	AuthPresigned
)

// String implements fmt.Stringer.
func (k AuthKind) String() string {
	switch k {
	case AuthNone:
		return "none"
	case AuthHeader:
		return "header"
	case AuthPresigned:
		return "presigned"
	}
	return "AuthKind(" + strconv.Itoa(int(k)) + ")"
}

// principal is what authentication learned about a request, also when it
// refused it (for the request log).
type principal struct {
	kind        AuthKind
	accessKeyID string
	// payloadHash is the hex SHA-256 the body must have, or "" when the
	// payload is unsigned.
	payloadHash string
}

// sigParams are the SigV4 parameters of a request, from its Authorization
// header or from its query string.
type sigParams struct {
	accessKeyID   string
	scopeDay      string
	signedHeaders string
	signature     string
	amzDate       string
	signingTime   time.Time
	token         string
	payloadHash   string
	expires       time.Duration // presigned only
}

// authenticate checks the SigV4 signature of r against the accepted
// credentials at now. It does not read the body: the caller checks the
// body against principal.payloadHash.
func (s *Server) authenticate(r *http.Request, now time.Time) (principal, *Error) {
	q := r.URL.Query()
	presigned := q.Has(qAlgorithm) || q.Has(qSignature) || q.Has(qCredential)
	authz := r.Header.Get("Authorization")
	switch {
	case authz != "" && presigned:
		return principal{}, errInvalidArgument("Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified",
			"Authorization", sigv4.Scheme(authz))
	case presigned:
		return s.authenticateQuery(r, q, now)
	case authz != "":
		return s.authenticateHeader(r, authz, now)
	}
	return principal{}, errAccessDenied("Access Denied")
}

func (s *Server) authenticateHeader(r *http.Request, authz string, now time.Time) (principal, *Error) {
	p := principal{kind: AuthHeader}
	sp, e := s.parseAuthorization(authz)
	if e != nil {
		return p, e
	}
	p.accessKeyID = sp.accessKeyID

	sp.amzDate = r.Header.Get(hdrAmzDate)
	t, err := time.Parse(amzDateFormat, sp.amzDate)
	if err != nil {
		return p, errAccessDenied("AWS authentication requires a valid Date or x-amz-date header")
	}
	sp.signingTime = t
	if sp.scopeDay != t.Format(scopeDate) {
		return p, errHeaderMalformed("Invalid credential date. Date is not the same as X-Amz-Date.")
	}
	sp.token = r.Header.Get(hdrToken)

	sp.payloadHash = r.Header.Get(hdrContentHash)
	if sp.payloadHash == "" {
		return p, errUnsupportedAuth("Missing required header for this request: x-amz-content-sha256")
	}
	if e := checkPayloadHashForm(sp.payloadHash); e != nil {
		return p, e
	}

	c, e := s.credentialFor(sp, now)
	if e != nil {
		return p, e
	}
	if d := now.Sub(t); d > MaxClockSkew || d < -MaxClockSkew {
		return p, errTooSkewed(sp.amzDate, now)
	}
	if e := s.verify(r, c, sp, false); e != nil {
		return p, e
	}
	if sp.payloadHash != unsignedHash {
		p.payloadHash = sp.payloadHash
	}
	return p, nil
}

func (s *Server) authenticateQuery(r *http.Request, q url.Values, now time.Time) (principal, *Error) {
	p := principal{kind: AuthPresigned}
	for _, k := range []string{qAlgorithm, qCredential, qSignature, qDate, qSignedHeaders, qExpires} {
		if q.Get(k) == "" {
			return p, errQueryMalformed("Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.")
		}
	}
	if q.Get(qAlgorithm) != sigAlgorithm {
		return p, errQueryMalformed(`X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"`)
	}
	sp := sigParams{
		signedHeaders: q.Get(qSignedHeaders),
		signature:     q.Get(qSignature),
		amzDate:       q.Get(qDate),
		token:         q.Get(qToken),
	}
	var e *Error
	sp.accessKeyID, sp.scopeDay, e = s.parseCredential(q.Get(qCredential), func(detail string) *Error {
		return errQueryMalformed("Error parsing the X-Amz-Credential parameter; " + detail)
	})
	if e != nil {
		return p, e
	}
	p.accessKeyID = sp.accessKeyID

	t, err := time.Parse(amzDateFormat, sp.amzDate)
	if err != nil {
		return p, errQueryMalformed(`X-Amz-Date must be in the ISO8601 Long Format "yyyyMMdd'T'HHmmss'Z'"`)
	}
	sp.signingTime = t
	if sp.scopeDay != t.Format(scopeDate) {
		return p, errQueryMalformed(fmt.Sprintf("Invalid credential date %q. This date is not the same as X-Amz-Date: %q.", sp.scopeDay, t.Format(scopeDate)))
	}
	secs, err := strconv.ParseInt(q.Get(qExpires), 10, 64)
	switch {
	case err != nil:
		return p, errQueryMalformed("X-Amz-Expires should be a number")
	case secs < 0:
		return p, errQueryMalformed("X-Amz-Expires must be non-negative")
	case secs > int64(MaxPresignExpiry/time.Second):
		return p, errQueryMalformed("X-Amz-Expires must be less than a week (in seconds); that is, the given X-Amz-Expires must be less than 604800 seconds")
	}
	sp.expires = time.Duration(secs) * time.Second

	// The payload of a presigned request is unsigned unless the signer
	// chose to sign a hash, in the query or in a signed header.
	sp.payloadHash = unsignedHash
	if h := q.Get(qContentHash); h != "" {
		sp.payloadHash = h
	} else if h := r.Header.Get(hdrContentHash); h != "" && sigv4.HeaderListHas(sp.signedHeaders, "x-amz-content-sha256") {
		sp.payloadHash = h
	}
	if e := checkPayloadHashForm(sp.payloadHash); e != nil {
		return p, e
	}

	c, e := s.credentialFor(sp, now)
	if e != nil {
		return p, e
	}
	if now.After(t.Add(sp.expires)) {
		return p, errAccessDenied("Request has expired").
			with("X-Amz-Expires", q.Get(qExpires)).
			with("Expires", t.Add(sp.expires).UTC().Format(time.RFC3339)).
			with("ServerTime", now.UTC().Format(time.RFC3339))
	}
	if t.After(now.Add(MaxClockSkew)) {
		return p, errAccessDenied("Request is not valid yet")
	}
	if e := s.verify(r, c, sp, true); e != nil {
		return p, e
	}
	if sp.payloadHash != unsignedHash {
		p.payloadHash = sp.payloadHash
	}
	return p, nil
}

// parseAuthorization parses "AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=...",
// worded as S3 words its refusals.
func (s *Server) parseAuthorization(authz string) (sigParams, *Error) {
	var sp sigParams
	h, fault := sigv4.Split(authz, true)
	switch fault {
	case sigv4.FaultAlgorithm:
		if strings.HasPrefix(authz, "AWS ") || strings.HasPrefix(authz, "AWS4-") {
			return sp, errUnsupportedAuth("The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.")
		}
		return sp, errInvalidArgument("Unsupported Authorization Type", "Authorization", sigv4.Scheme(authz))
	case sigv4.FaultComponent:
		return sp, errHeaderMalformed(fmt.Sprintf("the authorization component %q is malformed.", h.Bad))
	case sigv4.FaultMissing:
		return sp, errHeaderMalformed("the authorization header requires three components: Credential, SignedHeaders, and Signature.")
	}
	sp.signedHeaders, sp.signature = h.SignedHeaders, h.Signature
	var e *Error
	sp.accessKeyID, sp.scopeDay, e = s.parseCredential(h.Credential, errHeaderMalformed)
	return sp, e
}

// parseCredential parses "<AKID>/<YYYYMMDD>/<region>/s3/aws4_request" and
// checks the scope against the Server's region; fail words the error for
// the header or the query form.
func (s *Server) parseCredential(v string, fail func(detail string) *Error) (akid, day string, e *Error) {
	scope, ok := sigv4.ParseScope(v)
	if !ok {
		return "", "", fail(`the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request".`)
	}
	akid, day, region, service, terminal := scope.AccessKeyID, scope.Day, scope.Region, scope.Service, scope.Terminal
	if akid == "" {
		return "", "", fail("a non-empty Access Key (AKID) must be provided in the credential.")
	}
	if _, err := time.Parse(scopeDate, day); err != nil {
		return akid, "", fail(fmt.Sprintf(`incorrect date format %q. This date in the credential must be in the format "yyyyMMdd".`, day))
	}
	if region != s.cfg.region {
		return akid, "", fail(fmt.Sprintf("the region '%s' is wrong; expecting '%s'", region, s.cfg.region)).with("Region", s.cfg.region)
	}
	if service != Service {
		return akid, "", fail(fmt.Sprintf(`incorrect service %q. This endpoint belongs to "s3".`, service))
	}
	if terminal != scopeTerminal {
		return akid, "", fail(fmt.Sprintf(`incorrect terminal %q. This endpoint uses "aws4_request".`, terminal))
	}
	return akid, day, nil
}

// credentialFor finds the accepted credential of sp and checks the
// session token the request presents.
func (s *Server) credentialFor(sp sigParams, now time.Time) (aws.Credentials, *Error) {
	c, ok := s.creds.Lookup(sp.accessKeyID)
	if !ok {
		return c, errInvalidAccessKeyID(sp.accessKeyID)
	}
	expired := c.CanExpire && !now.Before(c.Expires)
	return c, checkToken(c, sp.token, expired)
}
