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
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestAgentOf(t *testing.T) {
	tests := []struct {
		ua, want string
	}{
		{"listkeeper-etagclient/1", "listkeeper-etagclient"},
		{"Go-http-client/1.1", "Go-http-client"},
		{"curl/8.5.0 extra", "curl"},
		{"demo outside writer", "demo"},
		{"plain", "plain"},
		{"", AgentUnknown},
		{"/1.0", AgentUnknown},
		{"bad$name/1", AgentUnknown},
		{"Bearer\tsecret/1", AgentUnknown},
		{strings.Repeat("a", 65) + "/1", AgentUnknown},
		{strings.Repeat("a", 64) + "/1", strings.Repeat("a", 64)},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/l", nil)
		r.Header.Set("User-Agent", tt.ua)
		if tt.ua == "" {
			r.Header.Del("User-Agent")
		}
		if got := agentOf(r); got != tt.want {
			t.Errorf("agentOf(%q) = %q, want %q", tt.ua, got, tt.want)
		}
	}
}

// TestAgentsBounded checks that a client cannot grow Stats.Agents without
// bound by sending new User-Agents.
func TestAgentsBounded(t *testing.T) {
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for i := range maxAgents + 10 {
		r := httptest.NewRequest("GET", "/l", nil)
		r.Header.Set("User-Agent", fmt.Sprintf("client%d/1", i))
		s.record(r, 200)
	}
	st := s.Stats()
	if len(st.Agents) != maxAgents+1 || st.CountAgent(AgentOther, 200) != 10 || st.CountAgent("client0", 200) != 1 {
		t.Errorf("%d agents, %d other; want %d named and 10 other", len(st.Agents), st.CountAgent(AgentOther, 200), maxAgents)
	}
	if st.Total != maxAgents+10 || st.Count("GET", 200) != maxAgents+10 {
		t.Errorf("Total %d, GET 200 %d; want %d", st.Total, st.Count("GET", 200), maxAgents+10)
	}
}
