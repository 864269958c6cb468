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

package loopback

import (
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
)

// Server serves one http.Handler on 127.0.0.1, on a free port. Binding the
// loopback address, not httptest's choice, keeps a fake off every other
// interface of the machine. Build it with New. It is safe for concurrent
// use.
type Server struct {
	name    string
	handler http.Handler

	mu sync.Mutex
	ts *httptest.Server
}

// New builds a Server, not yet started, for handler. name (the fake's
// package name) prefixes the messages of its panics.
func New(name string, handler http.Handler) *Server {
	return &Server{name: name, handler: handler}
}

// Start serves the handler over plain HTTP. It panics when the Server is
// already started, or when it cannot listen, as httptest does.
func (s *Server) Start() { s.start(false) }

// StartTLS serves the handler over HTTPS, with httptest's self-signed
// certificate; Client returns a client that trusts it. It panics as Start
// does.
func (s *Server) StartTLS() { s.start(true) }

func (s *Server) start(tls bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ts != nil {
		panic(s.name + ": server already started")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("%s: listen on 127.0.0.1: %v", s.name, err))
	}
	ts := httptest.NewUnstartedServer(s.handler)
	_ = ts.Listener.Close()
	ts.Listener = ln
	if tls {
		ts.StartTLS()
	} else {
		ts.Start()
	}
	s.ts = ts
}

// URL returns the base URL of the started Server
// ("http://127.0.0.1:port" or "https://127.0.0.1:port"), or "" before
// Start.
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ts == nil {
		return ""
	}
	return s.ts.URL
}

// Client returns an HTTP client for the started Server that trusts its
// certificate under StartTLS, or http.DefaultClient before Start.
func (s *Server) Client() *http.Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ts == nil {
		return http.DefaultClient
	}
	return s.ts.Client()
}

// Certificate returns the certificate the Server serves under StartTLS,
// or nil before StartTLS.
func (s *Server) Certificate() *x509.Certificate {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ts == nil {
		return nil
	}
	return s.ts.Certificate()
}

// Close stops serving and waits for requests in flight. It is safe to call
// more than once, and without Start.
func (s *Server) Close() {
	s.mu.Lock()
	ts := s.ts
	s.mu.Unlock()
	if ts != nil {
		ts.Close()
	}
}
