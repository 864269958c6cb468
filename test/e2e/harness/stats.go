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

package harness

import (
	"maps"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// AddStats returns the sum of two sets of fake server counters.
func AddStats(a, b fakeapi.Stats) fakeapi.Stats {
	out := fakeapi.Stats{
		Requests: map[string]map[int]int64{},
		Agents:   map[string]map[int]int64{},
		Faults:   maps.Clone(a.Faults),
		Total:    a.Total + b.Total,
		Commits:  a.Commits + b.Commits,
	}
	if out.Faults == nil {
		out.Faults = map[fakeapi.FaultKind]int64{}
	}
	for k, n := range b.Faults {
		out.Faults[k] += n
	}
	for _, st := range []fakeapi.Stats{a, b} {
		addCounts(out.Requests, st.Requests, 1)
		addCounts(out.Agents, st.Agents, 1)
	}
	return out
}

// SubStats returns a - b, the counts between two reads.
func SubStats(a, b fakeapi.Stats) fakeapi.Stats {
	neg := fakeapi.Stats{Requests: map[string]map[int]int64{}, Agents: map[string]map[int]int64{},
		Faults: map[fakeapi.FaultKind]int64{}, Total: -b.Total, Commits: -b.Commits}
	for k, n := range b.Faults {
		neg.Faults[k] = -n
	}
	addCounts(neg.Requests, b.Requests, -1)
	addCounts(neg.Agents, b.Agents, -1)
	return AddStats(a, neg)
}

// addCounts adds sign times every count of from to into.
func addCounts(into, from map[string]map[int]int64, sign int64) {
	for key, byCode := range from {
		if into[key] == nil {
			into[key] = map[int]int64{}
		}
		for code, n := range byCode {
			into[key][code] += sign * n
		}
	}
}
