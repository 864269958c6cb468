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

// Command listbench compares ways of changing one shared list document
// (blind writes, a mutex, optimistic read-modify-write with two retry
// policies, and listkeeper's combining client) against the bundled fake
// list server over loopback, and writes a markdown table, raw JSON and an
// SVG chart.
//
//	go run ./bench/cmd/listbench                  # the full default grid
//	go run ./bench/cmd/listbench --quick          # a smoke run in seconds
//	go run ./bench/cmd/listbench --strategies occ-jitter,listkeeper --replicas 3 --concurrency 16 --list-sizes 1100
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/listkeeper/listkeeper/bench"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "listbench:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("listbench", flag.ContinueOnError)
	quick := fs.Bool("quick", false, "small smoke run: tiny N and lists (other flags override it)")
	strategies := fs.String("strategies", strings.Join(bench.AllStrategies, ","), "strategies to run, comma-separated")
	replicas := fs.String("replicas", ints(bench.DefaultReplicas), "replica counts R, comma-separated")
	concurrency := fs.String("concurrency", ints(bench.DefaultConcurrency), "goroutines per replica C, comma-separated")
	listSizes := fs.String("list-sizes", ints(bench.DefaultListSizes), "IDs on the list at start (N targets + bystanders), comma-separated")
	n := fs.Int("n", bench.DefaultN, "removals per run (distinct targets)")
	latency := fs.Duration("latency", bench.DefaultLatency, "server-side latency per request")
	timeCap := fs.Duration("time-cap", bench.DefaultTimeCap, "time cap per strategy run; runs that hit it are reported as timed out")
	policies := fs.String("policies", strings.Join(bench.DefaultPolicies, ","), `listkeeper conflict policies for the sweep ("default" or initial/max/randomization, e.g. 10ms/500ms/0.5); "" disables it`)
	policyRepeats := fs.Int("policy-repeats", bench.DefaultPolicyRepeats, "repeats of each sweep run")
	policyConc := fs.String("policy-concurrency", ints(bench.DefaultPolicyConcurrency), "goroutine counts C where the sweep runs")
	policySizes := fs.String("policy-list-sizes", "", "list sizes where the sweep runs (at every R>1 point); default the smallest list size")
	micro := fs.Int("micro-list-size", bench.DefaultMicroListSize, "list size of the micro-measurement; 0 disables it")
	physical := fs.Bool("physical", true, "measure the fake server's physical write limit per list size")
	out := fs.String("out", "bench/results", "output directory; results go to <out>/<timestamp>/ and <out>/latest/")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}

	cfg := bench.DefaultConfig()
	if *quick {
		cfg = bench.QuickConfig()
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var err error
	if set["strategies"] {
		cfg.Strategies = splitList(*strategies)
	}
	for name, dst := range map[string]*[]int{"replicas": &cfg.Replicas, "concurrency": &cfg.Concurrency, "list-sizes": &cfg.ListSizes} {
		if set[name] {
			val := map[string]string{"replicas": *replicas, "concurrency": *concurrency, "list-sizes": *listSizes}[name]
			if *dst, err = parseInts(val); err != nil {
				return fmt.Errorf("--%s: %w", name, err)
			}
		}
	}
	if set["n"] {
		cfg.N = *n
	}
	if set["latency"] {
		cfg.Latency = *latency
	}
	if set["time-cap"] {
		cfg.TimeCap = *timeCap
	}
	if set["policies"] {
		cfg.Policies = splitList(*policies)
	}
	if set["policy-repeats"] {
		cfg.PolicyRepeats = *policyRepeats
	}
	if set["policy-concurrency"] {
		if cfg.PolicyConcurrency, err = parseInts(*policyConc); err != nil {
			return fmt.Errorf("--policy-concurrency: %w", err)
		}
	}
	cfg.PolicyListSizes = []int{minOf(cfg.ListSizes)}
	if *policySizes != "" {
		if cfg.PolicyListSizes, err = parseInts(*policySizes); err != nil {
			return fmt.Errorf("--policy-list-sizes: %w", err)
		}
	}
	if set["micro-list-size"] {
		cfg.MicroListSize = *micro
	}
	cfg.Physical = *physical
	cfg.Progress = func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "%s  %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := bench.Run(ctx, cfg)
	if res == nil {
		return err
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	if err := bench.WriteMarkdown(os.Stdout, res); err != nil {
		return err
	}
	dir, werr := bench.WriteFiles(*out, res)
	if werr != nil {
		return werr
	}
	fmt.Fprintf(os.Stderr, "results written to %s (and %s/latest)\n", dir, *out)
	return err
}

func ints(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range splitList(s) {
		v, err := strconv.Atoi(strings.ReplaceAll(f, "_", ""))
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func minOf(v []int) int {
	m := 0
	for i, x := range v {
		if i == 0 || x < m {
			m = x
		}
	}
	return m
}
