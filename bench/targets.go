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

import "fmt"

// The headline point of the targets: R=3, C=16 at each list size.
const (
	headlineReplicas    = 3
	headlineConcurrency = 16
	headlineSmallList   = 1_100
	headlineLargeList   = 100_000
)

// Target thresholds at the headline point.
const (
	targetReqPerChange = 0.1
	targetReqVsJitter  = 20.0 // listkeeper's req/change at most 1/20 of occ-jitter's
	targetP99Ms        = 150.0
	targetP99VsJitter  = 10.0
	targetWallSec      = 0.5
	targetWallVsJitter = 5.0
	targetMicroRatio   = 3.0
)

// TargetCheck is one target and whether the run met it.
type TargetCheck struct {
	Name string `json:"name"`
	Want string `json:"want"`
	Got  string `json:"got"`
	Met  bool   `json:"met"`
}

// find returns the run of a strategy at R, C and list size, if any.
func find(runs []RunResult, strategy string, r, c, size int) (RunResult, bool) {
	for _, x := range runs {
		if x.Strategy == strategy && x.Replicas == r && x.Concurrency == c && x.ListSize == size {
			return x, true
		}
	}
	return RunResult{}, false
}

// headlineChecks compares a listkeeper run with the occ-jitter run at the
// same point. jitter may be missing (ok false).
func headlineChecks(lk RunResult, jitter RunResult, haveJitter bool) []TargetCheck {
	var out []TargetCheck
	add := func(name, want, got string, met bool) {
		out = append(out, TargetCheck{Name: name, Want: want, Got: got, Met: met})
	}
	add("loses 0, gives up 0", "0 / 0", fmt.Sprintf("%d / %d%s", lk.Lost, lk.GivenUp, timedOutNote(lk)),
		lk.Lost == 0 && lk.GivenUp == 0 && !lk.TimedOut)
	add("HTTP requests per change", fmt.Sprintf("<= %.2f", targetReqPerChange), fmt.Sprintf("%.3f", lk.ReqPerChange),
		lk.ReqPerChange <= targetReqPerChange)
	add("p99 latency", fmt.Sprintf("<= %.0f ms", targetP99Ms), fmt.Sprintf("%.1f ms", lk.Latency.P99), lk.Latency.P99 <= targetP99Ms)
	add("wall time", fmt.Sprintf("<= %.1f s", targetWallSec), fmt.Sprintf("%.3f s", lk.WallSec), lk.WallSec <= targetWallSec && !lk.TimedOut)
	if !haveJitter {
		return out
	}
	note := timedOutNote(jitter)
	add("req/change vs occ-jitter", fmt.Sprintf("<= 1/%.0f", targetReqVsJitter),
		fmt.Sprintf("%.3f vs %.3f%s (1/%.1f)", lk.ReqPerChange, jitter.ReqPerChange, note, safeDiv(jitter.ReqPerChange, lk.ReqPerChange)),
		lk.ReqPerChange*targetReqVsJitter <= jitter.ReqPerChange)
	add("p99 vs occ-jitter", fmt.Sprintf("<= 1/%.0f", targetP99VsJitter),
		fmt.Sprintf("%.1f vs %.1f ms%s (1/%.1f)", lk.Latency.P99, jitter.Latency.P99, note, safeDiv(jitter.Latency.P99, lk.Latency.P99)),
		lk.Latency.P99*targetP99VsJitter <= jitter.Latency.P99)
	add("wall vs occ-jitter", fmt.Sprintf("<= 1/%.0f", targetWallVsJitter),
		fmt.Sprintf("%.3f vs %.2f s%s (1/%.1f)", lk.WallSec, jitter.WallSec, note, safeDiv(jitter.WallSec, lk.WallSec)),
		lk.WallSec*targetWallVsJitter <= jitter.WallSec)
	return out
}

func timedOutNote(r RunResult) string {
	if r.TimedOut {
		return " (timed out)"
	}
	return ""
}

func safeDiv(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// checkTargets evaluates the targets against the grid and the micro-
// measurement. Targets whose runs are not in the grid are left out.
func checkTargets(res *Results) []TargetCheck {
	var out []TargetCheck
	prefix := fmt.Sprintf("R=%d C=%d %d IDs: ", headlineReplicas, headlineConcurrency, headlineSmallList)
	if lk, ok := find(res.Runs, StrategyListkeeper, headlineReplicas, headlineConcurrency, headlineSmallList); ok {
		j, hj := find(res.Runs, StrategyOCCJitter, headlineReplicas, headlineConcurrency, headlineSmallList)
		for _, c := range headlineChecks(lk, j, hj) {
			c.Name = prefix + c.Name
			out = append(out, c)
		}
	}
	if lk, ok := find(res.Runs, StrategyListkeeper, headlineReplicas, headlineConcurrency, headlineLargeList); ok {
		out = append(out, TargetCheck{
			Name: fmt.Sprintf("R=%d C=%d %d IDs: HTTP requests per change", headlineReplicas, headlineConcurrency, headlineLargeList),
			Want: fmt.Sprintf("<= %.2f", targetReqPerChange), Got: fmt.Sprintf("%.3f%s", lk.ReqPerChange, timedOutNote(lk)),
			Met: lk.ReqPerChange <= targetReqPerChange && !lk.TimedOut,
		})
	}
	if st := res.Settle; st != nil {
		out = append(out, TargetCheck{
			Name: fmt.Sprintf("settle %d changes on %d IDs, against one Apply", st.Changes, st.ListSize),
			Want: "<= 2x", Got: fmt.Sprintf("%.2fx (%.2f vs %.2f ms)", st.Ratio, st.SettleMs, st.ApplyMs),
			Met: st.Ratio <= 2,
		})
	}
	for _, r := range res.Runs {
		mustNotLose := r.Strategy == StrategyListkeeper || r.Strategy == StrategyOCCJitter ||
			(r.Strategy == StrategyMutex && r.Replicas == 1)
		if mustNotLose && r.Lost != 0 {
			out = append(out, TargetCheck{
				Name: fmt.Sprintf("invariant: %s R=%d C=%d %d IDs loses nothing", r.Name(), r.Replicas, r.Concurrency, r.ListSize),
				Want: "0", Got: fmt.Sprint(r.Lost),
			})
		}
		if r.BystandersMissing != 0 {
			out = append(out, TargetCheck{
				Name: fmt.Sprintf("invariant: %s R=%d C=%d %d IDs keeps bystanders", r.Name(), r.Replicas, r.Concurrency, r.ListSize),
				Want: "0 missing", Got: fmt.Sprint(r.BystandersMissing),
			})
		}
	}
	if m := res.Micro; m != nil {
		out = append(out, TargetCheck{
			Name: fmt.Sprintf("micro: %d removals on %d IDs, client write / server handling", m.Changes, m.ListSize),
			Want: fmt.Sprintf("<= %.0fx", targetMicroRatio), Got: fmt.Sprintf("%.2fx (%.2f / %.2f ms)", m.Ratio, m.ClientWriteMs, m.ServerHandleMs),
			Met: m.Ratio <= targetMicroRatio,
		})
	}
	return out
}
