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

import "slices"

// Record is one request the Server answered or dropped.
type Record struct {
	// API and Method say what was called ("" Method for a path the Server
	// does not serve).
	API    API
	Method string
	// Resource is the resource's name, when the path named one.
	Resource string
	// Status is the HTTP status of the answer; 0 when the connection was
	// closed without one (DropConnection, DropAnswer).
	Status int
	// Word is the error's status name (Resource Manager: ABORTED,
	// INVALID_ARGUMENT, ...) or reason (Cloud Storage: conditionNotMet,
	// notFound, ...); "" for a success.
	Word string
	// Dropped reports a request answered by closing the connection
	// (DropConnection, DropAnswer).
	Dropped bool
}

// Stats counts requests by method and status.
type Stats struct {
	// Requests counts requests by method, then by HTTP status (0 for a
	// dropped connection).
	Requests map[string]map[int]int64
	// Total is the number of requests.
	Total int64
	// Commits counts setIamPolicy calls that changed a policy.
	Commits int64
}

// Count returns the number of requests of method answered with status.
func (st Stats) Count(method string, status int) int64 { return st.Requests[method][status] }

// Requests returns the log of answered requests, oldest first. The log is
// kept in memory and never trimmed: it is meant for tests.
func (s *Server) Requests() []Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

// Stats counts the requests of the log.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Stats{Requests: map[string]map[int]int64{}, Commits: s.commits}
	for _, r := range s.log {
		if st.Requests[r.Method] == nil {
			st.Requests[r.Method] = map[int]int64{}
		}
		st.Requests[r.Method][r.Status]++
		st.Total++
	}
	return st
}

// ResetRequests empties the request log; the policies stay.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = nil
}
