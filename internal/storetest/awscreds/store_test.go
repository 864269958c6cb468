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

package awscreds_test

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/listkeeper/listkeeper/internal/storetest/awscreds"
)

var (
	errUnknown = errors.New("somefake: unknown access key ID")
	longTerm   = aws.Credentials{AccessKeyID: "AKIDLONGTERM", SecretAccessKey: "secret"}
	session    = aws.Credentials{AccessKeyID: "ASIASESSION", SecretAccessKey: "secret", SessionToken: "token"}
)

// TestValidate: every credential needs a key ID and a secret, and key IDs
// are unique; every fault is reported, by its position.
func TestValidate(t *testing.T) {
	for _, tt := range []struct {
		name  string
		creds []aws.Credentials
		want  []string // substrings of the error; none: valid
	}{
		{"none", nil, nil},
		{"two distinct", []aws.Credentials{longTerm, session}, nil},
		{"no key ID", []aws.Credentials{{SecretAccessKey: "s"}}, []string{"credential 0: access key ID and secret must not be empty"}},
		{"no secret", []aws.Credentials{longTerm, {AccessKeyID: "K"}}, []string{"credential 1: access key ID and secret must not be empty"}},
		{"duplicate and empty", []aws.Credentials{longTerm, {}, longTerm}, []string{
			"credential 1: access key ID and secret must not be empty",
			`credential 2: duplicate access key ID "AKIDLONGTERM"`,
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := awscreds.Validate(tt.creds)
			if (err != nil) != (len(tt.want) > 0) {
				t.Fatalf("Validate: %v, want error %v", err, tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestStore: the run-time changes a fake offers, with the fake's name and
// sentinel in their errors, and a failed change leaving the store as it
// was.
func TestStore(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s := awscreds.New("somefake", errUnknown, []aws.Credentials{longTerm, session})

	if c, ok := s.Lookup(longTerm.AccessKeyID); !ok || c != longTerm {
		t.Fatalf("Lookup: %v %v, want %v", c, ok, longTerm)
	}
	if _, ok := s.Lookup("AKIDNONE"); ok {
		t.Fatal("Lookup found an unknown key")
	}

	if err := s.Expire(longTerm.AccessKeyID, at); err == nil || err.Error() != `somefake: credential "AKIDLONGTERM" has no session token to expire` {
		t.Fatalf("Expire of a long-term key: %v", err)
	}
	if err := s.Expire(session.AccessKeyID, at); err != nil {
		t.Fatal(err)
	}
	if c, _ := s.Lookup(session.AccessKeyID); !c.CanExpire || !c.Expires.Equal(at) {
		t.Fatalf("after Expire: CanExpire %v, Expires %v; want true, %v", c.CanExpire, c.Expires, at)
	}

	for name, err := range map[string]error{
		"Revoke": s.Revoke("AKIDNONE"),
		"Expire": s.Expire("AKIDNONE", at),
	} {
		if !errors.Is(err, errUnknown) || !strings.Contains(err.Error(), `"AKIDNONE"`) {
			t.Errorf("%s of an unknown key: %v, want the fake's sentinel and the key", name, err)
		}
	}
	if err := s.Revoke(longTerm.AccessKeyID); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Lookup(longTerm.AccessKeyID); ok {
		t.Fatal("Lookup found a revoked key")
	}

	if err := s.Set([]aws.Credentials{longTerm, longTerm}); err == nil || !strings.HasPrefix(err.Error(), "somefake: ") {
		t.Fatalf("Set of duplicates: %v, want a somefake: error", err)
	}
	if got := s.All(); len(got) != 1 || got[0].AccessKeyID != session.AccessKeyID {
		t.Fatalf("after a failed Set: %v, want only the session credential", got)
	}
	if err := s.Set([]aws.Credentials{longTerm}); err != nil {
		t.Fatal(err)
	}
	if got := s.All(); !slices.Equal(got, []aws.Credentials{longTerm}) {
		t.Fatalf("All after Set: %v, want %v", got, []aws.Credentials{longTerm})
	}
}

// TestStoreConcurrent: lookups while a test changes the credentials are
// safe (run with -race).
func TestStoreConcurrent(t *testing.T) {
	s := awscreds.New("somefake", errUnknown, []aws.Credentials{longTerm})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for range 100 {
				s.Lookup(longTerm.AccessKeyID)
				s.All()
			}
		}()
		go func() {
			defer wg.Done()
			for range 100 {
				_ = s.Set([]aws.Credentials{longTerm, session})
				_ = s.Revoke(session.AccessKeyID)
			}
		}()
	}
	wg.Wait()
}
