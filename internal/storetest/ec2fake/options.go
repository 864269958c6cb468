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
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/listkeeper/listkeeper/internal/storetest/awscreds"
)

// The fixed test key pair that New accepts unless WithCredentials says
// otherwise. Like the other fakes' keys, it is not shaped like a real AWS
// key (no AKIA prefix), so that secret scanners leave it alone; it opens
// nothing but this fake.
const (
	// TestAccessKeyID is the access key ID of the default credentials.
	TestAccessKeyID = "LISTKEEPEREC2TEST001"
	// TestSecretAccessKey is the secret access key of the default
	// credentials.
	TestSecretAccessKey = "listkeeper/ec2fake/test-secret/not-a-real-key"
)

// The protocol's names, and the service's own limits.
const (
	// DefaultRegion is the region a Server is in unless WithRegion says
	// otherwise: requests must be signed for it.
	DefaultRegion = "us-east-1"
	// DefaultAccountID is the owner ID of the lists and the account in
	// their ARNs.
	DefaultAccountID = "123456789012"
	// Service is the signing name of EC2, the only service a Server
	// accepts in a credential scope.
	Service = "ec2"
	// APIVersion is the Version every request must name: EC2's Query API
	// has had one version since 2016.
	APIVersion = "2016-11-15"
	// Namespace is the XML namespace of every successful answer.
	Namespace = "http://ec2.amazonaws.com/doc/" + APIVersion + "/"
	// ContentType is the media type of every request body (the Query
	// API's form encoding).
	ContentType = "application/x-www-form-urlencoded"
	// MaxEntriesLimit is the largest MaxEntries a list may have (the
	// managed prefix list quota, which cannot be raised).
	MaxEntriesLimit = 1000
	// MaxEntryChanges is the most entries one ModifyManagedPrefixList may
	// add and remove together, and the most one CreateManagedPrefixList
	// may bring.
	MaxEntryChanges = 100
	// MaxDescriptionLength is the longest description an entry may have.
	MaxDescriptionLength = 255
	// MaxResults is the largest page GetManagedPrefixListEntries and
	// DescribeManagedPrefixLists answer, and the page they answer when the
	// request names none.
	MaxResults = 100
	// MaxClockSkew is how far the X-Amz-Date of a request may be from the
	// Server's clock, either way, as AWS allows.
	MaxClockSkew = 15 * time.Minute
	// DefaultMaxBodyBytes is the largest request body accepted (1 MiB):
	// 100 entries with descriptions of 255 characters take under 64 KiB.
	DefaultMaxBodyBytes int64 = 1 << 20
	// DefaultSettleDelay is how long a list stays create-in-progress or
	// modify-in-progress unless WithSettleDelay says otherwise: no time at
	// all, so that a test that does not care about the states never meets
	// IncorrectState. AWS takes seconds; a test of a client's handling of
	// the states sets a delay and a clock.
	DefaultSettleDelay time.Duration = 0
)

// The actions a Server answers: the Action parameter of a request.
const (
	ActionDescribeManagedPrefixLists  = "DescribeManagedPrefixLists"
	ActionGetManagedPrefixListEntries = "GetManagedPrefixListEntries"
	ActionModifyManagedPrefixList     = "ModifyManagedPrefixList"
	ActionCreateManagedPrefixList     = "CreateManagedPrefixList"
)

// Address families and states, as the API spells them.
const (
	IPv4 = "IPv4"
	IPv6 = "IPv6"

	StateCreateInProgress = "create-in-progress"
	StateCreateComplete   = "create-complete"
	StateModifyInProgress = "modify-in-progress"
	StateModifyComplete   = "modify-complete"
)

// DefaultCredentials returns the key pair TestAccessKeyID and
// TestSecretAccessKey, without a session token.
func DefaultCredentials() aws.Credentials {
	return aws.Credentials{
		AccessKeyID:     TestAccessKeyID,
		SecretAccessKey: TestSecretAccessKey,
		Source:          "ec2fake",
	}
}

// FaultHook is consulted for every request that passed authentication and
// names a known action, before the action runs. A non-nil *Error is sent
// as the answer instead (and no list is touched), unless it is one of
// DropConnection or DropAnswer; nil lets the request through. action is
// the Action parameter (ActionModifyManagedPrefixList, ...); r's body can
// be read again. It runs on the request's goroutine, without any lock of
// the Server held, so it may call the Server's methods (ModifyEntries, to
// play another writer); it must be safe for concurrent use.
type FaultHook func(action string, r *http.Request) *Error

// Option configures a Server built by New.
type Option func(*config)

type config struct {
	creds        []aws.Credentials
	region       string
	accountID    string
	now          func() time.Time
	settleDelay  time.Duration
	maxBodyBytes int64
	faultHook    FaultHook
}

func defaultConfig() config {
	return config{
		creds:        []aws.Credentials{DefaultCredentials()},
		region:       DefaultRegion,
		accountID:    DefaultAccountID,
		now:          time.Now,
		settleDelay:  DefaultSettleDelay,
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
	if c.settleDelay < 0 {
		errs = append(errs, fmt.Errorf("settle delay must not be negative, got %s", c.settleDelay))
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
// by the Server's clock (then 400 RequestExpired).
// Server.SetCredentials changes them at run time.
func WithCredentials(creds ...aws.Credentials) Option {
	return func(c *config) { c.creds = append([]aws.Credentials(nil), creds...) }
}

// WithRegion sets the region requests must be signed for, which is also
// the region in the lists' ARNs. Default DefaultRegion.
func WithRegion(region string) Option {
	return func(c *config) { c.region = region }
}

// WithAccountID sets the owner ID of the lists. Default DefaultAccountID.
func WithAccountID(id string) Option {
	return func(c *config) { c.accountID = id }
}

// WithClock sets the Server's clock: it judges clock skew, session token
// expiry, and when a list in progress settles. Default time.Now.
func WithClock(now func() time.Time) Option {
	return func(c *config) { c.now = now }
}

// WithSettleDelay sets how long, by the Server's clock, a list stays
// create-in-progress after it was created and modify-in-progress after a
// change of its entries or of its MaxEntries, before it settles as
// create-complete or modify-complete. A modification that meets a list in
// progress gets IncorrectState. Default DefaultSettleDelay.
func WithSettleDelay(d time.Duration) Option {
	return func(c *config) { c.settleDelay = d }
}

// WithMaxBodyBytes sets the largest request body accepted; a larger one
// gets 413 RequestEntityTooLarge. Default DefaultMaxBodyBytes.
func WithMaxBodyBytes(n int64) Option {
	return func(c *config) { c.maxBodyBytes = n }
}

// WithFaultHook installs a FaultHook. Default none. Server.SetFaultHook
// changes it at run time.
func WithFaultHook(h FaultHook) Option {
	return func(c *config) { c.faultHook = h }
}
