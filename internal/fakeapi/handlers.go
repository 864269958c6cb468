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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
)

// allowedMethods is the Allow header of a 405 on a list path.
const allowedMethods = "GET, HEAD, PUT, DELETE"

// handle processes a list request that got no fault before processing and
// returns its answer without writing it.
func (s *Server) handle(w http.ResponseWriter, r *http.Request) response {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		return s.handleGet(r)
	case http.MethodPut:
		return s.handlePut(w, r)
	case http.MethodDelete:
		return s.handleDelete(r)
	default:
		resp := errorResponse(http.StatusMethodNotAllowed, "method "+r.Method+" not allowed")
		resp.header.Set("Allow", allowedMethods)
		return resp
	}
}

// conditions are the parsed conditional headers of a request.
type conditions struct {
	ifMatch     etagList
	ifNoneMatch etagList
}

func parseConditions(h http.Header) (conditions, error) {
	im, err := parseETagList(h.Values("If-Match"))
	if err != nil {
		return conditions{}, fmt.Errorf("If-Match: %w", err)
	}
	inm, err := parseETagList(h.Values("If-None-Match"))
	if err != nil {
		return conditions{}, fmt.Errorf("If-None-Match: %w", err)
	}
	if !inm.any && len(inm.tags) == 0 {
		// An empty If-None-Match list matches nothing, so it can never
		// block the request: it is as good as absent. An empty If-Match
		// stays present and fails, because it matches nothing either.
		inm = etagList{}
	}
	return conditions{ifMatch: im, ifNoneMatch: inm}, nil
}

// evaluate applies RFC 9110 section 13.2.2 to the current document (nil
// when there is none): it returns 0 when the request may proceed, else 412,
// or 304 for a GET or HEAD whose If-None-Match matched.
func (c conditions) evaluate(cur *document, mode ETagMode, safe bool) int {
	exists := cur != nil
	var opaque string
	if exists {
		opaque = cur.opaque
	}
	if c.ifMatch.present && !c.ifMatch.matchStrong(exists, opaque, mode == ETagWeak) {
		return http.StatusPreconditionFailed
	}
	if c.ifNoneMatch.present && c.ifNoneMatch.matchWeak(exists, opaque) {
		if safe {
			return http.StatusNotModified
		}
		return http.StatusPreconditionFailed
	}
	return 0
}

// withETag returns resp with the ETag header of d, unless the mode serves
// none.
func (s *Server) withETag(resp response, d *document) response {
	if resp.header == nil {
		resp.header = http.Header{}
	}
	if v := s.cfg.etagMode.header(d.opaque); v != "" {
		resp.header.Set("ETag", v)
	}
	return resp
}

func (s *Server) handleGet(r *http.Request) response {
	c, err := parseConditions(r.Header)
	if err != nil {
		return errorResponse(http.StatusBadRequest, err.Error())
	}
	s.mu.Lock()
	cur := s.docs[r.URL.Path]
	s.mu.Unlock()
	if cur == nil {
		return errorResponse(http.StatusNotFound, "no document at "+r.URL.Path)
	}
	switch code := c.evaluate(cur, s.cfg.etagMode, true); code {
	case 0:
	case http.StatusNotModified:
		return s.withETag(response{code: code}, cur)
	default:
		return errorResponse(code, "precondition failed")
	}
	return s.withETag(response{code: http.StatusOK, contentType: "application/json", body: cur.body}, cur)
}

func (s *Server) handlePut(w http.ResponseWriter, r *http.Request) response {
	path := r.URL.Path
	c, err := parseConditions(r.Header)
	if err != nil {
		return errorResponse(http.StatusBadRequest, err.Error())
	}
	if s.cfg.requireIfMatch && !c.ifMatch.present && !c.ifNoneMatch.any {
		return errorResponse(http.StatusPreconditionRequired, "PUT needs If-Match, or If-None-Match: * to create")
	}
	if ct := r.Header.Get("Content-Type"); ct != "" && !isJSONMediaType(ct) {
		return errorResponse(http.StatusUnsupportedMediaType, "Content-Type must be application/json, got "+ct)
	}
	body, resp, ok := s.readBody(w, r)
	if !ok {
		return resp
	}
	if !json.Valid(body) {
		return errorResponse(http.StatusBadRequest, "body is not valid JSON")
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.docs[path]
	if code := c.evaluate(cur, s.cfg.etagMode, false); code != 0 {
		return errorResponse(code, "precondition failed")
	}
	next, err := s.commitLocked(path, body, false)
	if err != nil {
		return errorResponse(http.StatusInternalServerError, err.Error())
	}
	s.stats.Commits++

	resp = response{code: http.StatusOK, header: http.Header{}}
	if cur == nil {
		resp.code = http.StatusCreated
		resp.header.Set("Location", path)
	}
	switch {
	case s.cfg.echoBody:
		resp.contentType, resp.body = "application/json", next.body
	case cur != nil:
		resp.code = http.StatusNoContent
	}
	return s.withETag(resp, next)
}

func (s *Server) handleDelete(r *http.Request) response {
	path := r.URL.Path
	c, err := parseConditions(r.Header)
	if err != nil {
		return errorResponse(http.StatusBadRequest, err.Error())
	}
	if s.cfg.requireIfMatch && !c.ifMatch.present {
		return errorResponse(http.StatusPreconditionRequired, "DELETE needs If-Match")
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.docs[path]
	if cur == nil {
		return errorResponse(http.StatusNotFound, "no document at "+path)
	}
	if code := c.evaluate(cur, s.cfg.etagMode, false); code != 0 {
		return errorResponse(code, "precondition failed")
	}
	if _, err := s.commitLocked(path, nil, true); err != nil {
		return errorResponse(http.StatusInternalServerError, err.Error())
	}
	s.stats.Commits++
	return response{code: http.StatusNoContent}
}

// readBody reads the whole PUT body within the size limit. On failure it
// returns the answer to give (413 or 400) and false.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, response, bool) {
	limit := s.cfg.maxBodyBytes
	tooLarge := errorResponse(http.StatusRequestEntityTooLarge, fmt.Sprintf("body exceeds %d bytes", limit))
	if r.ContentLength > limit {
		return nil, tooLarge, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return nil, tooLarge, false
	case err != nil:
		return nil, errorResponse(http.StatusBadRequest, "read body: "+err.Error()), false
	}
	return body, response{}, true
}

// isJSONMediaType reports whether a Content-Type names JSON:
// application/json or any type with the +json suffix.
func isJSONMediaType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}
