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
	"time"
)

// allowedMethods is the Allow header of a 405 on a list path.
const allowedMethods = "GET, HEAD, PUT, DELETE"

// handle processes a list request that got no fault before processing and
// returns its answer without writing it. lat is the request's injected
// latency, for a write that must take it while it holds a marker; hold,
// when positive, is how long a write is held before its preconditions are
// evaluated (FaultHoldWrite).
func (s *Server) handle(w http.ResponseWriter, r *http.Request, lat *latency, hold time.Duration) response {
	if s.b.slashRedirect {
		if resp, ok := s.redirectSlash(r); ok {
			return resp
		}
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		return s.handleGet(r)
	case http.MethodPut:
		return s.handlePut(w, r, lat, hold)
	case http.MethodDelete:
		return s.handleDelete(r, hold)
	default:
		resp := s.fail(r, http.StatusMethodNotAllowed, "", "method "+r.Method+" not allowed")
		resp.header.Set("Allow", allowedMethods)
		return resp
	}
}

// current returns the state of d (nil when there is no document) that
// preconditions are evaluated against.
func (s *Server) current(d *document) current {
	if d == nil {
		return current{}
	}
	return current{exists: true, opaque: d.opaque, weak: s.cfg.etagMode == ETagWeak || s.freshWeak(d), generation: d.generation}
}

// conditions parses the conditional headers of r. Under deflate, an
// If-None-Match tag compares without its "-gzip" suffix. Under
// generations, a write's If-Match and If-None-Match are not even parsed
// (GCS applies them to reads only), and the x-goog-if-generation-match
// and x-goog-if-metageneration-match of every method are.
func (s *Server) conditions(r *http.Request) (conditions, error) {
	var c conditions
	if !s.b.generations || isSafe(r.Method) {
		var err error
		if c, err = parseConditions(r.Header); err != nil {
			return conditions{}, err
		}
		if s.b.deflate {
			c.ifNoneMatch = c.ifNoneMatch.withoutSuffix(gzipSuffix)
		}
	}
	if s.b.generations {
		var err error
		if c.ifGeneration, err = parseGenerationMatch(r.Header, HeaderIfGenerationMatch); err != nil {
			return conditions{}, err
		}
		if c.ifMetageneration, err = parseGenerationMatch(r.Header, HeaderIfMetagenerationMatch); err != nil {
			return conditions{}, err
		}
	}
	return c, nil
}

// isSafe reports whether method only reads.
func isSafe(method string) bool {
	return method == http.MethodGet || method == http.MethodHead
}

func (s *Server) handleGet(r *http.Request) response {
	c, err := s.conditions(r)
	if err != nil {
		return s.fail(r, http.StatusBadRequest, "", err.Error())
	}
	s.mu.Lock()
	cur := s.docs[r.URL.Path]
	s.mu.Unlock()
	if cur == nil {
		return s.fail(r, http.StatusNotFound, "", "no document at "+r.URL.Path)
	}
	rep := s.represent(r, cur)
	switch v := c.evaluate(s.current(cur), true); v {
	case proceed:
		return rep.ok()
	case notModified:
		return rep.notModified(s.b.etagOn304)
	default:
		return s.failPrecondition(r, v)
	}
}

func (s *Server) handlePut(w http.ResponseWriter, r *http.Request, lat *latency, hold time.Duration) response {
	path := r.URL.Path
	c, err := s.conditions(r)
	if err != nil {
		return s.fail(r, http.StatusBadRequest, "", err.Error())
	}
	if s.b.blobType {
		if resp, ok := s.checkBlobType(r); !ok {
			return resp
		}
	}
	if s.requires428() && !c.ifMatch.present && !c.ifNoneMatch.any {
		return s.fail(r, http.StatusPreconditionRequired, "", "PUT needs If-Match, or If-None-Match: * to create")
	}
	if ct := r.Header.Get("Content-Type"); ct != "" && !isJSONMediaType(ct) {
		return s.fail(r, http.StatusUnsupportedMediaType, "", "Content-Type must be application/json, got "+ct)
	}
	body, resp, ok := s.readBody(w, r)
	if !ok {
		return resp
	}
	if !json.Valid(body) {
		return s.fail(r, http.StatusBadRequest, "", "body is not valid JSON")
	}
	ctx := holdWrite(r, hold)
	marked := s.holdsLatency(r)
	if marked {
		if resp, ok := s.beginWrite(ctx, r, lat); !ok {
			return resp
		}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if marked {
		s.endWriteLocked(path)
	}
	cur := s.docs[path]
	if v := c.evaluate(s.current(cur), false); v != proceed {
		return s.failPrecondition(r, v)
	}
	next, err := s.commitLocked(path, body, false)
	if err != nil {
		return s.fail(r, http.StatusInternalServerError, "", err.Error())
	}
	s.stats.Commits++
	answer := s.putAnswer(r, cur == nil, next)
	if s.b.generations {
		addHeaders(answer.header, googHeaders(next))
	}
	return answer
}

func (s *Server) handleDelete(r *http.Request, hold time.Duration) response {
	path := r.URL.Path
	c, err := s.conditions(r)
	if err != nil {
		return s.fail(r, http.StatusBadRequest, "", err.Error())
	}
	if s.requires428() && !c.ifMatch.present {
		return s.fail(r, http.StatusPreconditionRequired, "", "DELETE needs If-Match")
	}
	holdWrite(r, hold)

	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.docs[path]
	if cur == nil {
		return s.fail(r, http.StatusNotFound, "", "no document at "+path)
	}
	if v := c.evaluate(s.current(cur), false); v != proceed {
		return s.failPrecondition(r, v)
	}
	if _, err := s.commitLocked(path, nil, true); err != nil {
		return s.fail(r, http.StatusInternalServerError, "", err.Error())
	}
	s.stats.Commits++
	return response{code: http.StatusNoContent}
}

// requires428 reports whether a write without a precondition gets 428.
func (s *Server) requires428() bool {
	return s.cfg.requireIfMatch && s.b.require428
}

// readBody reads the whole PUT body within the size limit. On failure it
// returns the answer to give (413 or 400) and false.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, response, bool) {
	limit := s.cfg.maxBodyBytes
	tooLarge := fmt.Sprintf("body exceeds %d bytes", limit)
	if r.ContentLength > limit {
		return nil, s.fail(r, http.StatusRequestEntityTooLarge, "", tooLarge), false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return nil, s.fail(r, http.StatusRequestEntityTooLarge, "", tooLarge), false
	case err != nil:
		return nil, s.fail(r, http.StatusBadRequest, "", "read body: "+err.Error()), false
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
