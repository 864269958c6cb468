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

package wafv2fake

import (
	"net/http"
	"slices"
)

// Record is one request the Server answered or dropped.
type Record struct {
	// Operation is the X-Amz-Target after TargetPrefix (OpGetIPSet, ...),
	// as the request named it.
	Operation string
	// Status is the HTTP status code of the answer; 0 when the connection
	// was dropped without one.
	Status int
	// Code is the error code of the answer, "" for a success.
	Code string
	// Dropped reports a request answered by closing the connection
	// (DropConnection, DropAnswer).
	Dropped bool
	// AccessKeyID is the access key the request claimed, "" when it was
	// unsigned or too malformed to tell; it is set also when the request
	// was refused.
	AccessKeyID string
}

// Stats counts requests by operation, status and error code.
type Stats struct {
	// Requests counts requests by operation, then by status code (0 for
	// a dropped connection).
	Requests map[string]map[int]int64
	// Codes counts error answers by error code, across operations.
	Codes map[string]int64
	// Total is the number of requests.
	Total int64
}

// Count returns the number of requests of this operation answered with
// this status code.
func (st Stats) Count(op string, code int) int64 {
	return st.Requests[op][code]
}

// Operations returns the number of requests of this operation, whatever
// their answer.
func (st Stats) Operations(op string) int64 {
	var n int64
	for _, c := range st.Requests[op] {
		n += c
	}
	return n
}

// Succeeded returns the number of requests of this operation answered
// 200.
func (st Stats) Succeeded(op string) int64 { return st.Count(op, http.StatusOK) }

// CountCode returns the number of requests answered with this error code
// (such as "WAFOptimisticLockException"), across operations.
func (st Stats) CountCode(code string) int64 { return st.Codes[code] }

// Requests returns the log of requests, oldest first. The log is kept in
// memory and never trimmed: it is meant for tests.
func (s *Server) Requests() []Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

// Stats counts the requests of the log.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Stats{Requests: map[string]map[int]int64{}, Codes: map[string]int64{}}
	for _, r := range s.log {
		if st.Requests[r.Operation] == nil {
			st.Requests[r.Operation] = map[int]int64{}
		}
		st.Requests[r.Operation][r.Status]++
		if r.Code != "" {
			st.Codes[r.Code]++
		}
		st.Total++
	}
	return st
}

// ResetRequests empties the request log; the sets stay.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = nil
}
