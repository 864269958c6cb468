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

package ipgroupfake

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"time"
)

// The service's names and limits.
const (
	// DefaultSubscriptionID is the subscription a Server serves unless
	// WithSubscriptionID says otherwise; a request for another one gets
	// 404 SubscriptionNotFound.
	DefaultSubscriptionID = "00000000-0000-4000-8000-00000000000a"
	// MaxAddresses is Azure Firewall's limit of IP addresses or prefixes
	// per IP Group (5,000), the default of WithMaxAddresses.
	MaxAddresses = 5000
	// ResourceType is the ARM type of the resource.
	ResourceType = "Microsoft.Network/ipGroups"
	// DefaultMaxBodyBytes is the largest request body accepted (4 MiB):
	// 5,000 ranges take well under 256 KiB.
	DefaultMaxBodyBytes int64 = 4 << 20
	// DefaultTokenLifetime is how long an access token the Server issues
	// is valid.
	DefaultTokenLifetime = time.Hour
)

// The provisioning states a group shows.
const (
	StateSucceeded = "Succeeded"
	StateUpdating  = "Updating"
	StateFailed    = "Failed"
)

// The operations, as Record and Stats name them: the operation IDs of the
// REST API's specification for the group, and the token endpoint's.
const (
	OpGet            = "IpGroups_Get"
	OpCreateOrUpdate = "IpGroups_CreateOrUpdate"
	// OpOperationStatus is a poll of an Azure-AsyncOperation URL.
	OpOperationStatus = "AsyncOperation_Get"
	// OpToken is a token request to the Server's Microsoft Entra ID.
	OpToken = "Token"
	// OpOpenIDConfiguration is a read of the tenant's OpenID configuration.
	OpOpenIDConfiguration = "OpenIDConfiguration"
	// OpUnknown is any other request.
	OpUnknown = "Unknown"
)

// BusyAnswer is how the Server refuses a write to a group whose previous
// operation is still in progress. Azure answers both ways (see the
// package doc).
type BusyAnswer int

const (
	// BusyConflict is 409 AnotherOperationInProgress, naming the running
	// operation's URL. It is the default.
	BusyConflict BusyAnswer = iota
	// BusyRetryable is 429 RetryableError, with a
	// RetryableErrorDueToAnotherOperation detail and Retry-After: 1.
	BusyRetryable
)

// Call is a request the Server is about to serve, as a FaultHook sees it.
// It passed authentication (token requests have none).
type Call struct {
	// Operation is what is called: OpGet, OpCreateOrUpdate,
	// OpOperationStatus, OpToken or OpOpenIDConfiguration.
	Operation string
	// ResourceGroup and Group name the group, for OpGet and
	// OpCreateOrUpdate.
	ResourceGroup, Group string
	// Request is the HTTP request; its body has been read and must not be
	// read again.
	Request *http.Request
}

// FaultHook is consulted for every request that passed authentication,
// before it is served. A non-nil *Error is sent as the answer instead, and
// nothing is read or written, unless it is DropConnection (no answer,
// nothing served), DropAnswer (served, and the answer not sent) or, for a
// CreateOrUpdate, FailOperation (served, and its operation fails); nil
// lets the request through. It runs on the request's goroutine without any
// lock of the Server held, and must be safe for concurrent use.
type FaultHook func(c Call) *Error

// WriteHook is called for every CreateOrUpdate that passed authentication,
// the FaultHook and its body's checks, before its preconditions are
// judged; no lock is held, so it may call the Server's methods, such as
// SetAddresses to play a writer that got there first. It must be safe for
// concurrent use.
type WriteHook func(resourceGroup, group string, r *http.Request)

// ServicePrincipal is an application registration the Server's Microsoft
// Entra ID knows: a client credentials token request with this tenant,
// client ID and secret gets a token.
type ServicePrincipal struct {
	TenantID     string
	ClientID     string
	ClientSecret string
}

// The service principal a Server accepts unless WithServicePrincipals
// says otherwise. The secret opens nothing but this fake.
const (
	TestTenantID     = "00000000-0000-4000-8000-0000000000e1"
	TestClientID     = "00000000-0000-4000-8000-0000000000c1"
	TestClientSecret = "listkeeper-ipgroupfake-test-secret-not-real"
)

// DefaultServicePrincipal returns TestTenantID, TestClientID and
// TestClientSecret.
func DefaultServicePrincipal() ServicePrincipal {
	return ServicePrincipal{TenantID: TestTenantID, ClientID: TestClientID, ClientSecret: TestClientSecret}
}

// Option configures a Server built by New.
type Option func(*config)

type config struct {
	subscriptionID string
	principals     []ServicePrincipal
	now            func() time.Time
	maxAddresses   int
	maxBodyBytes   int64
	tokenLifetime  time.Duration
	operationDelay time.Duration
	pollAfter      time.Duration
	busy           BusyAnswer
	refuseEmpty    bool
	etagOnDone     bool
	faultHook      FaultHook
	writeHook      WriteHook
}

func defaultConfig() config {
	return config{
		subscriptionID: DefaultSubscriptionID,
		principals:     []ServicePrincipal{DefaultServicePrincipal()},
		now:            time.Now,
		maxAddresses:   MaxAddresses,
		maxBodyBytes:   DefaultMaxBodyBytes,
		tokenLifetime:  DefaultTokenLifetime,
	}
}

// idPattern is what azidentity accepts as a tenant ID, and what the
// Server accepts as a subscription or client ID.
var idPattern = regexp.MustCompile(`^[0-9A-Za-z.-]+$`)

func (c *config) validate() error {
	var errs []error
	if !idPattern.MatchString(c.subscriptionID) {
		errs = append(errs, fmt.Errorf("subscription ID %q is not an ID", c.subscriptionID))
	}
	if c.now == nil {
		errs = append(errs, errors.New("clock must not be nil"))
	}
	if c.maxBodyBytes <= 0 {
		errs = append(errs, fmt.Errorf("max body bytes must be positive, got %d", c.maxBodyBytes))
	}
	if c.tokenLifetime <= 0 {
		errs = append(errs, fmt.Errorf("token lifetime must be positive, got %s", c.tokenLifetime))
	}
	if c.operationDelay < 0 || c.pollAfter < 0 {
		errs = append(errs, errors.New("operation delay and poll interval must not be negative"))
	}
	if c.busy != BusyConflict && c.busy != BusyRetryable {
		errs = append(errs, fmt.Errorf("unknown busy answer %d", c.busy))
	}
	if len(c.principals) == 0 {
		errs = append(errs, errors.New("at least one service principal is needed"))
	}
	for _, p := range c.principals {
		if !idPattern.MatchString(p.TenantID) || !idPattern.MatchString(p.ClientID) || p.ClientSecret == "" {
			errs = append(errs, fmt.Errorf("service principal %q of tenant %q needs IDs and a secret", p.ClientID, p.TenantID))
		}
	}
	return errors.Join(errs...)
}

// WithSubscriptionID sets the subscription the Server serves. Default
// DefaultSubscriptionID.
func WithSubscriptionID(id string) Option {
	return func(c *config) { c.subscriptionID = id }
}

// WithServicePrincipals replaces the service principals the Server's
// token endpoint knows (default: only DefaultServicePrincipal).
func WithServicePrincipals(ps ...ServicePrincipal) Option {
	return func(c *config) { c.principals = append([]ServicePrincipal(nil), ps...) }
}

// WithClock sets the Server's clock: it judges token expiry and when an
// operation is done. Default time.Now.
func WithClock(now func() time.Time) Option {
	return func(c *config) { c.now = now }
}

// WithMaxAddresses sets the most addresses, prefixes and ranges a group
// may hold. Default MaxAddresses; n <= 0 keeps it.
func WithMaxAddresses(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxAddresses = n
		}
	}
}

// WithMaxBodyBytes sets the largest request body accepted; a larger one
// gets 413. Default DefaultMaxBodyBytes.
func WithMaxBodyBytes(n int64) Option {
	return func(c *config) { c.maxBodyBytes = n }
}

// WithTokenLifetime sets how long the tokens the Server issues are valid.
// Default DefaultTokenLifetime.
func WithTokenLifetime(d time.Duration) Option {
	return func(c *config) { c.tokenLifetime = d }
}

// WithOperationDelay sets how long, by the Server's clock, the operation
// of an accepted write stays InProgress (and its group Updating, and
// closed to other writes). Default 0: the first poll finds it done.
func WithOperationDelay(d time.Duration) Option {
	return func(c *config) { c.operationDelay = d }
}

// WithPollRetryAfter makes the answer to a write, and each InProgress
// poll, carry Retry-After: d in whole seconds, rounded up, as Azure sends
// (10 s was seen); azcore's poller waits that long instead of its own
// frequency. Default 0: no header, so tests poll at their own pace.
func WithPollRetryAfter(d time.Duration) Option {
	return func(c *config) { c.pollAfter = d }
}

// WithBusyAnswer sets how a write to a group with an operation in progress
// is refused. Default BusyConflict.
func WithBusyAnswer(b BusyAnswer) Option {
	return func(c *config) { c.busy = b }
}

// WithEmptyGroupsRefused makes a write without addresses a 400
// IPGroupsIPAddressCountZero, as some regions answer. Default: an empty
// group is accepted, as other regions do.
func WithEmptyGroupsRefused() Option {
	return func(c *config) { c.refuseEmpty = true }
}

// WithNewEtagOnCompletion gives a group a new etag also when its
// operation ends, not only when a write is accepted, so that the etag a
// write's answer showed is stale once the operation is done. Default off.
func WithNewEtagOnCompletion() Option {
	return func(c *config) { c.etagOnDone = true }
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
