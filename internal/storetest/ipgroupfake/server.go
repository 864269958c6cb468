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
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"

	"github.com/listkeeper/listkeeper/internal/storetest/loopback"
)

// Server is an in-memory Azure Resource Manager serving IP Groups
// (Microsoft.Network/ipGroups) with their asynchronous operations, and the
// Microsoft Entra ID that issues its tokens. It is an http.Handler;
// StartTLS serves it on 127.0.0.1. One mutex guards its state; it is safe
// for concurrent use.
type Server struct {
	cfg config
	lb  *loopback.Server
	key *ecdsa.PrivateKey // signs the access tokens

	mu        sync.Mutex
	groups    map[groupKey]*group
	ops       map[string]*operation
	faultHook FaultHook
	throttle  throttle
	log       []Record
	writes    int64
}

// throttle is what Throttle set: how many more requests get a 429.
type throttle struct {
	left  int
	after time.Duration
}

var _ http.Handler = (*Server)(nil)

// New builds a Server without groups. It fails when an option is invalid.
func New(opts ...Option) (*Server, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("ipgroupfake: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("ipgroupfake: token signing key: %w", err)
	}
	s := &Server{
		cfg:       cfg,
		key:       key,
		groups:    map[groupKey]*group{},
		ops:       map[string]*operation{},
		faultHook: cfg.faultHook,
	}
	s.lb = loopback.New("ipgroupfake", s)
	return s, nil
}

// SubscriptionID returns the subscription the Server serves.
func (s *Server) SubscriptionID() string { return s.cfg.subscriptionID }

// SetFaultHook replaces the FaultHook; nil removes it.
func (s *Server) SetFaultHook(h FaultHook) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faultHook = h
}

// Throttle answers the next n requests to Resource Manager (not to the
// token endpoint) with 429 SubscriptionRequestsThrottled and Retry-After:
// retryAfter, in whole seconds rounded up, after they passed
// authentication; n <= 0 ends throttling.
func (s *Server) Throttle(n int, retryAfter time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.throttle = throttle{left: max(n, 0), after: retryAfter}
}

// takeThrottle reports whether this request is one Throttle meant.
func (s *Server) takeThrottle() *Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.throttle.left == 0 {
		return nil
	}
	s.throttle.left--
	return Throttled(s.throttle.after)
}

// answer is a successful answer: status, body and extra headers.
type answer struct {
	status int
	body   []byte
	header http.Header
	// code is the error code of an answer that is not ARM's (Entra ID's
	// OAuth errors), for the request log.
	code string
}

// ServeHTTP routes r to Resource Manager or to Entra ID, checks its token,
// throttling and the FaultHook, and serves it. The request is logged
// before it is answered, so a client that has its answer finds it in
// Requests and Stats.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c, e := parseTarget(r)
	rec := Record{Operation: c.Operation, Method: r.Method, Path: r.URL.Path, ResourceGroup: c.ResourceGroup, Group: c.Group}
	requestID := newUUID()
	var out answer
	if e == nil {
		out, e = s.serve(r, c, &rec)
	}
	switch {
	case e != nil && (e.fault == faultDropBefore || e.fault == faultDropAfter):
		rec.Dropped = true
	case e != nil:
		rec.Status, rec.Code = e.Status, e.Code
	default:
		rec.Status, rec.Code = out.status, out.code
	}
	s.mu.Lock()
	s.log = append(s.log, rec)
	s.mu.Unlock()

	switch {
	case rec.Dropped:
		loopback.HangUp(w)
	case e != nil:
		e.write(w, requestID)
	default:
		h := w.Header()
		for k, v := range out.header {
			h[k] = v
		}
		h.Set("Content-Type", "application/json; charset=utf-8")
		h.Set("Content-Length", strconv.Itoa(len(out.body)))
		h.Set("x-ms-request-id", requestID)
		w.WriteHeader(out.status)
		_, _ = w.Write(out.body)
	}
}

// serve checks and serves a routed request. A DropAnswer fault comes back
// after the request was served.
func (s *Server) serve(r *http.Request, c target, rec *Record) (answer, *Error) {
	body, e := s.readBody(r)
	if e != nil {
		return answer{}, e
	}
	entra := c.Operation == OpToken || c.Operation == OpOpenIDConfiguration
	if !entra {
		if c.subscription != s.cfg.subscriptionID {
			return answer{}, errSubscriptionNotFound(c.subscription)
		}
		if r.URL.Query().Get("api-version") == "" {
			return answer{}, errMissingAPIVersion()
		}
		if rec.ClientID, e = s.authenticate(r); e != nil {
			return answer{}, e
		}
		if e := s.takeThrottle(); e != nil {
			return answer{}, e
		}
	}
	s.mu.Lock()
	hook := s.faultHook
	s.mu.Unlock()
	var after *Error
	if hook != nil {
		if e := hook(c.Call(r)); e != nil {
			switch {
			case e.fault == faultDropAfter:
				after = e
			case e.fault == faultFailOperation && c.Operation == OpCreateOrUpdate:
				return s.createOrUpdate(r, c, body, e)
			default:
				return answer{}, e
			}
		}
	}
	var out answer
	switch c.Operation {
	case OpToken:
		out, e = s.token(r, c.tenant, body, rec)
	case OpOpenIDConfiguration:
		out, e = s.openIDConfiguration(r, c.tenant)
	case OpGet:
		out, e = s.get(c)
	case OpCreateOrUpdate:
		out, e = s.createOrUpdate(r, c, body, nil)
	case OpOperationStatus:
		out, e = s.operationStatus(c.operationID)
	}
	if after != nil {
		return answer{}, after
	}
	return out, e
}

// target is what a request calls, parsed from its method and path.
type target struct {
	Operation            string
	ResourceGroup, Group string
	subscription         string
	location             string
	operationID          string
	tenant               string
}

// Call is the target as a FaultHook sees it.
func (c target) Call(r *http.Request) Call {
	return Call{Operation: c.Operation, ResourceGroup: c.ResourceGroup, Group: c.Group, Request: r}
}

// parseTarget parses r's path: a group, an operation, or Entra ID's token
// endpoint and OpenID configuration. ARM's fixed segments are matched
// without regard to case, as ARM does.
func parseTarget(r *http.Request) (target, *Error) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	c := target{Operation: OpUnknown}
	is := func(i int, word string) bool { return i < len(parts) && strings.EqualFold(parts[i], word) }
	method := func(m string) *Error {
		if r.Method != m {
			return errNoRoute(http.StatusMethodNotAllowed)
		}
		return nil
	}
	switch {
	case len(parts) == 8 && is(0, "subscriptions") && is(2, "resourceGroups") && is(4, "providers") &&
		is(5, "Microsoft.Network") && is(6, "ipGroups") && parts[3] != "" && parts[7] != "":
		c.subscription, c.ResourceGroup, c.Group = parts[1], parts[3], parts[7]
		switch r.Method {
		case http.MethodGet:
			c.Operation = OpGet
		case http.MethodPut:
			c.Operation = OpCreateOrUpdate
		default:
			return c, errNoRoute(http.StatusMethodNotAllowed)
		}
		return c, nil
	case len(parts) == 8 && is(0, "subscriptions") && is(2, "providers") && is(3, "Microsoft.Network") &&
		is(4, "locations") && is(6, "nfvOperations"):
		c.Operation, c.subscription, c.location, c.operationID = OpOperationStatus, parts[1], parts[5], parts[7]
		return c, method(http.MethodGet)
	case len(parts) == 4 && parts[1] == "oauth2" && parts[2] == "v2.0" && parts[3] == "token":
		c.Operation, c.tenant = OpToken, parts[0]
		return c, method(http.MethodPost)
	case len(parts) == 4 && parts[1] == "v2.0" && parts[2] == ".well-known" && parts[3] == "openid-configuration":
		c.Operation, c.tenant = OpOpenIDConfiguration, parts[0]
		return c, method(http.MethodGet)
	}
	return c, errNoRoute(http.StatusNotFound)
}

func (s *Server) readBody(r *http.Request) ([]byte, *Error) {
	if r.Body == nil {
		return nil, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, s.cfg.maxBodyBytes+1))
	if err != nil {
		return nil, errInvalidRequestFormat("the request body could not be read")
	}
	if int64(len(body)) > s.cfg.maxBodyBytes {
		return nil, errTooLarge()
	}
	return body, nil
}

// newUUID returns a random (version 4) UUID, the form of ARM's request
// and operation IDs and of the network resource provider's etags.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// baseURL is the scheme and host r reached the Server at: the base of the
// operation URLs it hands out, so that they work however it is served.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// StartTLS serves the Server over HTTPS on 127.0.0.1, on a free port, with
// httptest's self-signed certificate; Client returns a client that trusts
// it. HTTPS is what azidentity and azcore need: MSAL takes only an https
// authority, and azcore sends a bearer token only over TLS. It panics when
// the Server is already started, or when it cannot listen.
func (s *Server) StartTLS() { s.lb.StartTLS() }

// Start serves the Server over plain HTTP on 127.0.0.1, for tests that
// call it with net/http. It panics as StartTLS does.
func (s *Server) Start() { s.lb.Start() }

// URL returns the base URL of the started Server
// ("https://127.0.0.1:port"), or "" before it is started. It is both the
// Resource Manager endpoint and the authority host.
func (s *Server) URL() string { return s.lb.URL() }

// Cloud returns the cloud configuration that points the Azure SDK at the
// started Server: its URL is the authority host of Microsoft Entra ID and
// the Resource Manager endpoint, with ARM's audience. Give it, with
// Client as the transport, to the credential and to the ARM client.
func (s *Server) Cloud() cloud.Configuration {
	return cloud.Configuration{
		ActiveDirectoryAuthorityHost: s.URL() + "/",
		Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
			cloud.ResourceManager: {Endpoint: s.URL(), Audience: "https://management.azure.com"},
		},
	}
}

// Client returns an HTTP client that trusts the started Server's
// certificate, or http.DefaultClient before it is started.
func (s *Server) Client() *http.Client { return s.lb.Client() }

// Certificate returns the certificate the Server serves under StartTLS,
// or nil before StartTLS.
func (s *Server) Certificate() *x509.Certificate { return s.lb.Certificate() }

// Close stops serving and waits for requests in flight. It is safe to call
// more than once, and without Start.
func (s *Server) Close() { s.lb.Close() }
