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

package awscreds

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// Validate checks credentials a fake is asked to accept: each must have an
// access key ID and a secret, and no two the same access key ID (a fake
// looks a request's credential up by its key ID).
func Validate(creds []aws.Credentials) error {
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

// Store holds the accepted credentials by access key ID. The errors of its
// methods carry the fake's name and its own sentinel for an unknown key,
// so that the fake's exported API keeps its own errors. Build it with New.
// It is safe for concurrent use.
type Store struct {
	name    string
	unknown error

	mu    sync.Mutex
	creds map[string]aws.Credentials
}

// New builds a Store that accepts creds, which must pass Validate. name
// (the fake's package name) prefixes its error messages; unknown is the
// fake's sentinel that Revoke and Expire wrap when no credential has the
// access key ID.
func New(name string, unknown error, creds []aws.Credentials) *Store {
	return &Store{name: name, unknown: unknown, creds: credentialMap(creds)}
}

func credentialMap(creds []aws.Credentials) map[string]aws.Credentials {
	m := make(map[string]aws.Credentials, len(creds))
	for _, c := range creds {
		m[c.AccessKeyID] = c
	}
	return m
}

// Set replaces the accepted credentials. It fails, and changes nothing,
// when creds do not pass Validate.
func (s *Store) Set(creds []aws.Credentials) error {
	if err := Validate(creds); err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.creds = credentialMap(creds)
	return nil
}

// Revoke stops accepting the credential with this access key ID.
func (s *Store) Revoke(accessKeyID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.creds[accessKeyID]; !ok {
		return fmt.Errorf("%w: %q", s.unknown, accessKeyID)
	}
	delete(s.creds, accessKeyID)
	return nil
}

// Expire makes the credential with this access key ID expire at now. The
// credential must have a session token: a long-term key does not expire.
func (s *Store) Expire(accessKeyID string, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.creds[accessKeyID]
	if !ok {
		return fmt.Errorf("%w: %q", s.unknown, accessKeyID)
	}
	if c.SessionToken == "" {
		return fmt.Errorf("%s: credential %q has no session token to expire", s.name, accessKeyID)
	}
	c.CanExpire = true
	c.Expires = now
	s.creds[accessKeyID] = c
	return nil
}

// All returns a copy of the accepted credentials, in no particular order.
func (s *Store) All() []aws.Credentials {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]aws.Credentials, 0, len(s.creds))
	for _, c := range s.creds {
		out = append(out, c)
	}
	return out
}

// Lookup returns the credential with this access key ID.
func (s *Store) Lookup(accessKeyID string) (aws.Credentials, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.creds[accessKeyID]
	return c, ok
}
