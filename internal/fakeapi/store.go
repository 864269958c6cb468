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
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// commitLocked stores a new version at path (a deletion when deleted is
// true) under the next sequence number: it persists the result first, then
// swaps it in memory and records it in the history. On error nothing
// changes in memory, but the sequence number stays consumed, so an ETag is
// never handed out twice even if the failed write reached the disk. body
// must be valid JSON owned by the Server. s.mu must be held.
func (s *Server) commitLocked(path string, body []byte, deleted bool) (*document, error) {
	s.seq++
	d := &document{body: body, opaque: s.newOpaque(s.seq, body), seq: s.seq, generation: s.nextGenerationLocked(), written: s.cfg.now()}
	next := d
	if deleted {
		next, d.body = nil, nil
	}
	if err := s.persistLocked(path, next); err != nil {
		return nil, err
	}
	if deleted {
		delete(s.docs, path)
	} else {
		s.docs[path] = d
	}
	s.appendHistoryLocked(path, d, deleted)
	return d, nil
}

// checkPath rejects paths that can never be list documents.
func checkPath(path string) error {
	if !strings.HasPrefix(path, "/") {
		return fmt.Errorf("path %q must start with /", path)
	}
	if strings.HasPrefix(path, AdminPrefix) {
		return fmt.Errorf("path %q is reserved for the server's own routes", path)
	}
	return nil
}

// Set stores body as the document at path, unconditionally, as a new
// version, and returns its strong ETag, quoted, in the profile's form (for
// example "v3-1f2e3d4c5b6a7988" under ProfileStrict). It is for tests and for seeding; it is not
// counted in Stats, but it is recorded in the history and the state file.
func (s *Server) Set(path string, body []byte) (etag string, err error) {
	if err := checkPath(path); err != nil {
		return "", fmt.Errorf("fakeapi: set: %w", err)
	}
	if !json.Valid(body) {
		return "", fmt.Errorf("fakeapi: set %s: body is not valid JSON", path)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d, err := s.commitLocked(path, bytes.Clone(body), false)
	if err != nil {
		return "", fmt.Errorf("fakeapi: set %s: %w", path, err)
	}
	return quote(d.opaque), nil
}

// Get returns a copy of the document at path and its strong ETag, quoted.
// ok is false when there is no document. Whatever the ETagMode or profile,
// the tag returned is the strong one the Server compares If-Match against
// (under ProfileWebDAV, If-Match matches it only once the document is
// older than the weak window).
func (s *Server) Get(path string) (body []byte, etag string, ok bool) {
	s.mu.Lock()
	d := s.docs[path]
	s.mu.Unlock()
	if d == nil {
		return nil, "", false
	}
	return bytes.Clone(d.body), quote(d.opaque), true
}

// Generation returns the generation of the document at path, the number
// ProfileGCS serves as x-goog-generation and compares
// x-goog-if-generation-match against. Every profile assigns generations;
// only gcs serves them. ok is false when there is no document.
func (s *Server) Generation(path string) (generation int64, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.docs[path]
	if d == nil {
		return 0, false
	}
	return d.generation, true
}

// Delete removes the document at path, unconditionally. Removing a missing
// document is not an error. Like Set, it is recorded in the history and the
// state file but not counted in Stats.
func (s *Server) Delete(path string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.docs[path] == nil {
		return nil
	}
	if _, err := s.commitLocked(path, nil, true); err != nil {
		return fmt.Errorf("fakeapi: delete %s: %w", path, err)
	}
	return nil
}

// Paths returns the paths that hold a document, sorted.
func (s *Server) Paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	paths := make([]string, 0, len(s.docs))
	for p := range s.docs {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return paths
}
