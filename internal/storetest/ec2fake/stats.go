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

package ec2fake

import (
	"net/http"
	"slices"
)

// Record is one request the Server answered or dropped. It holds no
// secret: not the signature, not the session token, not a message that
// could echo one.
type Record struct {
	// Action is the Action parameter of the request (ActionGetManagedPrefixListEntries, ...).
	Action string
	// PrefixListID is the PrefixListId parameter, "" when there is none.
	PrefixListID string
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

// Stats counts requests by action, status and error code.
type Stats struct {
	// Requests counts requests by action, then by status code (0 for a
	// dropped connection).
	Requests map[string]map[int]int64
	// Codes counts error answers by error code, across actions.
	Codes map[string]int64
	// Total is the number of requests.
	Total int64
	// ForeignModifies counts the changes made by Server.ModifyEntries,
	// which are not requests.
	ForeignModifies int64
}

// Count returns the number of requests of this action answered with this
// status code.
func (st Stats) Count(action string, status int) int64 {
	return st.Requests[action][status]
}

// Actions returns the number of requests of this action, whatever their
// answer.
func (st Stats) Actions(action string) int64 {
	var n int64
	for _, c := range st.Requests[action] {
		n += c
	}
	return n
}

// Succeeded returns the number of requests of this action answered 200.
func (st Stats) Succeeded(action string) int64 { return st.Count(action, http.StatusOK) }

// CountCode returns the number of requests answered with this error code
// (such as "RequestLimitExceeded"), across actions.
func (st Stats) CountCode(code string) int64 { return st.Codes[code] }

// Modifies returns the number of ModifyManagedPrefixList requests that
// were answered 200 (a DropAnswer modification landed, but is not
// counted here: its answer was lost).
func (st Stats) Modifies() int64 { return st.Succeeded(ActionModifyManagedPrefixList) }

// VersionMismatches returns the number of answers
// PrefixListVersionMismatch: modifications with a stale CurrentVersion.
func (st Stats) VersionMismatches() int64 { return st.CountCode("PrefixListVersionMismatch") }

// IncorrectStates returns the number of answers IncorrectState:
// modifications that met a list in progress.
func (st Stats) IncorrectStates() int64 { return st.CountCode("IncorrectState") }

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
	st := Stats{Requests: map[string]map[int]int64{}, Codes: map[string]int64{}, ForeignModifies: s.foreignModifies}
	for _, r := range s.log {
		if st.Requests[r.Action] == nil {
			st.Requests[r.Action] = map[int]int64{}
		}
		st.Requests[r.Action][r.Status]++
		if r.Code != "" {
			st.Codes[r.Code]++
		}
		st.Total++
	}
	return st
}

// ResetRequests empties the request log and the count of foreign
// modifications; the lists stay.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = nil
	s.foreignModifies = 0
}
