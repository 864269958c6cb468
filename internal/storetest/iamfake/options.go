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

package iamfake

import (
	"errors"
	"net/http"
)

// API is one of the two APIs a Server serves.
type API int

const (
	// ResourceManager is the Cloud Resource Manager API v3: the policies
	// of projects, folders and organizations.
	ResourceManager API = iota
	// Storage is the Cloud Storage JSON API v1: the policies of buckets.
	Storage
)

// String names the API.
func (a API) String() string {
	if a == Storage {
		return "storage"
	}
	return "cloudresourcemanager"
}

// The two methods, as a Call and a Record name them.
const (
	MethodGet = "getIamPolicy"
	MethodSet = "setIamPolicy"
)

// Call is a request the Server is about to serve, as its hooks see it. It
// passed authentication.
type Call struct {
	// API and Method say what is called.
	API    API
	Method string
	// Resource is the resource's name: projects/P, folders/F,
	// organizations/O or projects/_/buckets/B.
	Resource string
	// Request is the HTTP request; its body has been read and must not be
	// read again.
	Request *http.Request
}

// TokenCheck accepts or refuses an OAuth 2.0 access token
// (gcstoken.Server.Valid is one).
type TokenCheck func(token string) error

// FaultHook is consulted for every request that passed authentication,
// before the Server looks at the resource. A non-nil *Error is sent as the
// answer instead, and nothing is read or written, unless it is
// DropConnection (no answer, nothing read or written) or DropAnswer (the
// call is served, and its answer is not sent); nil lets the request
// through. It runs on the request's goroutine without any lock of the
// Server held, and must be safe for concurrent use.
type FaultHook func(c Call) *Error

// WriteHook is called for every setIamPolicy that is about to be judged:
// after its body was checked, before its etag is compared with the
// policy's. No lock is held, and the write counts as in flight until it
// is answered, so a test that blocks here keeps a write in flight and can
// make another one meet it. It must be safe for concurrent use.
type WriteHook func(c Call)

// OverlapHook is called for a setIamPolicy that arrives while another one
// for the same resource is in flight, before its own WriteHook. A test
// that holds the first write in its WriteHook waits for this call before
// it lets that write go on, so that the second write has provably met it
// (see Overlap). It must be safe for concurrent use.
type OverlapHook func(c Call)

// Option configures a Server built by New.
type Option func(*config)

type config struct {
	tokenCheck   TokenCheck
	faultHook    FaultHook
	writeHook    WriteHook
	overlapHook  OverlapHook
	maxBodyBytes int64
}

// DefaultMaxBodyBytes is the largest request body a Server reads unless
// WithMaxBodyBytes says otherwise. A policy is limited to "a few 10s of
// KB"; a larger body gets 400.
const DefaultMaxBodyBytes int64 = 1 << 20

// WithTokenCheck makes every request need "Authorization: Bearer <token>"
// for which check returns nil; otherwise the answer is 401 UNAUTHENTICATED
// with WWW-Authenticate. Default: any non-empty bearer token is accepted,
// and a request without one still gets 401.
func WithTokenCheck(check TokenCheck) Option { return func(c *config) { c.tokenCheck = check } }

// WithFaultHook installs a FaultHook. Default none. Server.SetFaultHook
// changes it at run time.
func WithFaultHook(h FaultHook) Option { return func(c *config) { c.faultHook = h } }

// WithWriteHook installs a WriteHook. Default none.
func WithWriteHook(h WriteHook) Option { return func(c *config) { c.writeHook = h } }

// WithOverlapHook installs an OverlapHook. Default none.
func WithOverlapHook(h OverlapHook) Option { return func(c *config) { c.overlapHook = h } }

// WithMaxBodyBytes sets the largest request body read. Default
// DefaultMaxBodyBytes.
func WithMaxBodyBytes(n int64) Option { return func(c *config) { c.maxBodyBytes = n } }

func (c *config) validate() error {
	if c.maxBodyBytes <= 0 {
		return errors.New("max body bytes must be positive")
	}
	return nil
}
