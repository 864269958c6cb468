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
	"bytes"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/listkeeper/listkeeper/internal/storetest/awscreds"
	"github.com/listkeeper/listkeeper/internal/storetest/loopback"
)

// Server is an in-memory S3 (gofakes3) behind a SigV4 verifier. It is an
// http.Handler; Start serves it on 127.0.0.1. It is safe for concurrent
// use.
type Server struct {
	cfg     config
	creds   *awscreds.Store
	lb      *loopback.Server
	backend *s3mem.Backend
	store   http.Handler // gofakes3
	locks   keyLocks
	reqSeq  atomic.Uint64

	mu        sync.Mutex
	faultHook FaultHook
	log       []Record
}

var _ http.Handler = (*Server)(nil)

// New builds a Server with the buckets of WithBuckets. It fails when an
// option is invalid.
func New(opts ...Option) (*Server, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("s3fake: %w", err)
	}
	clock := timeSource{cfg.now}
	backend := s3mem.New(s3mem.WithTimeSource(clock))
	for _, b := range cfg.buckets {
		if err := gofakes3.ValidateBucketName(b); err != nil {
			return nil, fmt.Errorf("s3fake: bucket %q: %w", b, err)
		}
		if err := backend.CreateBucket(b); err != nil {
			return nil, fmt.Errorf("s3fake: create bucket %q: %w", b, err)
		}
	}
	store := gofakes3.New(backend,
		gofakes3.WithTimeSource(clock),
		// The verifier judges clock skew, by the same clock.
		gofakes3.WithTimeSkewLimit(0),
		gofakes3.WithIntegrityCheck(true),
	).Server()
	s := &Server{
		cfg:       cfg,
		backend:   backend,
		store:     store,
		locks:     keyLocks{m: map[string]*keyLock{}},
		creds:     awscreds.New("s3fake", ErrUnknownAccessKey, cfg.creds),
		faultHook: cfg.faultHook,
	}
	s.lb = loopback.New("s3fake", s)
	return s, nil
}

// Region returns the region requests must be signed for.
func (s *Server) Region() string { return s.cfg.region }

// SetFaultHook replaces the FaultHook; nil removes it.
func (s *Server) SetFaultHook(h FaultHook) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faultHook = h
}

// ServeHTTP authenticates r, applies the FaultHook and the write
// preconditions, and hands it to gofakes3. Buckets are addressed by path:
// /bucket/key.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := &recorder{ResponseWriter: w}
	bucket, key := splitPath(r.URL.Path)
	entry := Record{Method: r.Method, Bucket: bucket, Key: key}
	requestID := fmt.Sprintf("%016X", s.reqSeq.Add(1))
	if e := s.serve(rec, r, &entry); e != nil {
		e.write(rec, r, requestID)
		entry.Code = e.Code
	}
	entry.Status = rec.status()
	if entry.Code == "" {
		entry.Code = rec.errorCode()
	}
	s.mu.Lock()
	s.log = append(s.log, entry)
	s.mu.Unlock()
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request, entry *Record) *Error {
	p, e := s.authenticate(r, s.cfg.now())
	entry.Auth, entry.AccessKeyID = p.kind, p.accessKeyID
	if e != nil {
		return e
	}
	body, e := s.readBody(r)
	if e != nil {
		return e
	}
	if e := checkPayload(p.payloadHash, body); e != nil {
		return e
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	stripAuth(r)

	s.mu.Lock()
	hook := s.faultHook
	s.mu.Unlock()
	if hook != nil {
		if e := hook(r); e != nil {
			return e
		}
	}
	return s.dispatch(w, r, entry.Bucket, entry.Key)
}

func (s *Server) readBody(r *http.Request) ([]byte, *Error) {
	if r.Body == nil {
		return nil, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, s.cfg.maxBodyBytes+1))
	if err != nil {
		return nil, (&Error{Status: http.StatusBadRequest, Code: "IncompleteBody",
			Message: "You did not provide the number of bytes specified by the Content-Length HTTP header."})
	}
	if int64(len(body)) > s.cfg.maxBodyBytes {
		return nil, errEntityTooLarge(s.cfg.maxBodyBytes)
	}
	return body, nil
}

// stripAuth removes what only authentication needed, before the request
// reaches gofakes3: gofakes3 keeps every X-Amz-* request header of a PUT as
// object metadata and serves it back on GET, which would hand out the
// session token and stale checksums.
func stripAuth(r *http.Request) {
	r.Header.Del("Authorization")
	for k := range r.Header {
		lk := strings.ToLower(k)
		switch {
		case lk == "x-amz-date", lk == "x-amz-security-token", lk == "x-amz-content-sha256",
			lk == "x-amz-decoded-content-length", lk == "x-amz-trailer",
			lk == "x-amz-sdk-checksum-algorithm", strings.HasPrefix(lk, "x-amz-checksum-"):
			r.Header.Del(k)
		}
	}
	q := r.URL.Query()
	if q.Has(qSignature) {
		for _, k := range []string{qAlgorithm, qCredential, qDate, qExpires, qSignedHeaders, qSignature, qToken, qContentHash} {
			q.Del(k)
		}
		r.URL.RawQuery = q.Encode()
	}
}

// splitPath splits a path-style URL path into bucket and key.
func splitPath(path string) (bucket, key string) {
	bucket, key, _ = strings.Cut(strings.TrimPrefix(path, "/"), "/")
	return bucket, key
}

// Start serves the Server over plain HTTP on 127.0.0.1, on a free port.
// It panics when the Server is already started, or when it cannot listen,
// as httptest does.
func (s *Server) Start() { s.lb.Start() }

// StartTLS serves the Server over HTTPS on 127.0.0.1, with httptest's
// self-signed certificate; Client returns a client that trusts it.
func (s *Server) StartTLS() { s.lb.StartTLS() }

// URL returns the base URL of the started Server ("http://127.0.0.1:port"),
// or "" before Start. Objects are at URL()/bucket/key.
func (s *Server) URL() string { return s.lb.URL() }

// Client returns an HTTP client for the started Server that trusts its
// certificate under StartTLS, or http.DefaultClient before Start.
func (s *Server) Client() *http.Client { return s.lb.Client() }

// Certificate returns the certificate the Server serves under StartTLS,
// for a test that must hand it on as a CA bundle (spec.caBundle), or nil
// before StartTLS.
func (s *Server) Certificate() *x509.Certificate { return s.lb.Certificate() }

// Close stops serving and waits for requests in flight. It is safe to call
// more than once, and without Start.
func (s *Server) Close() { s.lb.Close() }

// timeSource adapts the configured clock to gofakes3.
type timeSource struct{ now func() time.Time }

func (t timeSource) Now() time.Time                   { return t.now().UTC() }
func (t timeSource) Since(at time.Time) time.Duration { return t.now().Sub(at) }
