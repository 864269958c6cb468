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

package wafv2fake

import (
	"bytes"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/listkeeper/listkeeper/internal/storetest/awscreds"
	"github.com/listkeeper/listkeeper/internal/storetest/loopback"
)

// Server is an in-memory AWS WAFv2 IP-set API behind a SigV4 verifier. It
// is an http.Handler; Start serves it on 127.0.0.1. It is safe for
// concurrent use.
type Server struct {
	cfg   config
	creds *awscreds.Store
	lb    *loopback.Server

	mu        sync.Mutex
	sets      map[setKey]*ipSet
	faultHook FaultHook
	log       []Record
}

var _ http.Handler = (*Server)(nil)

// New builds a Server without sets. It fails when an option is invalid.
func New(opts ...Option) (*Server, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("wafv2fake: %w", err)
	}
	s := &Server{
		cfg:       cfg,
		creds:     awscreds.New("wafv2fake", ErrUnknownAccessKey, cfg.creds),
		sets:      map[setKey]*ipSet{},
		faultHook: cfg.faultHook,
	}
	s.lb = loopback.New("wafv2fake", s)
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

// operation runs one operation on a request's body and returns the answer
// to encode.
type operation func(r *http.Request, body []byte) (any, *Error)

func (s *Server) operation(name string) (operation, bool) {
	switch name {
	case OpGetIPSet:
		return s.getIPSet, true
	case OpUpdateIPSet:
		return s.updateIPSet, true
	case OpCreateIPSet:
		return s.createIPSet, true
	case OpListIPSets:
		return s.listIPSets, true
	}
	return nil, false
}

// ServeHTTP authenticates r, applies the FaultHook and runs the operation
// that X-Amz-Target names. The request is logged before it is answered, so
// a client that has its answer finds it in Requests and Stats.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	entry := Record{Operation: strings.TrimPrefix(r.Header.Get("X-Amz-Target"), TargetPrefix)}
	requestID := newUUID()
	out, e := s.serve(r, &entry)
	var body []byte
	switch {
	case e != nil && e.drop != dropNone:
		entry.Dropped = true
	case e != nil:
		entry.Status, entry.Code = e.Status, e.Code
	default:
		var err error
		if body, err = json.Marshal(out); err != nil {
			e = InternalFailure()
			entry.Status, entry.Code = e.Status, e.Code
		} else {
			entry.Status = http.StatusOK
		}
	}
	s.mu.Lock()
	s.log = append(s.log, entry)
	s.mu.Unlock()

	switch {
	case entry.Dropped:
		loopback.HangUp(w)
	case e != nil:
		e.write(w, requestID)
	default:
		writeJSON(w, requestID, body)
	}
}

// serve checks r and runs its operation. A DropAnswer fault comes back
// after the operation ran.
func (s *Server) serve(r *http.Request, entry *Record) (any, *Error) {
	if r.Method != http.MethodPost || r.URL.Path != "/" {
		return nil, errUnknownOperation()
	}
	body, e := s.readBody(r)
	if e != nil {
		return nil, e
	}
	entry.AccessKeyID, e = s.authenticate(r, body, s.cfg.now())
	if e != nil {
		return nil, e
	}
	op, known := s.operation(entry.Operation)
	if !strings.HasPrefix(r.Header.Get("X-Amz-Target"), TargetPrefix) || !known {
		return nil, errUnknownOperation()
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != ContentType {
		return nil, errSerialization("Content-Type must be " + ContentType)
	}

	s.mu.Lock()
	hook := s.faultHook
	s.mu.Unlock()
	var after *Error
	if hook != nil {
		r.Body = io.NopCloser(bytes.NewReader(body))
		if e := hook(entry.Operation, r); e != nil {
			if e.drop != dropAfter {
				return nil, e
			}
			after = e
		}
	}
	out, e := op(r, body)
	if after != nil {
		return nil, after
	}
	return out, e
}

func (s *Server) readBody(r *http.Request) ([]byte, *Error) {
	if r.Body == nil {
		return nil, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, s.cfg.maxBodyBytes+1))
	if err != nil {
		return nil, errSerialization("could not read the request body")
	}
	if int64(len(body)) > s.cfg.maxBodyBytes {
		return nil, errTooLarge()
	}
	return body, nil
}

// decode reads a JSON request body into v. An empty body is an empty
// object, as AWS JSON 1.1 allows.
func decode(body []byte, v any) *Error {
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	if err := json.Unmarshal(body, v); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return errSerialization("Start of structure or map found where not expected.")
		}
		return errSerialization("a member has the wrong type")
	}
	return nil
}

// writeJSON sends a successful answer with its JSON body.
func writeJSON(w http.ResponseWriter, requestID string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", ContentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Amzn-RequestId", requestID)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// Start serves the Server over plain HTTP on 127.0.0.1, on a free port.
// It panics when the Server is already started, or when it cannot listen,
// as httptest does.
func (s *Server) Start() { s.lb.Start() }

// StartTLS serves the Server over HTTPS on 127.0.0.1, with httptest's
// self-signed certificate; Client returns a client that trusts it.
func (s *Server) StartTLS() { s.lb.StartTLS() }

// URL returns the base URL of the started Server ("http://127.0.0.1:port"),
// the SDK's BaseEndpoint, or "" before Start.
func (s *Server) URL() string { return s.lb.URL() }

// Client returns an HTTP client for the started Server that trusts its
// certificate under StartTLS, or http.DefaultClient before Start.
func (s *Server) Client() *http.Client { return s.lb.Client() }

// Certificate returns the certificate the Server serves under StartTLS,
// or nil before StartTLS.
func (s *Server) Certificate() *x509.Certificate { return s.lb.Certificate() }

// Close stops serving and waits for requests in flight. It is safe to call
// more than once, and without Start.
func (s *Server) Close() { s.lb.Close() }
