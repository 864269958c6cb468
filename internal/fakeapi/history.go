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
	"cmp"
	"encoding/json"
	"slices"
	"time"
)

// Version is one committed version of a document, as recorded when the
// Server was built WithHistory(true).
type Version struct {
	// Seq is the server-wide commit sequence number; it grows by one with
	// every commit to any path.
	Seq uint64 `json:"seq"`
	// ETag is the strong entity tag of the version, quoted, as a client
	// sends it in If-Match (for example "v3-1f2e3d4c5b6a7988"). For a
	// deletion it is the tag the deletion consumed and no document carries.
	ETag string `json:"etag"`
	// Generation is the version's generation (see Server.Generation); for
	// a deletion, the one the deletion consumed.
	Generation int64 `json:"generation"`
	// Time is when the version was committed.
	Time time.Time `json:"time"`
	// Body is the document exactly as stored; nil for a deletion.
	Body json.RawMessage `json:"body"`
	// Deleted is true when the version removed the document.
	Deleted bool `json:"deleted,omitempty"`
}

// History returns the committed versions of the document at path, oldest
// first. It returns nil when history is off or nothing was committed there.
// The returned slice and bodies are copies.
func (s *Server) History(path string) []Version {
	s.mu.Lock()
	defer s.mu.Unlock()
	src := s.history[path]
	if len(src) == 0 {
		return nil
	}
	out := make([]Version, len(src))
	for i, v := range src {
		v.Body = bytes.Clone(v.Body)
		out[i] = v
	}
	return out
}

// recordLoadedLocked records, when history is on, every document loaded
// from the state file that knows when it was committed, in commit order.
// It runs in New, before the Server is shared.
func (s *Server) recordLoadedLocked() {
	paths := make([]string, 0, len(s.docs))
	for p, d := range s.docs {
		if !d.written.IsZero() {
			paths = append(paths, p)
		}
	}
	slices.SortFunc(paths, func(a, b string) int { return cmp.Compare(s.docs[a].seq, s.docs[b].seq) })
	for _, p := range paths {
		s.appendHistoryLocked(p, s.docs[p], false)
	}
}

// appendHistoryLocked records a committed version when history is on.
// s.mu must be held.
func (s *Server) appendHistoryLocked(path string, d *document, deleted bool) {
	if !s.cfg.history {
		return
	}
	s.history[path] = append(s.history[path], Version{
		Seq:        d.seq,
		ETag:       quote(d.opaque),
		Generation: d.generation,
		Time:       d.written,
		Body:       d.body,
		Deleted:    deleted,
	})
}
