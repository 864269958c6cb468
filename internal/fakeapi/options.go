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

package fakeapi

import (
	"errors"
	"fmt"
	"time"
)

// Defaults used by New when the corresponding option is not given.
const (
	// DefaultMaxBodyBytes is the largest PUT body accepted (64 MiB).
	DefaultMaxBodyBytes int64 = 64 << 20
	// DefaultRetryAfter is the Retry-After sent with an injected 429 or 503
	// when neither the Fault nor the Faults say otherwise.
	DefaultRetryAfter = time.Second
	// DefaultHoldWrites is how long FaultHoldWrite holds a write when
	// neither the Fault nor the Faults say otherwise: long enough for
	// other writers to commit, and for a client's request timeout to
	// pass, before the held write is evaluated.
	DefaultHoldWrites = 8 * time.Second
	// DefaultWeakWindow is how long after a write ProfileWebDAV serves a
	// document's ETag weak: Apache's one second.
	DefaultWeakWindow = time.Second
	// DefaultSeed seeds the fault and latency random source, so that a
	// server built without WithSeed is reproducible too.
	DefaultSeed int64 = 1
)

// Option configures a Server built by New.
type Option func(*config)

// config is the construction-time configuration. The fields that can change
// at run time (latency, faults, hook) are copied into the Server and guarded
// by its mutex from then on.
type config struct {
	requireIfMatch bool
	maxBodyBytes   int64
	token          string
	tokenCheck     TokenCheck
	latencyBase    time.Duration
	latencyJitter  time.Duration
	faults         Faults
	hook           FaultHook
	seed           int64
	history        bool
	stateFile      string
	etagMode       ETagMode
	echoBody       bool
	profile        Profile
	now            func() time.Time
	weakWindow     time.Duration
}

func defaultConfig() config {
	return config{
		requireIfMatch: true,
		maxBodyBytes:   DefaultMaxBodyBytes,
		seed:           DefaultSeed,
		etagMode:       ETagStrong,
		echoBody:       true,
		profile:        ProfileStrict,
		now:            time.Now,
		weakWindow:     DefaultWeakWindow,
	}
}

func (c *config) validate() error {
	var errs []error
	if c.maxBodyBytes <= 0 {
		errs = append(errs, fmt.Errorf("max body bytes must be positive, got %d", c.maxBodyBytes))
	}
	if c.latencyBase < 0 || c.latencyJitter < 0 {
		errs = append(errs, fmt.Errorf("latency must not be negative, got base %s jitter %s", c.latencyBase, c.latencyJitter))
	}
	if err := c.faults.Validate(); err != nil {
		errs = append(errs, err)
	}
	switch c.etagMode {
	case ETagStrong, ETagWeak, ETagNone:
	default:
		errs = append(errs, fmt.Errorf("unknown ETag mode %d", c.etagMode))
	}
	if _, err := ParseProfile(string(c.profile)); err != nil {
		errs = append(errs, err)
	}
	if c.weakWindow < 0 {
		errs = append(errs, fmt.Errorf("weak window must not be negative, got %s", c.weakWindow))
	}
	if c.now == nil {
		errs = append(errs, errors.New("clock must not be nil"))
	}
	if c.token != "" && c.tokenCheck != nil {
		errs = append(errs, errors.New("WithToken and WithTokenCheck are exclusive"))
	}
	return errors.Join(errs...)
}

// WithRequireIfMatch sets whether a PUT must carry If-Match (or
// If-None-Match: *) and a DELETE must carry If-Match. When required and
// missing, the answer is 428 Precondition Required. Default true; false
// allows the unconditional ("blind") writes that some benchmarks need.
// ProfileS3, ProfileAzureBlob, ProfileWebDAV and ProfileGCS never answer
// 428, whatever this says.
func WithRequireIfMatch(require bool) Option {
	return func(c *config) { c.requireIfMatch = require }
}

// WithMaxBodyBytes sets the largest PUT body accepted; larger bodies get 413
// and nothing is stored. Default DefaultMaxBodyBytes (64 MiB).
func WithMaxBodyBytes(n int64) Option {
	return func(c *config) { c.maxBodyBytes = n }
}

// WithToken requires every list request, and every /_fakeapi/ route except
// healthz, to carry "Authorization: Bearer <token>"; otherwise the answer is
// 401. Default: no authentication (but ProfileGCS still wants some bearer
// token on a PUT or DELETE). The token is never logged or served.
func WithToken(token string) Option {
	return func(c *config) { c.token = token }
}

// TokenCheck decides whether a bearer token is good: nil accepts it, an
// error refuses it (unknown, expired, revoked). It is called once per
// request that carries a bearer token, without the Server's lock held and
// possibly concurrently, so it must be safe for concurrent use. Its error
// never reaches the client.
type TokenCheck func(token string) error

// WithTokenCheck requires every list request, and every /_fakeapi/ route
// except healthz, to carry "Authorization: Bearer <token>" for which check
// returns nil; a missing token, or one it refuses, gets 401 with the
// profile's error body. It lets a test hand out tokens that expire (see
// internal/storetest/gcstoken). It cannot be combined with WithToken.
// Default: no check.
func WithTokenCheck(check TokenCheck) Option {
	return func(c *config) { c.tokenCheck = check }
}

// WithLatency delays every list request by base plus a uniformly random
// extra in [0, jitter) drawn from the seeded source. Default no latency.
// Server.SetLatency changes it at run time.
func WithLatency(base, jitter time.Duration) Option {
	return func(c *config) { c.latencyBase, c.latencyJitter = base, jitter }
}

// WithFaults sets the rate-based fault injection. Default no faults.
// Server.SetFaults changes it at run time.
func WithFaults(f Faults) Option {
	return func(c *config) { c.faults = f }
}

// WithFaultHook installs a hook consulted for every list request (after
// authentication, before the request is processed). A hook that returns a
// Fault with a Kind other than FaultNone decides the request's fault and
// overrides the rate-based faults. Default no hook. Server.SetFaultHook
// changes it at run time.
func WithFaultHook(h FaultHook) Option {
	return func(c *config) { c.hook = h }
}

// WithSeed seeds the random source behind rate-based faults and latency
// jitter: the same seed and the same sequence of requests give the same
// faults. Default DefaultSeed.
func WithSeed(seed int64) Option {
	return func(c *config) { c.seed = seed }
}

// WithHistory records every committed version of every document, readable
// with Server.History. Default false. History is kept in memory only and is
// never trimmed, so keep it for tests and short benchmarks.
func WithHistory(enabled bool) Option {
	return func(c *config) { c.history = enabled }
}

// WithStateFile persists the documents and the ETag counter in the file at
// path. New loads the file when it exists; every commit rewrites it
// atomically (temporary file in the same directory, fsync, rename, fsync of
// the directory) before the client gets its answer. Default: no state file,
// everything is lost when the process ends.
func WithStateFile(path string) Option {
	return func(c *config) { c.stateFile = path }
}

// WithETagMode sets how the ETag header is served, under any profile.
// Default ETagStrong; the other modes exist to test clients that must
// refuse to write without a strong validator.
func WithETagMode(m ETagMode) Option {
	return func(c *config) { c.etagMode = m }
}

// WithEchoBody sets whether a successful PUT answers with the stored
// document as its body, under ProfileStrict (the other profiles answer a
// PUT their own way). Default true (200 or 201 with the body). When false,
// a replace answers 204 No Content and a create 201 with an empty body,
// both still with the new ETag.
func WithEchoBody(echo bool) Option {
	return func(c *config) { c.echoBody = echo }
}

// WithProfile sets the kind of server the fake behaves like (see Profile
// and the package doc). Default ProfileStrict.
func WithProfile(p Profile) Option {
	return func(c *config) { c.profile = p }
}

// WithClock sets the clock of the Server: it timestamps versions in the
// history, decides when a weak ETag becomes strong (ProfileWebDAV), and
// seeds generations (microseconds since the epoch, see Server.Generation).
// Default time.Now. Injected latency and Retry-After always use real time.
func WithClock(now func() time.Time) Option {
	return func(c *config) { c.now = now }
}

// WithWeakWindow sets how long after a write ProfileWebDAV serves the
// document's ETag weak (W/"..."), so that If-Match cannot match it, as
// Apache does for a file modified less than a second before the request.
// Default DefaultWeakWindow (1s); zero turns it off. Other profiles ignore
// it. The window is measured with the clock of WithClock.
func WithWeakWindow(d time.Duration) Option {
	return func(c *config) { c.weakWindow = d }
}
