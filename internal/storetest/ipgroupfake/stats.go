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

package ipgroupfake

import (
	"net/http"
	"slices"
)

// Record is one request the Server answered or dropped. It holds no
// token, secret or body.
type Record struct {
	// Operation is what the request called (OpGet, OpCreateOrUpdate,
	// OpOperationStatus, OpToken, OpOpenIDConfiguration, OpUnknown).
	Operation string
	// Method and Path are the request's HTTP method and URL path.
	Method, Path string
	// ResourceGroup and Group name the group of OpGet and
	// OpCreateOrUpdate.
	ResourceGroup, Group string
	// Status is the HTTP status code of the answer; 0 when the connection
	// was dropped without one.
	Status int
	// Code is the error code of the answer (ARM's, or Entra ID's OAuth
	// error), "" for a success.
	Code string
	// Dropped reports a request answered by closing the connection.
	Dropped bool
	// ClientID is the application the request's token was issued to (for
	// a token request, the client_id it named); "" when it had none.
	ClientID string
}

// Stats counts the requests of the log.
type Stats struct {
	// Requests counts requests by operation, then by status code (0 for
	// a dropped connection).
	Requests map[string]map[int]int64
	// Methods counts requests by HTTP method.
	Methods map[string]int64
	// Codes counts error answers by error code, across operations.
	Codes map[string]int64
	// Writes is the number of CreateOrUpdate requests accepted (whose
	// answer may have been dropped).
	Writes int64
	// Total is the number of requests.
	Total int64
}

// Count returns the number of requests of this operation answered with
// this status code.
func (st Stats) Count(op string, status int) int64 { return st.Requests[op][status] }

// Operations returns the number of requests of this operation, whatever
// their answer.
func (st Stats) Operations(op string) int64 {
	var n int64
	for _, c := range st.Requests[op] {
		n += c
	}
	return n
}

// Succeeded returns the number of requests of this operation answered 200
// or 201.
func (st Stats) Succeeded(op string) int64 {
	return st.Count(op, http.StatusOK) + st.Count(op, http.StatusCreated)
}

// CountCode returns the number of answers with this error code, across
// operations.
func (st Stats) CountCode(code string) int64 { return st.Codes[code] }

// PreconditionFailures returns the number of 412 answers.
func (st Stats) PreconditionFailures() int64 { return st.Codes[CodePreconditionFailed] }

// Conflicts returns the number of writes refused because an operation was
// in progress, in either form (BusyConflict, BusyRetryable).
func (st Stats) Conflicts() int64 {
	return st.Codes[CodeAnotherOperationInProgress] + st.Codes[CodeRetryableError]
}

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
	st := Stats{Requests: map[string]map[int]int64{}, Methods: map[string]int64{}, Codes: map[string]int64{}, Writes: s.writes}
	for _, r := range s.log {
		if st.Requests[r.Operation] == nil {
			st.Requests[r.Operation] = map[int]int64{}
		}
		st.Requests[r.Operation][r.Status]++
		st.Methods[r.Method]++
		if r.Code != "" {
			st.Codes[r.Code]++
		}
		st.Total++
	}
	return st
}

// ResetRequests empties the request log and the count of writes; the
// groups stay.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log, s.writes = nil, 0
}
