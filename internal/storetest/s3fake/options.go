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
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/listkeeper/listkeeper/internal/storetest/awscreds"
)

// The fixed test key pair that New accepts unless WithCredentials says
// otherwise. It is not shaped like a real AWS key (no AKIA prefix), so that
// secret scanners leave it alone; it opens nothing but this fake.
const (
	// TestAccessKeyID is the access key ID of the default credentials.
	TestAccessKeyID = "LISTKEEPERTESTKEY001"
	// TestSecretAccessKey is the secret access key of the default
	// credentials.
	TestSecretAccessKey = "listkeeper/s3fake/test-secret/not-a-real-key"
)

// Defaults and S3's own limits.
const (
	// DefaultRegion is the region a Server is in unless WithRegion says
	// otherwise: requests must be signed for it.
	DefaultRegion = "us-east-1"
	// Service is the signing name of S3, the only service a Server accepts
	// in a credential scope.
	Service = "s3"
	// MaxClockSkew is how far the X-Amz-Date of a header-signed request may
	// be from the Server's clock, either way, as S3 allows.
	MaxClockSkew = 15 * time.Minute
	// MaxPresignExpiry is the longest X-Amz-Expires S3 accepts: a week.
	MaxPresignExpiry = 7 * 24 * time.Hour
	// DefaultMaxBodyBytes is the largest request body accepted (16 MiB);
	// lists are small, and the whole body is held in memory to check its
	// hash.
	DefaultMaxBodyBytes int64 = 16 << 20
)

// DefaultCredentials returns the key pair TestAccessKeyID and
// TestSecretAccessKey, without a session token.
func DefaultCredentials() aws.Credentials {
	return aws.Credentials{
		AccessKeyID:     TestAccessKeyID,
		SecretAccessKey: TestSecretAccessKey,
		Source:          "s3fake",
	}
}

// FaultHook is consulted for every request that passed authentication,
// before its preconditions are checked and before the store sees it. A
// non-nil *Error is sent as the answer instead (and the store is not
// touched); nil lets the request through. It runs on the request's
// goroutine, without any lock of the Server held, and must be safe for
// concurrent use.
type FaultHook func(r *http.Request) *Error

// WriteHook is called for every object write (PUT, POST or DELETE of a
// key) while the write holds its key's lock: for a conditional PUT, after
// its precondition held and before the store writes. A test blocks in it to
// keep a write in flight, to make an overlap happen for certain. It must be
// safe for concurrent use.
type WriteHook func(r *http.Request)

// OverlapHook is called for an object write that finds another write to
// the same key in flight (holding the key's lock), before it waits for that
// write or, under WithConflictOnOverlap(true), is answered 409. A test that
// holds the first write in its WriteHook waits for this call before letting
// it go, so that the second write has provably met it. It must be safe for
// concurrent use.
type OverlapHook func(r *http.Request)

// Option configures a Server built by New.
type Option func(*config)

type config struct {
	creds             []aws.Credentials
	region            string
	buckets           []string
	now               func() time.Time
	maxBodyBytes      int64
	conflictOnOverlap bool
	faultHook         FaultHook
	writeHook         WriteHook
	overlapHook       OverlapHook
}

func defaultConfig() config {
	return config{
		creds:             []aws.Credentials{DefaultCredentials()},
		region:            DefaultRegion,
		now:               time.Now,
		maxBodyBytes:      DefaultMaxBodyBytes,
		conflictOnOverlap: true,
	}
}

func (c *config) validate() error {
	var errs []error
	if c.region == "" {
		errs = append(errs, errors.New("region must not be empty"))
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
// by the Server's clock (then 400 ExpiredToken). Server.SetCredentials,
// RevokeAccessKey and ExpireSessionToken change them at run time.
func WithCredentials(creds ...aws.Credentials) Option {
	return func(c *config) { c.creds = append([]aws.Credentials(nil), creds...) }
}

// WithRegion sets the region requests must be signed for. Default
// DefaultRegion.
func WithRegion(region string) Option {
	return func(c *config) { c.region = region }
}

// WithBuckets creates these (empty) buckets when the Server is built.
// Default none; an authenticated CreateBucket request makes more.
func WithBuckets(names ...string) Option {
	return func(c *config) { c.buckets = append(c.buckets, names...) }
}

// WithClock sets the Server's clock: it judges clock skew, presigned URL
// expiry and session token expiry, and stamps Last-Modified. Default
// time.Now.
func WithClock(now func() time.Time) Option {
	return func(c *config) { c.now = now }
}

// WithMaxBodyBytes sets the largest request body accepted; a larger one
// gets 400 EntityTooLarge and is not stored. Default DefaultMaxBodyBytes.
func WithMaxBodyBytes(n int64) Option {
	return func(c *config) { c.maxBodyBytes = n }
}

// WithConflictOnOverlap sets what a conditional PUT (If-Match or
// If-None-Match) does when another write to the same key is in flight.
// Default true: it gets 409 ConditionalRequestConflict at once, as S3
// documents. False: it waits for the other write to finish and is then
// judged against the key as that write left it (typically 412).
func WithConflictOnOverlap(conflict bool) Option {
	return func(c *config) { c.conflictOnOverlap = conflict }
}

// WithFaultHook installs a FaultHook. Default none. Server.SetFaultHook
// changes it at run time.
func WithFaultHook(h FaultHook) Option {
	return func(c *config) { c.faultHook = h }
}

// WithWriteHook installs a WriteHook. Default none.
func WithWriteHook(h WriteHook) Option {
	return func(c *config) { c.writeHook = h }
}

// WithOverlapHook installs an OverlapHook. Default none.
func WithOverlapHook(h OverlapHook) Option {
	return func(c *config) { c.overlapHook = h }
}
