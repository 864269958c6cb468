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
	"io"
	"slices"
	"strconv"
	"strings"
)

// WriteMarkdown writes the report: the grid per list size, fairness per
// replica, the physical limits, the policy sweep, the micro-measurement and
// the targets.
func WriteMarkdown(w io.Writer, res *Results) error {
	b := &strings.Builder{}
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	c := res.Config
	p("# listkeeper strategy comparison\n\n")
	p("%s · %s · GOMAXPROCS %d · %.0f s in total · host load average %s (start → end)\n\n",
		res.Started.Format("2006-01-02 15:04:05 MST"), res.GoVersion, res.GOMAXPROCS, res.DurationSec, strings.Join(res.LoadAvg, " → "))
	if noisy(res) {
		p("> **Noisy host**: the load average exceeded twice GOMAXPROCS, so other processes competed for the CPUs; timings are pessimistic and vary between runs.\n\n")
	}
	p("Workload: N=%d removals of distinct targets; R replicas × C goroutines, each goroutine waits for its change before the next; "+
		"server latency %.1f ms per request; time cap %.0f s per run. Requests are counted at the server; `srv/cli` cross-checks "+
		"them with the replicas' transports (✓ = equal). Latency is per change, submit to return. Lost = reported removed but "+
		"still on the final list. Heap and alloc are the whole process (client and in-process server).\n\n",
		c.N, c.LatencyMs, c.TimeCapSec)

	if len(res.Physical) > 0 {
		p("## Physical limit of the fake server\n\n")
		p("One client, no contention: GET once, then back-to-back `PUT If-Match` of the whole document with the returned ETag, " +
			"same latency. Measured before and after the grid; the faster sample is the limit.\n\n")
		p("| list size | document | writes | writes/s | ms/write | samples writes/s |\n|---:|---:|---:|---:|---:|---:|\n")
		for _, x := range res.Physical {
			p("| %d | %s | %d | %.1f | %.2f | %s |\n", x.ListSize, size(x.DocBytes), x.Writes, x.WritesPerSec, x.MsPerWrite, floats(x.Samples))
		}
		p("\n")
	}

	for _, size := range sizesOf(res.Runs) {
		p("## %d IDs (%d targets + %d bystanders)\n\n", size, c.N, size-c.N)
		p("| R | C | strategy | lost | given up | unfinished | requests srv/cli | req/change | PUTs | 412s | commits | changes/write | p50 ms | p99 ms | changes/s | wall s | peak heap MiB | alloc MiB | status |\n")
		p("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
		for _, r := range res.Runs {
			if r.ListSize != size {
				continue
			}
			p("| %d | %d | %s | %d | %d | %d | %s | %s | %d | %d | %d | %.2f | %.1f | %.1f | %.0f | %.2f | %.0f | %.0f | %s |\n",
				r.Replicas, r.Concurrency, r.Name(), r.Lost, r.GivenUp, r.Unfinished, countsCell(r), reqCell(r),
				r.Server.Puts, r.Server.Status412, r.Server.Commits, r.AvgBatch, r.Latency.P50, r.Latency.P99,
				r.ChangesPerSec, r.WallSec, r.PeakHeapMiB, r.AllocMiB, status(r))
		}
		p("\n")
	}

	if fair := multiReplica(res.Runs); len(fair) > 0 {
		p("## Fairness between replicas\n\n")
		p("Per replica: changes done/assigned, completion time of its last change, p99 latency. A starved replica finishes late or times out.\n\n")
		p("| IDs | R | C | strategy | %s | spread s |\n", replicaHeader(fair))
		p("|---:|---:|---:|---|%s---:|\n", strings.Repeat("---|", maxReplicas(fair)))
		for _, r := range fair {
			p("| %d | %d | %d | %s | %s | %.2f |\n", r.ListSize, r.Replicas, r.Concurrency, r.Name(), replicaCells(r, maxReplicas(fair)), spread(r))
		}
		p("\n")
	}

	if lks := byStrategy(res.Runs, StrategyListkeeper); len(lks) > 0 && len(res.Physical) > 0 {
		p("## listkeeper against the physical limit\n\n")
		p("Ceiling = physical writes/s × changes per committed write; efficiency = changes/s ÷ ceiling.\n\n")
		p("| IDs | R | C | changes/s | commits | changes/write | writes/s limit | ceiling changes/s | efficiency |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, r := range lks {
			phys, ok := physicalFor(res.Physical, r.ListSize)
			if !ok {
				continue
			}
			ceiling := phys.WritesPerSec * r.AvgBatch
			p("| %d | %d | %d | %.0f | %d | %.2f | %.1f | %.0f | %.0f%% |\n", r.ListSize, r.Replicas, r.Concurrency,
				r.ChangesPerSec, r.Server.Commits, r.AvgBatch, phys.WritesPerSec, ceiling, 100*safeDiv(r.ChangesPerSec, ceiling))
		}
		p("\n")
	}

	if len(res.Sweep) > 0 {
		writeSweep(b, res)
	}

	if m := res.Micro; m != nil {
		p("## Micro: one combined write\n\n")
		p("%d removals combined into one write to a list of %d IDs (%s) through the product client (cached ETag, latency 0, "+
			"in-process server over loopback), against `fakeapi.Server.ServeHTTP` on the same PUT body with an httptest.ResponseRecorder. "+
			"Medians of %d reps; one PUT and no GET per rep: %v.\n\n", m.Changes, m.ListSize, size(m.DocBytes), m.Reps, m.OneWrite)
		p("| client write ms | server handling ms | ratio | alloc: process / server / client MiB | heap base → peak MiB |\n|---:|---:|---:|---:|---:|\n")
		p("| %.2f (%s) | %.2f (%s) | %.2fx | %.1f / %.1f / %.1f | %.1f → %.1f |\n\n", m.ClientWriteMs, floats(m.ClientWriteAll),
			m.ServerHandleMs, floats(m.ServerHandleAll), m.Ratio, m.ProcessAllocMiB, m.ServerAllocMiB, m.ClientAllocMiB, m.BaseHeapMiB, m.PeakHeapMiB)
	}

	if st := res.Settle; st != nil {
		p("## Settle: which changes of a cycle already hold\n\n")
		p("`etagclient.Settled` for %d single-ID changes on a list of %d IDs, against one `etagclient.Apply` of all of them. "+
			"Medians of %d reps.\n\n", st.Changes, st.ListSize, st.Reps)
		p("| step | ms | MiB allocated |\n|---|---:|---:|\n")
		p("| Settled (one pass) | %.2f | %.2f |\n| one Apply | %.2f | %.2f |\n\n",
			st.SettleMs, st.SettleMiB, st.ApplyMs, st.ApplyMiB)
		p("Settled / Apply: %.2fx.\n\n", st.Ratio)
	}

	if len(res.Targets) > 0 {
		p("## Targets\n\n| target | want | got | met |\n|---|---|---|---|\n")
		for _, t := range res.Targets {
			p("| %s | %s | %s | %s |\n", t.Name, t.Want, t.Got, yesNo(t.Met))
		}
		p("\n")
	}
	if len(res.Failures) > 0 {
		p("## Failures\n\n")
		for _, f := range res.Failures {
			p("- %s\n", f)
		}
		p("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func countsCell(r RunResult) string {
	mark := "✓"
	if !r.CountsMatch {
		mark = fmt.Sprintf("≠%d", r.Client.Requests)
	}
	return fmt.Sprintf("%d %s", r.Server.Requests, mark)
}

func status(r RunResult) string {
	switch {
	case r.TimedOut:
		note := ""
		if r.Stragglers {
			note = ", stragglers"
		}
		return fmt.Sprintf("**timed out** at %.0f s (%d/%d done%s)", r.TimeCapSec, r.Succeeded+r.GivenUp, r.N, note)
	case r.Lost > 0 || r.GivenUp > 0:
		return "incorrect"
	}
	return "ok"
}

// noisy reports whether the host's load average exceeded twice GOMAXPROCS
// at the start or the end of the run.
func noisy(res *Results) bool {
	for _, l := range res.LoadAvg {
		if v, err := strconv.ParseFloat(l, 64); err == nil && v > 2*float64(res.GOMAXPROCS) {
			return true
		}
	}
	return false
}

// reqCell is requests per change, or n/a when no change returned.
func reqCell(r RunResult) string {
	if r.Succeeded+r.GivenUp == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", r.ReqPerChange)
}

// size formats a byte count.
func size(b int) string {
	if b < 1<<20 {
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}

func yesNo(b bool) string {
	if b {
		return "**yes**"
	}
	return "**no**"
}

func floats(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%.1f", x)
	}
	return strings.Join(s, ", ")
}

func sizesOf(runs []RunResult) []int {
	var out []int
	for _, r := range runs {
		if !slices.Contains(out, r.ListSize) {
			out = append(out, r.ListSize)
		}
	}
	return out
}

func byStrategy(runs []RunResult, name string) []RunResult {
	var out []RunResult
	for _, r := range runs {
		if r.Strategy == name {
			out = append(out, r)
		}
	}
	return out
}

func multiReplica(runs []RunResult) []RunResult {
	var out []RunResult
	for _, r := range runs {
		if r.Replicas > 1 {
			out = append(out, r)
		}
	}
	return out
}

func maxReplicas(runs []RunResult) int {
	n := 0
	for _, r := range runs {
		n = max(n, len(r.PerReplica))
	}
	return n
}

func replicaHeader(runs []RunResult) string {
	h := make([]string, maxReplicas(runs))
	for i := range h {
		h[i] = fmt.Sprintf("replica %d: done, s, p99 ms", i)
	}
	return strings.Join(h, " | ")
}

func replicaCells(r RunResult, n int) string {
	cells := make([]string, n)
	for i := range cells {
		if i < len(r.PerReplica) {
			x := r.PerReplica[i]
			cells[i] = fmt.Sprintf("%d/%d, %.2f, %.0f", x.Succeeded+x.GivenUp, x.Assigned, x.CompletionSec, x.Latency.P99)
		}
	}
	return strings.Join(cells, " | ")
}

// spread is the gap between the first and the last replica to finish.
func spread(r RunResult) float64 {
	lo, hi := -1.0, 0.0
	for _, x := range r.PerReplica {
		if lo < 0 || x.CompletionSec < lo {
			lo = x.CompletionSec
		}
		hi = max(hi, x.CompletionSec)
	}
	return hi - max(lo, 0)
}

func physicalFor(ps []PhysicalResult, size int) (PhysicalResult, bool) {
	for _, p := range ps {
		if p.ListSize == size {
			return p, true
		}
	}
	return PhysicalResult{}, false
}
