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
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/listkeeper/listkeeper/internal/storetest/awscreds"
)

// The fixed test key pair that New accepts unless WithCredentials says
// otherwise. Like s3fake's, it is not shaped like a real AWS key (no AKIA
// prefix), so that secret scanners leave it alone; it opens nothing but
// this fake.
const (
	// TestAccessKeyID is the access key ID of the default credentials.
	TestAccessKeyID = "LISTKEEPERWAFTEST001"
	// TestSecretAccessKey is the secret access key of the default
	// credentials.
	TestSecretAccessKey = "listkeeper/wafv2fake/test-secret/not-a-real-key"
)

// The protocol's names, and the service's own limits.
const (
	// DefaultRegion is the region a Server is in unless WithRegion says
	// otherwise: requests must be signed for it, and only there may a set
	// have scope CLOUDFRONT.
	DefaultRegion = "us-east-1"
	// DefaultAccountID is the account ID in the ARNs of the sets.
	DefaultAccountID = "123456789012"
	// Service is the signing name of WAFv2, the only service a Server
	// accepts in a credential scope.
	Service = "wafv2"
	// TargetPrefix is the X-Amz-Target prefix of every operation: the
	// service's shape name and API version, AWSWAF_20190729.
	TargetPrefix = "AWSWAF_20190729."
	// ContentType is the media type of every request and answer body
	// (AWS JSON 1.1).
	ContentType = "application/x-amz-json-1.1"
	// MaxAddresses is the most addresses an IP set may hold (AWS WAF's
	// quota of addresses per IP set, which cannot be raised).
	MaxAddresses = 10_000
	// MaxClockSkew is how far the X-Amz-Date of a request may be from the
	// Server's clock, either way, as AWS allows.
	MaxClockSkew = 15 * time.Minute
	// DefaultMaxBodyBytes is the largest request body accepted (4 MiB):
	// 10,000 IPv6 CIDRs take well under 1 MiB.
	DefaultMaxBodyBytes int64 = 4 << 20
)

// The operations a Server answers: the X-Amz-Target after TargetPrefix.
const (
	OpGetIPSet    = "GetIPSet"
	OpUpdateIPSet = "UpdateIPSet"
	OpCreateIPSet = "CreateIPSet"
	OpListIPSets  = "ListIPSets"
)

// Scopes and IP address versions, as the API spells them.
const (
	ScopeRegional   = "REGIONAL"
	ScopeCloudFront = "CLOUDFRONT"
	IPv4            = "IPV4"
	IPv6            = "IPV6"
)

// DefaultCredentials returns the key pair TestAccessKeyID and
// TestSecretAccessKey, without a session token.
func DefaultCredentials() aws.Credentials {
	return aws.Credentials{
		AccessKeyID:     TestAccessKeyID,
		SecretAccessKey: TestSecretAccessKey,
		Source:          "wafv2fake",
	}
}

// FaultHook is consulted for every request that passed authentication and
// names a known operation, before the operation runs. A non-nil *Error is
// sent as the answer instead (and no set is touched), unless it is one of
// DropConnection or DropAnswer; nil lets the request through. op is the
// operation (OpGetIPSet, ...); r's body can be read again. It runs on the
// request's goroutine, without any lock of the Server held, and must be
// safe for concurrent use.
type FaultHook func(op string, r *http.Request) *Error

// UpdateHook is called for every UpdateIPSet while it holds its set's
// update lock, after its lock token matched and before the set changes. A
// test blocks in it to keep an update in flight, to make an overlap happen
// for certain. It must be safe for concurrent use.
type UpdateHook func(r *http.Request)

// OverlapHook is called for an UpdateIPSet that finds another update of
// the same set in flight (holding the set's update lock), before it waits
// for that update; once it gets the lock it is judged against the set as
// that update left it (WAFOptimisticLockException, when the first one
// committed). A test that holds the first update in its UpdateHook waits
// for this call before letting it go, so that the second update has
// provably met it. It must be safe for concurrent use.
type OverlapHook func(r *http.Request)

// Option configures a Server built by New.
type Option func(*config)

type config struct {
	creds        []aws.Credentials
	region       string
	accountID    string
	now          func() time.Time
	maxBodyBytes int64
	faultHook    FaultHook
	updateHook   UpdateHook
	overlapHook  OverlapHook
	maxAddresses int
}

func defaultConfig() config {
	return config{
		creds:        []aws.Credentials{DefaultCredentials()},
		region:       DefaultRegion,
		accountID:    DefaultAccountID,
		maxAddresses: MaxAddresses,
		now:          time.Now,
		maxBodyBytes: DefaultMaxBodyBytes,
	}
}

func (c *config) validate() error {
	var errs []error
	if c.region == "" {
		errs = append(errs, errors.New("region must not be empty"))
	}
	if c.accountID == "" {
		errs = append(errs, errors.New("account ID must not be empty"))
	}
	if c.now == nil {
		errs = append(errs, errors.New("clock must not be nil"))
	}
	if c.maxBodyBytes <= 0 {
		errs = append(errs, fmt.Errorf("max body bytes must be positive, got %d", c.maxBodyBytes))
	}
	if err := awscreds.Validate(c.creds); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// WithCredentials replaces the accepted credentials (default: only
// DefaultCredentials). A credential with a SessionToken is accepted only
// with that token, and when its CanExpire is set, only before its Expires
// by the Server's clock (then 400 ExpiredTokenException).
// Server.SetCredentials changes them at run time.
func WithCredentials(creds ...aws.Credentials) Option {
	return func(c *config) { c.creds = append([]aws.Credentials(nil), creds...) }
}

// WithRegion sets the region requests must be signed for. Default
// DefaultRegion.
func WithRegion(region string) Option {
	return func(c *config) { c.region = region }
}

// WithAccountID sets the account ID in the ARNs of the sets. Default
// DefaultAccountID.
func WithAccountID(id string) Option {
	return func(c *config) { c.accountID = id }
}

// WithClock sets the Server's clock: it judges clock skew and session
// token expiry. Default time.Now.
func WithClock(now func() time.Time) Option {
	return func(c *config) { c.now = now }
}

// WithMaxAddresses raises the most addresses a set may hold above AWS
// WAF's quota (MaxAddresses), so that a test or a benchmark can make the
// Server answer GetIPSet with a body of many megabytes, as a hostile or
// broken endpoint could. n <= 0 keeps MaxAddresses.
func WithMaxAddresses(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxAddresses = n
		}
	}
}

// WithMaxBodyBytes sets the largest request body accepted; a larger one
// gets 413 RequestEntityTooLargeException. Default DefaultMaxBodyBytes.
func WithMaxBodyBytes(n int64) Option {
	return func(c *config) { c.maxBodyBytes = n }
}

// WithFaultHook installs a FaultHook. Default none. Server.SetFaultHook
// changes it at run time.
func WithFaultHook(h FaultHook) Option {
	return func(c *config) { c.faultHook = h }
}

// WithUpdateHook installs an UpdateHook. Default none.
func WithUpdateHook(h UpdateHook) Option {
	return func(c *config) { c.updateHook = h }
}

// WithOverlapHook installs an OverlapHook. Default none.
func WithOverlapHook(h OverlapHook) Option {
	return func(c *config) { c.overlapHook = h }
}
