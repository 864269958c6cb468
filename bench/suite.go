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
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"
)

// Results is everything one run measured.
type Results struct {
	Started     time.Time `json:"started"`
	DurationSec float64   `json:"durationSec"`
	GoVersion   string    `json:"goVersion"`
	GOMAXPROCS  int       `json:"gomaxprocs"`
	// LoadAvg is the host's 1-minute load average at the start and at the
	// end (Linux; "?" elsewhere). Other processes on the host skew every
	// figure; a load well above GOMAXPROCS means a noisy run.
	LoadAvg []string   `json:"loadAvg,omitempty"`
	Config  ConfigJSON `json:"config"`
	// Runs is the grid: every strategy at every point, listkeeper with the
	// product's default conflict policy.
	Runs []RunResult `json:"runs"`
	// Sweep is listkeeper with each policy of Config.Policies, repeated,
	// at the sweep points.
	Sweep    []RunResult      `json:"sweep,omitempty"`
	Physical []PhysicalResult `json:"physical,omitempty"`
	Micro    *MicroResult     `json:"micro,omitempty"`
	Settle   *SettleResult    `json:"settle,omitempty"`
	Targets  []TargetCheck    `json:"targets,omitempty"`
	// Failures lists runs that could not be measured at all.
	Failures []string `json:"failures,omitempty"`
}

// ConfigJSON is the configuration as recorded in results.json.
type ConfigJSON struct {
	Strategies    []string `json:"strategies"`
	Replicas      []int    `json:"replicas"`
	Concurrency   []int    `json:"concurrency"`
	ListSizes     []int    `json:"listSizes"`
	N             int      `json:"n"`
	LatencyMs     float64  `json:"latencyMs"`
	TimeCapSec    float64  `json:"timeCapSec"`
	Policies      []string `json:"policies"`
	PolicyRepeats int      `json:"policyRepeats"`
	PolicyConc    []int    `json:"policyConcurrency"`
}

// Run executes the whole benchmark: the grid, the policy sweep, the
// physical limits and the micro-measurement. A run that fails is recorded
// in Results.Failures and the others go on; ctx ends everything.
func Run(ctx context.Context, cfg Config) (*Results, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	progress := cfg.Progress
	if progress == nil {
		progress = func(string, ...any) {}
	}
	res := &Results{
		Started: time.Now(), GoVersion: runtime.Version(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		Config: ConfigJSON{
			Strategies: cfg.Strategies, Replicas: cfg.Replicas, Concurrency: cfg.Concurrency,
			ListSizes: cfg.ListSizes, N: cfg.N, LatencyMs: ms(cfg.Latency), TimeCapSec: cfg.TimeCap.Seconds(),
			Policies: cfg.Policies, PolicyRepeats: cfg.PolicyRepeats, PolicyConc: cfg.PolicyConcurrency,
		},
	}
	res.LoadAvg = append(res.LoadAvg, loadAvg())
	defer func() { res.LoadAvg = append(res.LoadAvg, loadAvg()) }()
	defaultPolicy, _ := ParsePolicy("default")

	if cfg.Physical {
		if err := measurePhysicalAll(ctx, cfg, res, progress); err != nil {
			return res, err
		}
	}
	for _, p := range cfg.points() {
		for _, name := range cfg.Strategies {
			st, err := newStrategy(name, defaultPolicy)
			if err != nil {
				return res, err
			}
			r, err := runOne(ctx, st, p, cfg.TimeCap, progress)
			if errors.Is(err, context.Canceled) {
				return res, err
			}
			if err != nil {
				res.Failures = append(res.Failures, err.Error())
				continue
			}
			res.Runs = append(res.Runs, r)
		}
	}
	for _, p := range cfg.sweepPoints() {
		for _, spec := range cfg.Policies {
			st, _ := parseVariant(spec)
			for rep := range max(cfg.PolicyRepeats, 1) {
				r, err := runOne(ctx, st, p, cfg.TimeCap, progress)
				if errors.Is(err, context.Canceled) {
					return res, err
				}
				if err != nil {
					res.Failures = append(res.Failures, err.Error())
					continue
				}
				r.Repeat = rep + 1
				res.Sweep = append(res.Sweep, r)
			}
		}
	}
	if cfg.Physical {
		if err := measurePhysicalAll(ctx, cfg, res, progress); err != nil {
			return res, err
		}
	}
	if cfg.MicroListSize > 0 {
		m, err := measureMicro(ctx, cfg.MicroListSize, cfg.MicroChanges, cfg.MicroReps)
		if err != nil {
			res.Failures = append(res.Failures, fmt.Sprintf("micro: %v", err))
		} else {
			progress("micro           %d changes on %d IDs: client %.2f ms, server %.2f ms, ratio %.2fx", m.Changes, m.ListSize, m.ClientWriteMs, m.ServerHandleMs, m.Ratio)
			res.Micro = &m
		}
		s, err := measureSettle(cfg.MicroListSize, DefaultSettleChanges, cfg.MicroReps)
		if err != nil {
			res.Failures = append(res.Failures, fmt.Sprintf("settle: %v", err))
		} else {
			progress("settle          %d changes on %d IDs: %.2f ms (%.1f MiB), one Apply %.2f ms (%.1f MiB), ratio %.2fx", s.Changes, s.ListSize, s.SettleMs, s.SettleMiB, s.ApplyMs, s.ApplyMiB, s.Ratio)
			res.Settle = &s
		}
	}
	res.Targets = checkTargets(res)
	res.DurationSec = time.Since(res.Started).Seconds()
	return res, nil
}

// measurePhysicalAll measures the physical limit of every list size and
// merges the samples into res.Physical.
func measurePhysicalAll(ctx context.Context, cfg Config, res *Results, progress func(string, ...any)) error {
	for _, size := range cfg.ListSizes {
		if err := ctx.Err(); err != nil {
			return err
		}
		p, err := measurePhysical(ctx, cfg.N, size, cfg.Latency)
		if err != nil {
			res.Failures = append(res.Failures, fmt.Sprintf("physical limit at %d IDs: %v", size, err))
			continue
		}
		progress("physical limit  ids=%-7d %8.1f writes/s  %6.2f ms/write", size, p.WritesPerSec, p.MsPerWrite)
		merged := false
		for i := range res.Physical {
			if res.Physical[i].ListSize == size {
				res.Physical[i], merged = res.Physical[i].better(p), true
			}
		}
		if !merged {
			res.Physical = append(res.Physical, p)
		}
	}
	return nil
}

// loadAvg returns the 1-minute load average, or "?" when unknown.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}

func runOne(ctx context.Context, st strategy, p Point, timeCap time.Duration, progress func(string, ...any)) (RunResult, error) {
	if err := ctx.Err(); err != nil {
		return RunResult{}, err
	}
	r, err := runPoint(ctx, st, p, timeCap)
	if err != nil {
		if ctx.Err() != nil {
			return r, ctx.Err()
		}
		return r, fmt.Errorf("%s at %s: %w", st.name(), p, err)
	}
	status := ""
	if r.TimedOut {
		status = " TIMED OUT"
	}
	progress("%-28s R=%d C=%-3d ids=%-7d lost=%-4d gaveup=%-4d req/change=%-7.3f p99=%8.1fms wall=%6.2fs%s",
		r.Name(), p.Replicas, p.Concurrency, p.ListSize, r.Lost, r.GivenUp, r.ReqPerChange, r.Latency.P99, r.WallSec, status)
	return r, nil
}
