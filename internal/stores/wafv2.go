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

package stores

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/wafv2"
	"github.com/aws/aws-sdk-go-v2/service/wafv2/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/netfence"
)

// WAFv2Backend returns the backend of a list kept in the AWS WAF IP set s, signed with auth's credentials
// (a Secret, or within policy the operator's own identity), and a fingerprint of those credentials
// (so a rotated Secret yields a new client). allowInsecureHTTP permits an http endpoint.
//
// Requests go to s.Endpoint when it is set, else to the public endpoint of
// s.Region, and are signed for s.Region and the service "wafv2":
// auth.Region and auth.Service, which name an object store's region and
// signing name, are not used. Without auth.SecretRef the operator's own
// identity signs, only when policy allows it (Policy.Ambient) and the
// endpoint is AWS WAF's own over https (wafv2.<region>.amazonaws.com,
// wafv2-fips.<region>...) or a host of Policy.AmbientHosts; otherwise
// ErrAmbientNotAllowed, before any credential is loaded. Every request is
// checked again before it leaves.
//
// A spec that cannot work (no auth, a scope or endpoint that is not
// valid, an http endpoint without allowInsecureHTTP, a Secret without its
// keys) is an ErrSpec error; a Secret that cannot be read is SecretFunc's
// error. The backend's own behaviour is described on wafv2Backend.
func WAFv2Backend(ctx context.Context, s *v1alpha1.WAFv2IPSet, auth *v1alpha1.AWSAuth, secret SecretFunc, policy Policy, allowInsecureHTTP bool) (etagclient.BackendFactory, string, error) {
	if s == nil {
		return nil, "", fmt.Errorf("%w: spec.wafv2 is not set", ErrSpec)
	}
	if auth == nil {
		return nil, "", fmt.Errorf("%w: spec.wafv2 needs spec.auth.aws", ErrSpec)
	}
	set, err := wafv2SetOf(s)
	if err != nil {
		return nil, "", err
	}
	base, rawURL, err := wafv2BaseEndpoint(s, allowInsecureHTTP)
	if err != nil {
		return nil, "", err
	}
	id, err := awsCredentials(ctx, auth.SecretRef, awsTarget{
		region: s.Region, service: wafv2SigningName, rawURL: rawURL,
		endpoint: wafv2Endpoint(s.Region), endpoints: fmt.Sprintf("AWS WAF's endpoints of region %q over https", s.Region),
	}, secret, policy)
	if err != nil {
		return nil, "", err
	}
	factory := func(env etagclient.BackendEnv) (etagclient.Backend, error) {
		if env.HTTPClient == nil {
			return nil, errors.New("wafv2 backend: the engine lent no HTTP client")
		}
		return newWAFv2Backend(env, set, s.Region, base, id), nil
	}
	return factory, id.fingerprint, nil
}

// wafv2SigningName is the service name WAFv2 requests are signed for.
const wafv2SigningName = "wafv2"

// wafv2Set names an IP set as every WAFv2 call does.
type wafv2Set struct {
	name, id string
	scope    types.Scope
}

// wafv2SetOf checks the name of the set in s (the CRD's rules, again: a
// spec that bypassed them must not reach the API).
func wafv2SetOf(s *v1alpha1.WAFv2IPSet) (wafv2Set, error) {
	scope := types.Scope(s.Scope)
	switch {
	case s.Name == "" || s.ID == "":
		return wafv2Set{}, fmt.Errorf("%w: spec.wafv2 needs the IP set's name and id", ErrSpec)
	case scope != types.ScopeRegional && scope != types.ScopeCloudfront:
		return wafv2Set{}, fmt.Errorf("%w: spec.wafv2.scope must be REGIONAL or CLOUDFRONT", ErrSpec)
	case scope == types.ScopeCloudfront && s.Region != "us-east-1":
		return wafv2Set{}, fmt.Errorf("%w: an IP set of scope CLOUDFRONT lives in region us-east-1", ErrSpec)
	case !awsRegion.MatchString(s.Region):
		return wafv2Set{}, fmt.Errorf("%w: spec.wafv2.region is not an AWS region", ErrSpec)
	}
	return wafv2Set{name: s.Name, id: s.ID, scope: scope}, nil
}

// wafv2BaseEndpoint returns the SDK's BaseEndpoint for s ("" for the
// region's public endpoint, which the SDK resolves) and the URL that the
// ambient policy judges: the endpoint, or the public one the SDK will use.
// An endpoint must be an absolute http or https URL without user info,
// query or fragment (an SDK endpoint is a base URL, and what is in those
// parts would end up in errors), and https unless allowInsecureHTTP.
func wafv2BaseEndpoint(s *v1alpha1.WAFv2IPSet, allowInsecureHTTP bool) (base, rawURL string, err error) {
	if s.Endpoint == "" {
		suffix := ".amazonaws.com"
		if strings.HasPrefix(s.Region, "cn-") {
			suffix = ".amazonaws.com.cn"
		}
		return "", "https://wafv2." + s.Region + suffix, nil
	}
	u, perr := url.Parse(s.Endpoint)
	switch {
	case perr != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https"):
		return "", "", fmt.Errorf("%w: spec.wafv2.endpoint must be an absolute http or https URL", ErrSpec)
	case u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return "", "", fmt.Errorf("%w: spec.wafv2.endpoint must have no user info, query or fragment", ErrSpec)
	case u.Scheme == "http" && !allowInsecureHTTP:
		return "", "", fmt.Errorf("%w: spec.wafv2.endpoint is plain http, which would carry signed requests in clear text: use https, or set spec.allowInsecureHTTP for a test or loopback server", ErrSpec)
	}
	return s.Endpoint, s.Endpoint, nil
}

// newWAFv2Backend builds the SDK client of one backend: it sends through
// the engine's HTTP client (timeouts, TLS, fence, observer), wrapped so
// that an answer is read only up to env.MaxBodyBytes and, for the
// operator's own identity, every request passes the ambient check first.
func newWAFv2Backend(env etagclient.BackendEnv, set wafv2Set, region, base string, id awsIdentity) *wafv2Backend {
	hc := *env.HTTPClient
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	hc.Transport = &wafv2Transport{next: next, maxBody: env.MaxBodyBytes, maxItems: env.MaxItems, check: id.check}
	attempts := max(env.TransportRetries, 0) + 1
	cfg := aws.Config{
		Region:           region,
		Credentials:      &wafv2Credentials{next: id.provider},
		HTTPClient:       &hc,
		RetryMaxAttempts: attempts,
		Retryer:          func() aws.Retryer { return newWAFv2Retryer(attempts) },
		// The chain's calls (STS, Pod Identity) end with the request
		// that wanted the credentials (bindToSigningRequest).
		APIOptions: []func(*middleware.Stack) error{markSigningContext},
	}
	client := wafv2.NewFromConfig(cfg, func(o *wafv2.Options) {
		if base != "" {
			o.BaseEndpoint = aws.String(base)
		}
	})
	return &wafv2Backend{client: client, hc: &hc, set: set, maxItems: env.MaxItems}
}

// markSigningContext is a middleware of the WAFv2 client: it marks each
// operation's context as the one a credential fetch must end with, as the
// S3 signer does for its requests (withSigningContext).
func markSigningContext(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("ListkeeperSigningContext",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			return next.HandleInitialize(withSigningContext(ctx), in)
		}), middleware.Before)
}

// wafv2Credentials fetches the credentials of a WAFv2 client and turns a
// failed fetch into fixed words (credentialError): the SDK would put the
// credential endpoint's own message into the operation's error.
type wafv2Credentials struct{ next aws.CredentialsProvider }

// errCredentials marks an error of a credential fetch.
var errCredentials = errors.New("aws credentials")

// Retrieve implements aws.CredentialsProvider.
func (c *wafv2Credentials) Retrieve(ctx context.Context) (aws.Credentials, error) {
	creds, err := c.next.Retrieve(ctx)
	if err != nil {
		bound := ctx
		if b, ok := signingContext(ctx); ok {
			bound = b
		}
		return aws.Credentials{}, &wafv2LocalError{fmt.Errorf("%w: %w", errCredentials, signError(bound, err))}
	}
	return creds, nil
}

// wafv2Transport is the WAFv2 client's hold on the engine's HTTP client.
type wafv2Transport struct {
	next    http.RoundTripper
	maxBody int64
	// maxItems is the item limit, checked on a GetIPSet answer before the
	// SDK decodes it.
	maxItems int
	// check refuses a request to a host the operator's identity may not
	// go to; nil for a Secret's keys.
	check func(*url.URL) error
}

// RoundTrip implements http.RoundTripper.
func (t *wafv2Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.check != nil {
		if err := t.check(req.URL); err != nil {
			if req.Body != nil {
				_ = req.Body.Close()
			}
			return nil, &wafv2LocalError{err}
		}
	}
	if req.Body != nil && req.Body != http.NoBody {
		// A RoundTripper must not change the request it was given.
		req = req.Clone(req.Context())
		req.Body = readOnlyBody{req.Body}
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	readAnswer(resp, t.maxBody, errWAFv2TooLarge, t.checkItems)
	return resp, nil
}

// wafv2AddressesPointer leads to the addresses in a GetIPSet answer.
var wafv2AddressesPointer = etagclient.Pointer{"IPSet", "Addresses"}

// checkItems refuses a GetIPSet answer with more addresses than the item
// limit before the SDK decodes it: the SDK decodes an answer into generic
// values and then into its types, at about ten times its size, and the
// limit bounds what a read costs.
func (t *wafv2Transport) checkItems(raw []byte) error {
	if t.maxItems <= 0 {
		return nil
	}
	if err := etagclient.CheckItemCount(raw, wafv2AddressesPointer, t.maxItems); err != nil {
		return fmt.Errorf("%w: the AWS WAF answer holds more addresses than the limit", errWAFv2TooManyItems)
	}
	return nil
}

// readOnlyBody is the body of an SDK request with nothing but Read and
// Close. The SDK closes a request's body as soon as the answer arrived,
// and its body then answers WriteTo with io.EOF as an error; net/http's
// writer, which reads the body once more after the Content-Length bytes
// to see that no more come (with io.Copy, which prefers WriteTo), may do
// that after the answer arrived, takes the error for a failed write, and
// closes the connection under the answer being read: a GetIPSet that WAF
// answered would fail as an answer that could not be read. Once the body
// is closed, Read answers io.EOF, the end, which io.Copy takes for no
// error.
type readOnlyBody struct{ io.ReadCloser }

// CloseIdleConnections closes the idle connections of the transport below.
func (t *wafv2Transport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// ReadCost implements etagclient.ReadCoster: the SDK decodes a whole
// answer into generic values and then into its types.
func (b *wafv2Backend) ReadCost() int64 { return etagclient.SDKReadCostFactor }

// errWAFv2TooManyItems ends the reading of an AWS WAF answer that holds
// more addresses than the item limit.
var errWAFv2TooManyItems = fmt.Errorf("%w: AWS WAF IP set", etagclient.ErrTooManyItems)

// errWAFv2TooLarge ends the reading of an AWS WAF answer longer than the
// body limit.
var errWAFv2TooLarge = fmt.Errorf("%w: the AWS WAF answer exceeds the size limit", etagclient.ErrTooLarge)

// WAFv2 retry waits: the bounds of the backoff between two attempts of one
// call (the engine's defaults for its own transport retries). Tests
// shorten them (export_test.go).
var (
	wafv2RetryWaitMin = etagclient.DefaultTransportWaitMin
	wafv2RetryWaitMax = etagclient.DefaultTransportWaitMax
)

// newWAFv2Retryer returns the SDK's standard retryer with the engine's
// bounds: attempts tries in all, a capped exponential backoff with jitter,
// WAFUnavailableEntityException retried like throttling (WAF answers it
// while a change propagates, and it passes), and never a request the
// engine's fence or the ambient check refused (the SDK takes any error of
// the HTTP client for a connection error it may retry).
func newWAFv2Retryer(attempts int) aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = attempts
		o.Backoff = retry.BackoffDelayerFunc(wafv2Backoff)
		o.Retryables = append([]retry.IsErrorRetryable{retry.IsErrorRetryableFunc(refusedBeforeSending)}, o.Retryables...)
		o.Retryables = append(o.Retryables, retry.RetryableErrorCode{Codes: map[string]struct{}{wafv2UnavailableEntity: {}}})
		o.Throttles = append(o.Throttles, retry.ThrottleErrorCode{Codes: map[string]struct{}{wafv2UnavailableEntity: {}}})
	})
}

const wafv2UnavailableEntity = "WAFUnavailableEntityException"

// refusedBeforeSending says that a request the fence, the dial fence or
// the ambient check refused is not retried, and leaves every other error to the next check.
func refusedBeforeSending(err error) aws.Ternary {
	if errors.Is(err, etagclient.ErrFenced) || errors.Is(err, ErrAmbientNotAllowed) || errors.Is(err, errCredentials) ||
		errors.Is(err, netfence.ErrNotAllowed) {
		return aws.FalseTernary
	}
	return aws.UnknownTernary
}

// wafv2Backoff waits between half and all of wafv2RetryWaitMin doubled
// for each attempt made, at most wafv2RetryWaitMax.
func wafv2Backoff(attempt int, _ error) (time.Duration, error) {
	d := wafv2RetryWaitMin
	for i := 1; i < attempt && d < wafv2RetryWaitMax; i++ {
		d *= 2
	}
	d = min(d, wafv2RetryWaitMax)
	if d <= 0 {
		return 0, nil
	}
	half := d / 2
	return half + rand.N(d-half+1), nil
}

// WAFv2Document returns the identity of the IP set s names: its region,
// scope and ID, whatever endpoint reaches it (the region's own, its FIPS or
// dual-stack endpoint, a VPC endpoint: any host of AWS's). An endpoint
// that is not AWS's (a test server, a proxy) is another service, whose
// canonical scheme, host and port join the identity.
func WAFv2Document(s *v1alpha1.WAFv2IPSet) string {
	doc := "wafv2:" + strings.ToLower(s.Region) + "/" + strings.ToUpper(string(s.Scope)) + "/" + strings.ToLower(s.ID)
	return doc + foreignEndpoint(s.Endpoint, awsOwnHost)
}

// foreignEndpoint returns "@" and the canonical scheme, host and port of
// endpoint (endpointOf) when it names a host that own does not recognise
// as the provider's, else "" (no endpoint, or the provider's own).
func foreignEndpoint(endpoint string, own func(host string) bool) string {
	if endpoint == "" {
		return ""
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return "@" + endpoint
	}
	if own(normalHost(u.Hostname())) {
		return ""
	}
	return "@" + endpointOf(u)
}
