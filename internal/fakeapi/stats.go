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
	"maps"
	"net/http"
	"strings"
)

// Bounds of Stats.Agents: the fake server counts at most maxAgents
// distinct clients, by names of at most maxAgentName bytes.
const (
	maxAgents    = 32
	maxAgentName = 64
	// AgentUnknown names, in Stats.Agents, requests without a usable
	// User-Agent.
	AgentUnknown = "unknown"
	// AgentOther names, in Stats.Agents, the clients past the first
	// maxAgents.
	AgentOther = "other"
)

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
	// Agents counts list requests by client and status code, the way
	// Requests counts them by method. A client is named by the product of
	// its User-Agent header (the text before the first "/" or space, for
	// example "listkeeper-etagclient" or "Go-http-client"): AgentUnknown
	// when there is none or it is longer than 64 bytes or holds other
	// than letters, digits, ".", "_" and "-"; AgentOther past the first 32
	// names. So tests can tell whose requests got which answers, such as
	// the 412s of the operator and those of another writer.
	Agents map[string]map[int]int64 `json:"agents"`
}

// Count returns the number of list requests with the given method and
// status code.
func (st Stats) Count(method string, code int) int64 {
	return st.Requests[method][code]
}

// CountAgent returns the number of list requests of the client agent (see
// Stats.Agents) answered with code.
func (st Stats) CountAgent(agent string, code int) int64 {
	return st.Agents[agent][code]
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
		Agents:   map[string]map[int]int64{},
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
		Agents:   make(map[string]map[int]int64, len(st.Agents)),
	}
	for m, byCode := range st.Requests {
		out.Requests[m] = maps.Clone(byCode)
	}
	for a, byCode := range st.Agents {
		out.Agents[a] = maps.Clone(byCode)
	}
	return out
}

// record counts one answered (or dropped, code 0) list request r.
func (s *Server) record(r *http.Request, code int) {
	agent := agentOf(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	count(s.stats.Requests, r.Method, code)
	if s.stats.Agents[agent] == nil && len(s.stats.Agents) >= maxAgents {
		agent = AgentOther
	}
	count(s.stats.Agents, agent, code)
	s.stats.Total++
}

// count adds one to m[key][code].
func count(m map[string]map[int]int64, key string, code int) {
	byCode := m[key]
	if byCode == nil {
		byCode = map[int]int64{}
		m[key] = byCode
	}
	byCode[code]++
}

// agentOf names the client of r for Stats.Agents: the product of its
// User-Agent, or AgentUnknown.
func agentOf(r *http.Request) string {
	ua := r.Header.Get("User-Agent")
	name := ua
	if i := strings.IndexAny(ua, "/ "); i >= 0 {
		name = ua[:i]
	}
	if name == "" || len(name) > maxAgentName || strings.TrimLeft(name, agentChars) != "" {
		return AgentUnknown
	}
	return name
}

// agentChars are the bytes a client name in Stats.Agents may hold.
const agentChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"

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
