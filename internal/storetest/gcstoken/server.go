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

package gcstoken

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// TokenPath is where a Server takes token requests.
const TokenPath = "/token"

// DefaultLifetime is how long an access token is valid unless WithLifetime
// says otherwise: an hour, as Google's.
const DefaultLifetime = time.Hour

// GrantTypeJWTBearer is the grant_type of a service account's token
// request (RFC 7523).
const GrantTypeJWTBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"

// Errors of Valid. Both mean the token must not be accepted.
var (
	// ErrUnknownToken: the Server never issued the token.
	ErrUnknownToken = errors.New("gcstoken: unknown access token")
	// ErrExpiredToken: the Server issued the token, and its lifetime is
	// over.
	ErrExpiredToken = errors.New("gcstoken: access token expired")
)

// Option configures a Server built by New.
type Option func(*config)

type config struct {
	lifetime time.Duration
	now      func() time.Time
}

// WithLifetime sets how long an issued access token is valid; at least a
// second, since expires_in counts whole seconds. Default DefaultLifetime.
func WithLifetime(d time.Duration) Option {
	return func(c *config) { c.lifetime = d }
}

// WithClock sets the clock that issues tokens, expires them and checks
// the times in assertions. Default time.Now.
func WithClock(now func() time.Time) Option {
	return func(c *config) { c.now = now }
}

// Stats counts what a Server did.
type Stats struct {
	// Issued counts access tokens issued.
	Issued int
	// Refused counts token requests answered with an error.
	Refused int
	// Accepted counts Valid calls that accepted a token.
	Accepted int
	// Expired counts Valid calls refused with ErrExpiredToken.
	Expired int
	// Unknown counts Valid calls refused with ErrUnknownToken.
	Unknown int
}

// Server is the fake token endpoint: an http.Handler that serves TokenPath,
// knows the service accounts it made with NewServiceAccountKey and the
// tokens it issued. Build it with New. It is safe for concurrent use; one
// mutex guards its state.
type Server struct {
	cfg config
	mux *http.ServeMux

	mu       sync.Mutex
	accounts map[string]*account // by client_email
	tokens   map[string]time.Time
	stats    Stats
}

var _ http.Handler = (*Server)(nil)

// New builds a Server.
func New(opts ...Option) (*Server, error) {
	cfg := config{lifetime: DefaultLifetime, now: time.Now}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.lifetime < time.Second {
		return nil, fmt.Errorf("gcstoken: lifetime must be at least 1s, got %s", cfg.lifetime)
	}
	if cfg.now == nil {
		return nil, errors.New("gcstoken: clock must not be nil")
	}
	s := &Server{cfg: cfg, accounts: map[string]*account{}, tokens: map[string]time.Time{}}
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("POST "+TokenPath, s.serveToken)
	return s, nil
}

// ServeHTTP serves POST TokenPath.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mux.ServeHTTP(w, r)
}

// tokenResponse is the JSON answer of Google's token endpoint.
type tokenResponse struct {
	AccessToken string `json:"access_token"`
	ExpiresIn   int64  `json:"expires_in"`
	TokenType   string `json:"token_type"`
}

// errorResponse is the JSON error answer of an OAuth 2.0 token endpoint
// (RFC 6749 section 5.2).
type errorResponse struct {
	Error       string `json:"error"`
	Description string `json:"error_description"`
}

// maxFormBytes bounds a token request; an assertion is about a kilobyte.
const maxFormBytes = 64 << 10

func (s *Server) serveToken(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		s.refuse(w, &grantError{code: "invalid_request", description: "could not parse the form: " + err.Error()})
		return
	}
	if gt := r.PostForm.Get("grant_type"); gt != GrantTypeJWTBearer {
		s.refuse(w, &grantError{code: "unsupported_grant_type", description: "Invalid grant_type: " + gt})
		return
	}
	if err := s.verifyAssertion(r.PostForm.Get("assertion")); err != nil {
		var ge *grantError
		if !errors.As(err, &ge) {
			ge = &grantError{code: "invalid_grant", description: err.Error()}
		}
		s.refuse(w, ge)
		return
	}
	token := newAccessToken()
	s.mu.Lock()
	s.tokens[token] = s.cfg.now().Add(s.cfg.lifetime)
	s.stats.Issued++
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, tokenResponse{
		AccessToken: token,
		ExpiresIn:   int64(s.cfg.lifetime / time.Second),
		TokenType:   "Bearer",
	})
}

// refuse answers a token request with 400 and e, and counts it.
func (s *Server) refuse(w http.ResponseWriter, e *grantError) {
	s.mu.Lock()
	s.stats.Refused++
	s.mu.Unlock()
	writeJSON(w, http.StatusBadRequest, errorResponse{Error: e.code, Description: e.description})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// newAccessToken returns a new opaque access token, shaped like Google's.
// crypto/rand.Read never returns an error (it crashes the program instead).
func newAccessToken() string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	return "ya29.fake-" + hex.EncodeToString(b[:])
}

// Valid reports whether token is an access token this Server issued that
// has not expired: nil, or an error that wraps ErrUnknownToken or
// ErrExpiredToken. It has the signature of fakeapi.TokenCheck.
func (s *Server) Valid(token string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	expiry, ok := s.tokens[token]
	switch now := s.cfg.now(); {
	case !ok:
		s.stats.Unknown++
		return ErrUnknownToken
	case !now.Before(expiry):
		s.stats.Expired++
		return fmt.Errorf("%w %s ago", ErrExpiredToken, now.Sub(expiry))
	default:
		s.stats.Accepted++
		return nil
	}
}

// Stats returns a snapshot of the counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}
