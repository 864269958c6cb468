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

package main

import (
	"encoding/json"
	"math"
	"slices"
	"time"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

// version is one committed version of a list document: when the fake
// server committed it, and its items.
type version struct {
	at    time.Time
	items []string
}

// versionsOf decodes a document's history; deletions and bodies that are
// not a document with /items are left out.
func versionsOf(h []fakeapi.Version) []version {
	out := make([]version, 0, len(h))
	for _, v := range h {
		var doc harness.Document
		if v.Deleted || json.Unmarshal(v.Body, &doc) != nil {
			continue
		}
		out = append(out, version{at: v.Time, items: doc.Items})
	}
	return out
}

// firstDone returns when the first version at or after since whose items
// satisfy done was committed.
func firstDone(versions []version, since time.Time, done func([]string) bool) (time.Time, bool) {
	for _, v := range versions {
		if !v.at.Before(since) && done(v.items) {
			return v.at, true
		}
	}
	return time.Time{}, false
}

// idLatencies measures, for each ID of calls, the time from calls[id] (when
// the API call that created or deleted its entry returned) to the first
// version of the document, committed at or after since, that holds the ID
// (adding) or no longer holds it (removing). A commit that came before the
// call returned counts as 0. IDs that no version settles are returned in
// unsettled, sorted.
func idLatencies(versions []version, since time.Time, calls map[string]time.Time, adding bool) (lat []time.Duration, unsettled []string) {
	pending := make(map[string]time.Time, len(calls))
	for id, at := range calls {
		pending[id] = at
	}
	settle := func(id string, at time.Time) {
		lat = append(lat, max(at.Sub(pending[id]), 0))
		delete(pending, id)
	}
	for _, v := range versions {
		if v.at.Before(since) || len(pending) == 0 {
			continue
		}
		if adding {
			for _, id := range v.items {
				if _, ok := pending[id]; ok {
					settle(id, v.at)
				}
			}
			continue
		}
		on := make(map[string]bool, len(v.items))
		for _, id := range v.items {
			on[id] = true
		}
		for id := range pending {
			if !on[id] {
				settle(id, v.at)
			}
		}
	}
	for id := range pending {
		unsettled = append(unsettled, id)
	}
	slices.Sort(unsettled)
	return lat, unsettled
}

// latencyFigures summarize per-ID latencies, in seconds.
type latencyFigures struct {
	// IDs is how many IDs were measured; Unsettled how many no version
	// settled (the phase then failed).
	IDs       int     `json:"ids"`
	Unsettled int     `json:"unsettled"`
	P50       float64 `json:"p50Seconds"`
	P99       float64 `json:"p99Seconds"`
	Max       float64 `json:"maxSeconds"`
}

// latencyOf summarizes lat.
func latencyOf(lat []time.Duration, unsettled int) latencyFigures {
	s := slices.Clone(lat)
	slices.Sort(s)
	f := latencyFigures{IDs: len(s), Unsettled: unsettled}
	if len(s) > 0 {
		f.P50, f.P99, f.Max = percentile(s, 50).Seconds(), percentile(s, 99).Seconds(), s[len(s)-1].Seconds()
	}
	return f
}

// percentile is the nearest-rank p-th percentile of sorted, which must not
// be empty: the smallest value that at least p percent of the values do not
// exceed.
func percentile(sorted []time.Duration, p float64) time.Duration {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}
