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
	"bytes"
	"crypto/x509"
	"encoding/xml"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"sync"

	"github.com/listkeeper/listkeeper/internal/storetest/awscreds"
	"github.com/listkeeper/listkeeper/internal/storetest/loopback"
)

// Server is an in-memory EC2 managed prefix list API behind a SigV4
// verifier. It is an http.Handler; Start serves it on 127.0.0.1. It is
// safe for concurrent use.
type Server struct {
	cfg   config
	creds *awscreds.Store
	lb    *loopback.Server

	mu              sync.Mutex
	lists           map[string]*prefixList
	faultHook       FaultHook
	log             []Record
	foreignModifies int64
}

var _ http.Handler = (*Server)(nil)

// New builds a Server without lists. It fails when an option is invalid.
func New(opts ...Option) (*Server, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("ec2fake: %w", err)
	}
	s := &Server{
		cfg:       cfg,
		creds:     awscreds.New("ec2fake", ErrUnknownAccessKey, cfg.creds),
		lists:     map[string]*prefixList{},
		faultHook: cfg.faultHook,
	}
	s.lb = loopback.New("ec2fake", s)
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

// ServeHTTP authenticates r, applies the FaultHook and runs the action
// that its Action parameter names. The request is logged before it is
// answered, so a client that has its answer finds it in Requests and
// Stats.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var entry Record
	requestID := newRequestID()
	out, e := s.serve(r, &entry)
	var body []byte
	switch {
	case e != nil && e.drop != dropNone:
		entry.Dropped = true
	case e != nil:
		entry.Status, entry.Code = e.Status, e.Code
	default:
		out.stamp(requestID)
		var err error
		if body, err = xml.Marshal(out); err != nil {
			e = InternalError()
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
		writeXML(w, body)
	}
}

// serve checks r and runs its action. A DropAnswer fault comes back after
// the action ran.
func (s *Server) serve(r *http.Request, entry *Record) (stamper, *Error) {
	if r.Method != http.MethodPost || r.URL.Path != "/" {
		return nil, errUnsupportedOperation("Only POST / is served.")
	}
	body, e := s.readBody(r)
	if e != nil {
		return nil, e
	}
	p, e := parseBody(r, body)
	if e != nil {
		return nil, e
	}
	entry.Action, entry.PrefixListID = deref(p.str("Action")), deref(p.str("PrefixListId"))
	entry.AccessKeyID, e = s.authenticate(r, body, s.cfg.now())
	if e != nil {
		return nil, e
	}
	if entry.Action == "" {
		return nil, &Error{Status: http.StatusBadRequest, Code: "MissingAction", Message: "The request must contain the parameter Action"}
	}
	if v := p.str("Version"); v == nil {
		return nil, errMissingParameter("Version")
	} else if *v != APIVersion {
		return nil, errInvalidParameterValue(fmt.Sprintf("Version %s is not served; only %s is.", *v, APIVersion))
	}
	act, known := s.action(entry.Action)
	if !known {
		return nil, errInvalidAction(entry.Action)
	}
	if dry := p.str("DryRun"); dry != nil && *dry == "true" {
		return nil, errUnsupportedOperation("DryRun is not supported by this fake.")
	}

	s.mu.Lock()
	hook := s.faultHook
	s.mu.Unlock()
	var after *Error
	if hook != nil {
		r.Body = io.NopCloser(bytes.NewReader(body))
		if e := hook(entry.Action, r); e != nil {
			if e.drop != dropAfter {
				return nil, e
			}
			after = e
		}
	}
	out, e := act(p)
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
		return nil, errInvalidParameterValue("could not read the request body")
	}
	if int64(len(body)) > s.cfg.maxBodyBytes {
		return nil, errTooLarge()
	}
	return body, nil
}

// parseBody reads the parameters of a form-encoded body; a body of
// another media type brings none.
func parseBody(r *http.Request, body []byte) (params, *Error) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != ContentType {
		return params{}, nil //nolint:nilerr // a body that is not a form brings no parameters, as on EC2
	}
	v, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, &Error{Status: http.StatusBadRequest, Code: "MalformedQueryString", Message: "The query string contains a syntax error."}
	}
	return params(v), nil
}

// writeXML sends a successful answer with its XML body.
func writeXML(w http.ResponseWriter, body []byte) {
	body = append([]byte(xml.Header), body...)
	h := w.Header()
	h.Set("Content-Type", "text/xml;charset=UTF-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
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

// Certificate returns the certificate the Server serves under StartTLS,
// or nil before StartTLS.
func (s *Server) Certificate() *x509.Certificate { return s.lb.Certificate() }

// Close stops serving and waits for requests in flight. It is safe to call
// more than once, and without Start.
func (s *Server) Close() { s.lb.Close() }
