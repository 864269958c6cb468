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

import "maps"

// Stats counts what a Server has done with list requests since it was
// built or since the last ResetStats. Requests to /_fakeapi/ routes are not
// counted.
type Stats struct {
	// Requests counts list requests by method and status code. Code 0
	// counts requests that got no answer: the connection was dropped by a
	// fault, or the client went away during injected latency.
	Requests map[string]map[int]int64 `json:"requests"`
	// Total is the number of list requests, the sum of Requests.
	Total int64 `json:"total"`
	// Faults counts injected faults by kind.
	Faults map[FaultKind]int64 `json:"faults"`
	// Commits counts versions committed by PUT and DELETE requests,
	// including those whose answer was then dropped by
	// FaultCommitThenDrop. Writes through Set and Delete are not counted.
	Commits int64 `json:"commits"`
}

// Count returns the number of list requests with the given method and
// status code.
func (st Stats) Count(method string, code int) int64 {
	return st.Requests[method][code]
}

// CountCode returns the number of list requests answered with code, across
// all methods.
func (st Stats) CountCode(code int) int64 {
	var n int64
	for _, byCode := range st.Requests {
		n += byCode[code]
	}
	return n
}

func newStats() Stats {
	return Stats{
		Requests: map[string]map[int]int64{},
		Faults:   map[FaultKind]int64{},
	}
}

// clone returns a deep copy, so that callers never share maps with the
// Server.
func (st Stats) clone() Stats {
	out := Stats{
		Requests: make(map[string]map[int]int64, len(st.Requests)),
		Total:    st.Total,
		Faults:   maps.Clone(st.Faults),
		Commits:  st.Commits,
	}
	for m, byCode := range st.Requests {
		out.Requests[m] = maps.Clone(byCode)
	}
	return out
}

// recordLocked counts one answered (or dropped, code 0) list request.
// s.mu must be held.
func (s *Server) recordLocked(method string, code int) {
	byCode := s.stats.Requests[method]
	if byCode == nil {
		byCode = map[int]int64{}
		s.stats.Requests[method] = byCode
	}
	byCode[code]++
	s.stats.Total++
}

// record is recordLocked taking the lock.
func (s *Server) record(method string, code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recordLocked(method, code)
}

// Stats returns a snapshot of the counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats.clone()
}

// ResetStats sets every counter to zero. It does not touch documents or
// history.
func (s *Server) ResetStats() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats = newStats()
}
