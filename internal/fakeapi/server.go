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
	"cmp"
	"context"
	"crypto/subtle"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/listkeeper/listkeeper/internal/storetest/loopback"
)

// AdminPrefix starts the paths of the Server's own routes (stats, history,
// fault control, health). Paths under it are never list documents, are
// never delayed and never get injected faults.
const AdminPrefix = "/_fakeapi/"

// pcgStream is the fixed second word of the PCG seed; WithSeed sets the
// first.
const pcgStream = 0x6c6973746b656570 // "listkeep"

// Server is the fake list server: an http.Handler that stores JSON
// documents by URL path and enforces the list HTTP contract. Build it with
// New. A Server is safe for concurrent use by any number of requests and
// method calls; one mutex guards all of its state.
type Server struct {
	cfg        config   // read-only after New
	b          behavior // the profile's, read-only after New
	boot       string   // random per process, part of every new ETag
	admin      http.Handler
	requestIDs atomic.Uint64

	mu            sync.Mutex
	rng           *rand.Rand
	latencyBase   time.Duration
	latencyJitter time.Duration
	faults        Faults
	hook          FaultHook
	seq           uint64 // last commit sequence number used
	generation    int64  // last generation handed out
	docs          map[string]*document
	writing       map[string]bool // paths with a write in progress (overlapConflict)
	history       map[string][]Version
	stats         Stats
}

// document is one stored version. Its fields are never modified after it
// is stored, so its body may be served without holding the lock.
type document struct {
	body       []byte
	opaque     string // the entity tag without quotes
	seq        uint64
	generation int64     // the GCS generation: grows with every commit
	written    time.Time // when it was committed; zero when loaded from an older state file
}

var _ http.Handler = (*Server)(nil)

// New builds a Server. It fails when an option is invalid, or when the state
// file cannot be loaded or written.
func New(opts ...Option) (*Server, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("fakeapi: %w", err)
	}
	boot, err := newBootID()
	if err != nil {
		return nil, fmt.Errorf("fakeapi: %w", err)
	}
	s := &Server{
		cfg:           cfg,
		b:             behaviors[cfg.profile],
		boot:          boot,
		rng:           rand.New(rand.NewPCG(uint64(cfg.seed), pcgStream)),
		latencyBase:   cfg.latencyBase,
		latencyJitter: cfg.latencyJitter,
		faults:        cfg.faults,
		hook:          cfg.hook,
		docs:          map[string]*document{},
		writing:       map[string]bool{},
		history:       map[string][]Version{},
		stats:         newStats(),
	}
	if cfg.stateFile != "" {
		if s.seq, s.generation, s.docs, err = loadState(cfg.stateFile); err != nil {
			return nil, fmt.Errorf("fakeapi: %w", err)
		}
		s.assignMissingGenerations()
		// A restarted server's history starts with what it loaded: the
		// last commits before a crash are in no history the old process
		// could still hand out, and a history that skipped them would say
		// that the version before them stood until the next commit.
		s.recordLoadedLocked()
		// Write once now, so that an unwritable location fails here and not
		// at the first commit.
		if err := s.writeState(s.snapshotLocked()); err != nil {
			return nil, fmt.Errorf("fakeapi: %w", err)
		}
	}
	s.admin = s.adminHandler()
	return s, nil
}

// ServeHTTP serves list documents at every path outside AdminPrefix, and
// the Server's own routes under it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, AdminPrefix) {
		s.admin.ServeHTTP(w, r)
		return
	}
	s.serveList(w, r)
}

// draw is what the seeded source decided for one request, together with
// the fault configuration it was decided under.
type draw struct {
	u      float64
	delay  time.Duration
	faults Faults
	hook   FaultHook
}

// drawNext takes exactly two numbers from the seeded source per request,
// whatever the configuration, so the fault pattern depends only on the seed
// and the order of requests.
func (s *Server) drawNext() draw {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, j := s.rng.Float64(), s.rng.Float64()
	return draw{
		u:      u,
		delay:  s.latencyBase + time.Duration(j*float64(s.latencyJitter)),
		faults: s.faults,
		hook:   s.hook,
	}
}

// serveList runs one list request: latency, authentication, fault
// decision, processing, answer.
func (s *Server) serveList(w http.ResponseWriter, r *http.Request) {
	d := s.drawNext()
	lat := &latency{d: d.delay}
	if !s.holdsLatency(r) && !lat.take(r.Context()) {
		s.record(r, 0)
		return
	}
	resp, drop := s.process(w, r, d, lat)
	// A request that holds its latency took it while processing, unless it
	// was answered before it got that far; then it takes it now.
	if resp.abandoned || !lat.take(r.Context()) {
		s.record(r, 0)
		return
	}
	if drop {
		s.record(r, 0)
		loopback.HangUp(w)
		return
	}
	s.reply(w, r, resp)
}

// process authenticates r, decides its fault and, unless the fault says
// otherwise, processes it. drop is true when the connection must be dropped
// instead of answering.
func (s *Server) process(w http.ResponseWriter, r *http.Request, d draw, lat *latency) (resp response, drop bool) {
	if !s.authenticated(r) {
		resp := s.fail(r, http.StatusUnauthorized, "", "missing or wrong bearer token")
		resp.header.Set("WWW-Authenticate", `Bearer realm="fakeapi"`)
		return resp, false
	}
	f := s.decideFault(r, d)
	var hold time.Duration
	switch f.Kind {
	case FaultNone, FaultCommitThenDrop:
	case FaultHoldWrite:
		hold = f.Hold
	case FaultServiceUnavailable, FaultTooManyRequests:
		code := http.StatusServiceUnavailable
		if f.Kind == FaultTooManyRequests {
			code = http.StatusTooManyRequests
		}
		resp := s.fail(r, code, "", "injected fault "+string(f.Kind))
		resp.header.Set("Retry-After", retryAfterValue(f.RetryAfter))
		return resp, false
	case FaultResetBeforeCommit:
		return response{}, true
	default:
		return s.fail(r, http.StatusInternalServerError, "", fmt.Sprintf("fault hook returned unknown fault kind %q", f.Kind)), false
	}
	return s.handle(w, r, lat, hold), f.Kind == FaultCommitThenDrop
}

// latency is the injected latency of one request, taken once.
type latency struct {
	d     time.Duration
	taken bool
}

// take waits for the latency unless it was taken already; it reports
// false when the client went away while it waited.
func (l *latency) take(ctx context.Context) bool {
	if l.taken {
		return true
	}
	l.taken = true
	return sleepCtx(ctx, l.d)
}

// decideFault asks the hook, then the rate-based faults, and counts the
// fault it settles on.
func (s *Server) decideFault(r *http.Request, d draw) Fault {
	var f Fault
	if d.hook != nil {
		f = d.hook(r)
	}
	if f.Kind == FaultNone {
		f.Kind = d.faults.pick(d.u, r.Method == http.MethodPut || r.Method == http.MethodDelete)
	}
	if f.RetryAfter <= 0 {
		f.RetryAfter = d.faults.RetryAfter
	}
	if f.RetryAfter <= 0 {
		f.RetryAfter = DefaultRetryAfter
	}
	if f.Hold <= 0 {
		f.Hold = cmp.Or(d.faults.HoldWrites, DefaultHoldWrites)
	}
	if f.Kind != FaultNone {
		s.mu.Lock()
		s.stats.Faults[f.Kind]++
		s.mu.Unlock()
	}
	return f
}

// authorized reports whether r carries the credentials the Server was
// configured with: a bearer token that passes the WithTokenCheck check, or
// the WithToken token (compared in constant time), or anything when
// neither is configured.
func (s *Server) authorized(r *http.Request) bool {
	switch {
	case s.cfg.tokenCheck != nil:
		token, ok := bearerToken(r)
		return ok && s.cfg.tokenCheck(token) == nil
	case s.cfg.token != "":
		token, ok := bearerToken(r)
		return ok && subtle.ConstantTimeCompare([]byte(token), []byte(s.cfg.token)) == 1
	default:
		return true
	}
}

// authenticated reports whether a list request may proceed: it is
// authorized and, when the profile never takes anonymous writes, a PUT or
// DELETE carries a bearer token even if none is configured.
func (s *Server) authenticated(r *http.Request) bool {
	if !s.authorized(r) {
		return false
	}
	if s.b.writesNeedBearer && !isSafe(r.Method) {
		_, ok := bearerToken(r)
		return ok
	}
	return true
}

// bearerToken returns the token of r's "Authorization: Bearer" header, and
// false when there is none or it is empty.
func bearerToken(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// response is an answer computed before it is written, so that a fault can
// still drop it.
type response struct {
	code        int
	header      http.Header
	contentType string
	body        []byte
	abandoned   bool // the client went away: answer nothing
}

// reply writes resp and counts it.
func (s *Server) reply(w http.ResponseWriter, r *http.Request, resp response) {
	s.record(r, resp.code)
	h := w.Header()
	for k, v := range resp.header {
		h[k] = v
	}
	if resp.body != nil {
		h.Set("Content-Type", resp.contentType)
		h.Set("Content-Length", strconv.Itoa(len(resp.body)))
	}
	w.WriteHeader(resp.code)
	if resp.body != nil {
		_, _ = w.Write(resp.body)
	}
}
