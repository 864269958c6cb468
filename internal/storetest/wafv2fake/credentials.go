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
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// ErrUnknownAccessKey is returned by the Server methods that change one
// credential when no accepted credential has that access key ID.
var ErrUnknownAccessKey = errors.New("wafv2fake: unknown access key ID")

func validateCredentials(creds []aws.Credentials) error {
	var errs []error
	seen := make(map[string]bool, len(creds))
	for i, c := range creds {
		if c.AccessKeyID == "" || c.SecretAccessKey == "" {
			errs = append(errs, fmt.Errorf("credential %d: access key ID and secret must not be empty", i))
			continue
		}
		if seen[c.AccessKeyID] {
			errs = append(errs, fmt.Errorf("credential %d: duplicate access key ID %q", i, c.AccessKeyID))
		}
		seen[c.AccessKeyID] = true
	}
	return errors.Join(errs...)
}

func credentialMap(creds []aws.Credentials) map[string]aws.Credentials {
	m := make(map[string]aws.Credentials, len(creds))
	for _, c := range creds {
		m[c.AccessKeyID] = c
	}
	return m
}

// SetCredentials replaces the accepted credentials, as WithCredentials does
// at construction: requests signed with a key that is no longer there get
// 400 UnrecognizedClientException from now on.
func (s *Server) SetCredentials(creds ...aws.Credentials) error {
	if err := validateCredentials(creds); err != nil {
		return fmt.Errorf("wafv2fake: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.creds = credentialMap(creds)
	return nil
}

// ExpireSessionToken makes the credential with this access key ID expire
// now by the Server's clock: its requests get 400 ExpiredTokenException
// from now on. The credential must have a session token.
func (s *Server) ExpireSessionToken(accessKeyID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.creds[accessKeyID]
	if !ok {
		return fmt.Errorf("%w: %q", ErrUnknownAccessKey, accessKeyID)
	}
	if c.SessionToken == "" {
		return fmt.Errorf("wafv2fake: credential %q has no session token to expire", accessKeyID)
	}
	c.CanExpire = true
	c.Expires = s.cfg.now()
	s.creds[accessKeyID] = c
	return nil
}

// lookup returns the credential with this access key ID.
func (s *Server) lookup(accessKeyID string) (aws.Credentials, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.creds[accessKeyID]
	return c, ok
}

// checkToken decides whether a request that presents token may use c:
// AWS answers a wrong or missing session token as an unknown key.
func checkToken(c aws.Credentials, token string, expired bool) *Error {
	switch {
	case c.SessionToken != token:
		return errUnrecognizedClient()
	case c.SessionToken != "" && expired:
		return errExpiredToken()
	}
	return nil
}
