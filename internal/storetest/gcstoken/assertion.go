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

package gcstoken

import (
	"errors"
	"slices"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Limits on an assertion's times, as Google's token endpoint has them.
const (
	// maxAssertionLifetime is the longest exp - iat Google accepts.
	maxAssertionLifetime = time.Hour
	// clockLeeway is how far iat may lie in the future and exp in the
	// past, for clocks that are not quite in step.
	clockLeeway = time.Minute
)

// Google's error_description for the refusals it documents or is known to
// send.
const (
	descBadSignature = "Invalid JWT Signature."
	descBadTimes     = "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."
	descNoAccount    = "Invalid grant: account not found"
)

// grantError is a refused token request: an OAuth 2.0 error code and its
// description.
type grantError struct {
	code        string
	description string
}

func (e *grantError) Error() string { return e.code + ": " + e.description }

// assertionClaims are the claims of a service account's assertion.
type assertionClaims struct {
	jwt.RegisteredClaims
	Scope string `json:"scope"`
}

// verifyAssertion checks a JWT-bearer assertion: signed with RS256 by the
// key of a known service account (iss), meant for that account's token
// URI (aud), within its times, and with a scope.
func (s *Server) verifyAssertion(assertion string) error {
	if assertion == "" {
		return &grantError{code: "invalid_request", description: "Missing required parameter: assertion"}
	}
	var (
		claims assertionClaims
		acct   *account
	)
	parser := jwt.NewParser(
		jwt.WithValidMethods([]string{jwt.SigningMethodRS256.Alg()}),
		jwt.WithTimeFunc(s.cfg.now),
		jwt.WithLeeway(clockLeeway),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
	)
	_, err := parser.ParseWithClaims(assertion, &claims, func(t *jwt.Token) (any, error) {
		if acct = s.account(claims.Issuer); acct == nil {
			return nil, &grantError{code: "invalid_grant", description: descNoAccount}
		}
		if kid, ok := t.Header["kid"].(string); ok && kid != acct.keyID {
			return nil, &grantError{code: "invalid_grant", description: descBadSignature}
		}
		return acct.publicKey, nil
	})
	var ge *grantError
	switch {
	case errors.As(err, &ge):
		return ge
	case errors.Is(err, jwt.ErrTokenExpired), errors.Is(err, jwt.ErrTokenUsedBeforeIssued),
		errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return &grantError{code: "invalid_grant", description: descBadTimes}
	case err != nil:
		return &grantError{code: "invalid_grant", description: descBadSignature}
	}
	if claims.IssuedAt == nil || claims.ExpiresAt.Sub(claims.IssuedAt.Time) > maxAssertionLifetime {
		return &grantError{code: "invalid_grant", description: descBadTimes}
	}
	if !slices.Contains(claims.Audience, acct.tokenURI) {
		return &grantError{code: "invalid_grant", description: "Invalid JWT: the aud claim must be " + acct.tokenURI}
	}
	if claims.Scope == "" {
		return &grantError{code: "invalid_scope", description: "Invalid OAuth scope or ID token audience provided."}
	}
	return nil
}
