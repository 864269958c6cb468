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

package bench

import (
	"fmt"
	"slices"
	"strings"
)

// PolicySummary aggregates the repeats of one policy at one sweep point.
type PolicySummary struct {
	Point
	Policy  string `json:"policy"`
	Repeats int    `json:"repeats"`
	// Medians over the repeats.
	ReqPerChange float64 `json:"reqPerChange"`
	P99Ms        float64 `json:"p99Ms"`
	WallSec      float64 `json:"wallSec"`
	AvgBatch     float64 `json:"avgBatch"`
	Status412    float64 `json:"status412"`
	// Worst over the repeats.
	WorstReplicaP99Ms float64 `json:"worstReplicaP99Ms"`
	WorstSpreadSec    float64 `json:"worstSpreadSec"`
	MaxP99Ms          float64 `json:"maxP99Ms"`
	MaxWallSec        float64 `json:"maxWallSec"`
	// Totals over the repeats.
	Lost     int `json:"lost"`
	GivenUp  int `json:"givenUp"`
	TimedOut int `json:"timedOut"`
	// TargetsMet counts the headline targets met by every repeat, of
	// TargetsTotal.
	TargetsMet   int `json:"targetsMet"`
	TargetsTotal int `json:"targetsTotal"`
}

// SummarizeSweep groups the sweep by point and policy, in run order.
func SummarizeSweep(res *Results) []PolicySummary {
	type key struct {
		p      Point
		policy string
	}
	var order []key
	groups := map[key][]RunResult{}
	for _, r := range res.Sweep {
		k := key{r.Point, r.Variant}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	var out []PolicySummary
	for _, k := range order {
		rs := groups[k]
		s := PolicySummary{Point: k.p, Policy: k.policy, Repeats: len(rs)}
		var req, p99, wall, batch, s412 []float64
		metAll := map[string]bool{}
		jitter, hj := find(res.Runs, StrategyOCCJitter, k.p.Replicas, k.p.Concurrency, k.p.ListSize)
		for i, r := range rs {
			req = append(req, r.ReqPerChange)
			p99 = append(p99, r.Latency.P99)
			wall = append(wall, r.WallSec)
			batch = append(batch, r.AvgBatch)
			s412 = append(s412, float64(r.Server.Status412))
			for _, x := range r.PerReplica {
				s.WorstReplicaP99Ms = max(s.WorstReplicaP99Ms, x.Latency.P99)
			}
			s.WorstSpreadSec = max(s.WorstSpreadSec, spread(r))
			s.MaxP99Ms = max(s.MaxP99Ms, r.Latency.P99)
			s.MaxWallSec = max(s.MaxWallSec, r.WallSec)
			s.Lost += r.Lost
			s.GivenUp += r.GivenUp
			if r.TimedOut {
				s.TimedOut++
			}
			checks := headlineChecks(r, jitter, hj)
			s.TargetsTotal = len(checks)
			for _, c := range checks {
				if i == 0 {
					metAll[c.Name] = c.Met
				} else {
					metAll[c.Name] = metAll[c.Name] && c.Met
				}
			}
		}
		for _, m := range metAll {
			if m {
				s.TargetsMet++
			}
		}
		s.ReqPerChange, s.P99Ms, s.WallSec = medianF(req), medianF(p99), medianF(wall)
		s.AvgBatch, s.Status412 = medianF(batch), medianF(s412)
		out = append(out, s)
	}
	return out
}

func medianF(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func writeSweep(b *strings.Builder, res *Results) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("## listkeeper conflict policies\n\n")
	p("Each policy (initial/max/randomization; multiplier, attempt and time limits as in etagclient.DefaultConflictPolicy) "+
		"runs %d time(s) per point; medians, except worst-of columns. Targets met counts the headline targets "+
		"(same thresholds as at R=3 C=16, occ-jitter from the grid) met by every repeat.\n\n"+
		"`+yield` is not the product: it emulates a proposed client change. The benchmark submits each change with "+
		"`Client.Submit` and a completion callback that calls `runtime.Gosched`, so callers woken by a finished batch "+
		"submit their next change before the client takes its next batch (the product takes it at once, so with C "+
		"goroutines its batches alternate around C/2).\n\n", max(res.Config.PolicyRepeats, 1))
	p("| IDs | R | C | policy | req/change | 412s | changes/write | p99 ms | worst p99 ms | worst replica p99 ms | wall s | worst wall s | worst spread s | lost | given up | timed out | targets met |\n")
	p("|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range SummarizeSweep(res) {
		p("| %d | %d | %d | %s | %.3f | %.0f | %.2f | %.1f | %.1f | %.1f | %.3f | %.3f | %.3f | %d | %d | %d | %d/%d |\n",
			s.ListSize, s.Replicas, s.Concurrency, s.Policy, s.ReqPerChange, s.Status412, s.AvgBatch, s.P99Ms, s.MaxP99Ms,
			s.WorstReplicaP99Ms, s.WallSec, s.MaxWallSec, s.WorstSpreadSec, s.Lost, s.GivenUp, s.TimedOut, s.TargetsMet, s.TargetsTotal)
	}
	p("\n")
}
