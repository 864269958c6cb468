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
	"errors"
	"fmt"
	"slices"
	"time"
)

// Strategy names, in the order a run executes them.
const (
	StrategyBlind      = "blind"
	StrategyMutex      = "mutex"
	StrategyOCCDefault = "occ-default"
	StrategyOCCJitter  = "occ-jitter"
	StrategyListkeeper = "listkeeper"
)

// AllStrategies lists every strategy, in execution order.
var AllStrategies = []string{StrategyBlind, StrategyMutex, StrategyOCCDefault, StrategyOCCJitter, StrategyListkeeper}

// Defaults of Config. DefaultConfig returns them together.
const (
	// DefaultN is the number of removals per run.
	DefaultN = 1000
	// DefaultLatency is the server-side latency of every list request.
	DefaultLatency = 2 * time.Millisecond
	// DefaultTimeCap bounds one run of one strategy at one grid point.
	DefaultTimeCap = 15 * time.Second
	// DefaultMicroListSize and DefaultMicroChanges shape the micro-measurement:
	// one combined write of DefaultMicroChanges removals to a list of
	// DefaultMicroListSize IDs.
	DefaultMicroListSize = 100_000
	DefaultMicroChanges  = 100
	// DefaultSettleChanges is how many changes the settle measurement
	// decides on, on a list of MicroListSize IDs.
	DefaultSettleChanges = 64
	// DefaultMicroReps is how often the micro-measurement is repeated; the
	// report shows medians.
	DefaultMicroReps = 9
	// DefaultPolicyRepeats is how often each policy sweep run is repeated.
	DefaultPolicyRepeats = 3
)

// DefaultReplicas, DefaultConcurrency and DefaultListSizes are the grid of a
// full run.
var (
	DefaultReplicas    = []int{1, 3}
	DefaultConcurrency = []int{1, 16, 64}
	DefaultListSizes   = []int{1_100, 100_000}
)

// DefaultPolicyConcurrency is where the policy sweep runs by default.
var DefaultPolicyConcurrency = []int{16, 64}

// DefaultPolicies are the listkeeper variants of the policy sweep. "default"
// is etagclient.DefaultConflictPolicy; the others are
// initial/max/randomization (see ParsePolicy); "+yield" adds the emulation
// of a proposed client change (see the report).
var DefaultPolicies = []string{"default", "1ms/3ms/1", "20ms/50ms/0.5", "default+yield", "1ms/3ms/1+yield", "20ms/50ms/0.5+yield"}

// Config describes one benchmark run: the grid, the workload and what else
// to measure. The zero value is not useful; start from DefaultConfig or
// QuickConfig.
type Config struct {
	// Strategies to run, by name, in this order. Default AllStrategies.
	Strategies []string
	// Replicas, Concurrency and ListSizes span the grid. ListSizes are total
	// IDs on the list at start: N targets plus bystanders.
	Replicas    []int
	Concurrency []int
	ListSizes   []int
	// N is the number of removals (distinct targets) per run. Default
	// DefaultN.
	N int
	// Latency is the fake server's latency per list request. Default
	// DefaultLatency.
	Latency time.Duration
	// TimeCap bounds each run; a run that reaches it is reported as timed
	// out. Default DefaultTimeCap.
	TimeCap time.Duration
	// Policies are extra listkeeper conflict policies (see ParsePolicy; a
	// "+yield" suffix adds the emulation of a proposed client change, see
	// the report), each run at the sweep points: every grid point with more than one
	// replica whose list size is in PolicyListSizes and whose concurrency is
	// in PolicyConcurrency. Empty disables the
	// sweep. Default DefaultPolicies.
	Policies []string
	// PolicyListSizes restricts the sweep. Default: the smallest list size.
	PolicyListSizes []int
	// PolicyConcurrency restricts the sweep to these goroutine counts.
	// Default DefaultPolicyConcurrency: the combining regime, where each
	// run takes about a second.
	PolicyConcurrency []int
	// PolicyRepeats is how often each sweep run is repeated. Default
	// DefaultPolicyRepeats.
	PolicyRepeats int
	// Physical enables the physical-limit measurement per list size.
	// Default true.
	Physical bool
	// MicroListSize, MicroChanges and MicroReps shape the micro-measurement;
	// MicroListSize 0 disables it.
	MicroListSize int
	MicroChanges  int
	MicroReps     int
	// Progress, when not nil, receives one line per finished run.
	Progress func(format string, args ...any)
}

// DefaultConfig returns the full default run.
func DefaultConfig() Config {
	return Config{
		Strategies:        slices.Clone(AllStrategies),
		Replicas:          slices.Clone(DefaultReplicas),
		Concurrency:       slices.Clone(DefaultConcurrency),
		ListSizes:         slices.Clone(DefaultListSizes),
		N:                 DefaultN,
		Latency:           DefaultLatency,
		TimeCap:           DefaultTimeCap,
		Policies:          slices.Clone(DefaultPolicies),
		PolicyListSizes:   []int{DefaultListSizes[0]},
		PolicyRepeats:     DefaultPolicyRepeats,
		PolicyConcurrency: slices.Clone(DefaultPolicyConcurrency),
		Physical:          true,
		MicroListSize:     DefaultMicroListSize,
		MicroChanges:      DefaultMicroChanges,
		MicroReps:         DefaultMicroReps,
	}
}

// QuickConfig returns a small smoke run that finishes in seconds: tiny N,
// small lists, every strategy.
func QuickConfig() Config {
	c := DefaultConfig()
	c.Replicas = []int{1, 2}
	c.Concurrency = []int{1, 4}
	c.ListSizes = []int{60}
	c.N = 40
	c.Latency = time.Millisecond
	c.TimeCap = 10 * time.Second
	c.Policies = []string{"default", "10ms/200ms/0.5"}
	c.PolicyListSizes = []int{60}
	c.PolicyRepeats = 1
	c.PolicyConcurrency = []int{1, 4}
	c.MicroListSize = 2_000
	c.MicroChanges = 20
	c.MicroReps = 2
	return c
}

// Validate reports whether the configuration can run.
func (c Config) Validate() error {
	var errs []error
	for _, s := range c.Strategies {
		if !slices.Contains(AllStrategies, s) {
			errs = append(errs, fmt.Errorf("unknown strategy %q (known: %v)", s, AllStrategies))
		}
	}
	if len(c.Strategies) == 0 || len(c.Replicas) == 0 || len(c.Concurrency) == 0 || len(c.ListSizes) == 0 {
		errs = append(errs, errors.New("strategies, replicas, concurrency and list sizes must not be empty"))
	}
	for _, v := range slices.Concat(c.Replicas, c.Concurrency) {
		if v < 1 || v > 1024 {
			errs = append(errs, fmt.Errorf("replicas and concurrency must be in 1..1024, got %d", v))
		}
	}
	if c.N < 1 {
		errs = append(errs, fmt.Errorf("n must be positive, got %d", c.N))
	}
	for _, s := range c.ListSizes {
		if s < c.N {
			errs = append(errs, fmt.Errorf("list size %d is smaller than n=%d", s, c.N))
		}
	}
	if c.Latency < 0 || c.TimeCap <= 0 {
		errs = append(errs, errors.New("latency must not be negative and the time cap must be positive"))
	}
	for _, p := range c.Policies {
		if _, err := parseVariant(p); err != nil {
			errs = append(errs, err)
		}
	}
	if c.MicroListSize > 0 && (c.MicroChanges < 1 || c.MicroChanges*(c.MicroReps+1) > c.MicroListSize || c.MicroReps < 1) {
		errs = append(errs, fmt.Errorf("micro: need 1 <= changes x (reps+1) <= list size, got %d x %d and %d", c.MicroChanges, c.MicroReps+1, c.MicroListSize))
	}
	return errors.Join(errs...)
}

// Point is one grid point.
type Point struct {
	Replicas    int           `json:"replicas"`
	Concurrency int           `json:"concurrency"`
	N           int           `json:"n"`
	ListSize    int           `json:"listSize"`
	Latency     time.Duration `json:"latencyNs"`
}

func (p Point) String() string {
	return fmt.Sprintf("R=%d C=%d N=%d ids=%d latency=%s", p.Replicas, p.Concurrency, p.N, p.ListSize, p.Latency)
}

// points expands the grid, list size outermost, then replicas, then
// concurrency.
func (c Config) points() []Point {
	var out []Point
	for _, size := range c.ListSizes {
		for _, r := range c.Replicas {
			for _, cc := range c.Concurrency {
				out = append(out, Point{Replicas: r, Concurrency: cc, N: c.N, ListSize: size, Latency: c.Latency})
			}
		}
	}
	return out
}

// sweepPoints are the grid points where the extra listkeeper policies run.
func (c Config) sweepPoints() []Point {
	if len(c.Policies) == 0 {
		return nil
	}
	var out []Point
	for _, p := range c.points() {
		if p.Replicas > 1 && slices.Contains(c.PolicyListSizes, p.ListSize) && slices.Contains(c.PolicyConcurrency, p.Concurrency) {
			out = append(out, p)
		}
	}
	return out
}
