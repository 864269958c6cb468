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
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/listkeeper/listkeeper/internal/storetest/loopback"
)

// Server is a fake of the IAM policy methods of Cloud Resource Manager
// v3 and of the Cloud Storage JSON API v1. It is an http.Handler; Start
// serves it on 127.0.0.1. One mutex guards its state; it is safe for
// concurrent use.
type Server struct {
	cfg config
	lb  *loopback.Server

	mu        sync.Mutex
	policies  map[string]*Policy // by resource name
	inflight  map[string]int     // setIamPolicy calls in flight, by resource
	faultHook FaultHook
	log       []Record
	commits   int64
}

var _ http.Handler = (*Server)(nil)

// New builds a Server without resources; SetPolicy adds them.
func New(opts ...Option) (*Server, error) {
	cfg := config{maxBodyBytes: DefaultMaxBodyBytes}
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("iamfake: %w", err)
	}
	s := &Server{cfg: cfg, policies: map[string]*Policy{}, inflight: map[string]int{}, faultHook: cfg.faultHook}
	s.lb = loopback.New("iamfake", s)
	return s, nil
}

// SetFaultHook replaces the FaultHook; nil removes it.
func (s *Server) SetFaultHook(h FaultHook) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faultHook = h
}

// SetPolicy creates resource, or replaces its policy, with p, as an
// unconditional setIamPolicy of every field would (p.Etag is ignored; a
// Version of 0 is taken as the one p's bindings need), and returns the new
// etag. resource is projects/P, folders/F, organizations/O or
// projects/_/buckets/B. A policy IAM would refuse is refused.
func (s *Server) SetPolicy(resource string, p Policy) (string, error) {
	api, ok := apiOf(resource)
	if !ok {
		return "", fmt.Errorf("iamfake: %q is not a resource name this server serves", resource)
	}
	p = p.Clone()
	if p.Version == 0 {
		p.Version = p.derivedVersion()
	}
	if api == Storage && len(p.AuditConfigs) > 0 {
		return "", fmt.Errorf("iamfake: a bucket's policy has no audit configs")
	}
	if err := validate(p, api); err != nil {
		return "", fmt.Errorf("iamfake: %w", err)
	}
	p.Etag = newEtag()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.policies[resource] = &p
	return p.Etag, nil
}

// Policy returns resource's policy as a getIamPolicy asking for version 3
// shows it, and whether the resource exists.
func (s *Server) Policy(resource string) (Policy, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.policies[resource]
	if !ok {
		return Policy{}, false
	}
	return view(*p, 3), true
}

// PolicyJSON returns resource's policy as its API serves it to a
// getIamPolicy asking for version 3, compact (prettyPrint=false, as the
// Google client libraries ask), byte for byte; and whether the resource
// exists.
func (s *Server) PolicyJSON(resource string) ([]byte, bool) {
	p, ok := s.Policy(resource)
	if !ok {
		return nil, false
	}
	api, _ := apiOf(resource)
	return policyBody(p, api, resource, false), true
}

// Commits returns how many setIamPolicy calls changed a policy.
func (s *Server) Commits() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.commits
}

// policyBody is p as api sends it for resource.
func policyBody(p Policy, api API, resource string, pretty bool) []byte {
	if api == Storage {
		return encode(storageJSON(p, resource), pretty)
	}
	return encode(crmJSON(p), pretty)
}

// apiOf returns the API that serves resource's policy.
func apiOf(resource string) (API, bool) {
	parts := strings.Split(resource, "/")
	switch {
	case len(parts) == 2 && (parts[0] == "projects" || parts[0] == "folders" || parts[0] == "organizations") && validID(parts[1]):
		return ResourceManager, true
	case len(parts) == 4 && parts[0] == "projects" && parts[1] == "_" && parts[2] == "buckets" && validID(parts[3]):
		return Storage, true
	}
	return 0, false
}

// validID reports whether s can be a project, folder, organization or
// bucket ID in a path: not empty, printable ASCII, no slash.
func validID(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r <= ' ' || r >= 0x7f || r == '/' {
			return false
		}
	}
	return true
}

// newEtag returns a fresh etag: base64 of 8 random bytes, as IAM's are
// ("BwYJ8Xq3tKs=").
func newEtag() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return base64.StdEncoding.EncodeToString(b[:])
}

// ServeHTTP routes r to the API it calls, checks its token and the fault
// hook, and serves it. The request is logged before it is answered, so a
// client that has its answer finds it in Requests and Stats.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	pretty := r.URL.Query().Get("prettyPrint") != "false"
	call, route := route(r)
	rec := Record{API: call.API, Method: call.Method, Resource: call.Resource}
	e := route
	if e == nil {
		e = s.authenticate(r, call.API)
	}
	if e == nil {
		s.mu.Lock()
		hook := s.faultHook
		s.mu.Unlock()
		if hook != nil {
			e = hook(call)
		}
	}
	drop := dropNone
	if e != nil && e.drop != dropNone {
		drop, e = e.drop, nil
	}
	var body []byte
	switch {
	case drop == dropBefore:
		// The whole request is read, so that the client sees the
		// connection end after it sent it, not a failed send.
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, s.cfg.maxBodyBytes))
	case e == nil:
		body, e = s.serve(r, call)
	}
	switch {
	case drop != dropNone:
		rec.Dropped = true
	case e != nil:
		rec.Status, rec.Word = e.Code, e.word(call.API)
	default:
		rec.Status = http.StatusOK
	}
	s.mu.Lock()
	s.log = append(s.log, rec)
	s.mu.Unlock()

	switch {
	case drop != dropNone:
		loopback.HangUp(w)
	case e != nil:
		e.write(w, call.API, pretty)
	default:
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
	}
}

// route says what r calls, or answers 404 (405 for a known path with
// another method).
func route(r *http.Request) (Call, *Error) {
	call := Call{Request: r}
	path := r.URL.Path
	if rest, ok := strings.CutPrefix(path, "/storage/v1/b/"); ok {
		call.API = Storage
		bucket, ok := strings.CutSuffix(rest, "/iam")
		if !ok || !validID(bucket) {
			return call, errNoRoute(http.StatusNotFound)
		}
		call.Resource = "projects/_/buckets/" + bucket
		switch r.Method {
		case http.MethodGet:
			call.Method = MethodGet
		case http.MethodPut:
			call.Method = MethodSet
		default:
			return call, errNoRoute(http.StatusMethodNotAllowed)
		}
		return call, nil
	}
	call.API = ResourceManager
	rest, ok := strings.CutPrefix(path, "/v3/")
	if !ok {
		return call, errNoRoute(http.StatusNotFound)
	}
	resource, method, ok := strings.Cut(rest, ":")
	if api, known := apiOf(resource); !ok || !known || api != ResourceManager || (method != MethodGet && method != MethodSet) {
		return call, errNoRoute(http.StatusNotFound)
	}
	call.Resource, call.Method = resource, method
	if r.Method != http.MethodPost {
		return call, errNoRoute(http.StatusMethodNotAllowed)
	}
	return call, nil
}

// authenticate checks r's bearer token.
func (s *Server) authenticate(r *http.Request, api API) *Error {
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return errUnauthenticated(api, true)
	}
	if s.cfg.tokenCheck != nil && s.cfg.tokenCheck(strings.TrimSpace(token)) != nil {
		return errUnauthenticated(api, false)
	}
	return nil
}

// serve answers an authenticated call with the policy's JSON, or an
// error.
func (s *Server) serve(r *http.Request, call Call) ([]byte, *Error) {
	body, e := s.readBody(r)
	if e != nil {
		return nil, e
	}
	pretty := r.URL.Query().Get("prettyPrint") != "false"
	switch {
	case call.API == ResourceManager && call.Method == MethodGet:
		return s.crmGet(call, body, pretty)
	case call.API == ResourceManager:
		return s.crmSet(call, body, pretty)
	case call.Method == MethodGet:
		return s.storageGet(call, pretty)
	default:
		return s.storageSet(call, body, pretty)
	}
}

func (s *Server) readBody(r *http.Request) ([]byte, *Error) {
	if r.Body == nil {
		return nil, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, s.cfg.maxBodyBytes+1))
	if err != nil {
		return nil, errInvalid("The request body could not be read.")
	}
	if int64(len(body)) > s.cfg.maxBodyBytes {
		return nil, errInvalid("The request body is too large.")
	}
	return body, nil
}

// Start serves the Server over plain HTTP on 127.0.0.1, on a free port.
// It panics when the Server is already started, or when it cannot listen,
// as httptest does.
func (s *Server) Start() { s.lb.Start() }

// URL returns the base URL of the started Server ("http://127.0.0.1:port"),
// or "" before Start. It is the endpoint of both APIs: a Resource Manager
// client takes URL()+"/", a Cloud Storage client URL()+"/storage/v1/".
func (s *Server) URL() string { return s.lb.URL() }

// Close stops serving and waits for requests in flight. It is safe to call
// more than once, and without Start.
func (s *Server) Close() { s.lb.Close() }
