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
	"context"
	"net/http"
)

// holdsLatency reports whether r is a write that takes its injected latency
// while it holds its path's write marker, rather than before it is
// processed: a conditional PUT under a profile with overlapConflict. The
// latency then stands for the time the write is in progress, so that
// overlapping writes really overlap.
func (s *Server) holdsLatency(r *http.Request) bool {
	return s.b.overlapConflict && r.Method == http.MethodPut &&
		(len(r.Header.Values("If-Match")) > 0 || len(r.Header.Values("If-None-Match")) > 0)
}

// beginWrite marks a write in progress at r's path and takes lat while
// the mark is held. When another write holds the mark it marks nothing and
// returns 409 and false; when ctx ends during lat (the client went away)
// it removes the mark and returns an abandoned answer and false. Otherwise the caller
// must remove the mark with endWriteLocked under the same hold of s.mu
// that commits the write.
func (s *Server) beginWrite(ctx context.Context, r *http.Request, lat *latency) (response, bool) {
	path := r.URL.Path
	s.mu.Lock()
	busy := s.writing[path]
	s.writing[path] = true
	s.mu.Unlock()
	if busy {
		return s.fail(r, http.StatusConflict, "", "a conflicting conditional write to "+path+" is in progress"), false
	}
	if !lat.take(ctx) {
		s.mu.Lock()
		s.endWriteLocked(path)
		s.mu.Unlock()
		return response{abandoned: true}, false
	}
	return response{}, true
}

// endWriteLocked removes the mark of beginWrite. s.mu must be held.
func (s *Server) endWriteLocked(path string) {
	delete(s.writing, path)
}
