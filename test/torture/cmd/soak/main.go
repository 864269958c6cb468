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

// Command soak runs torture rounds back to back for a set time and prints
// running and final totals: operations (hot-ID changes and changes
// submitted without waiting among them), faults injected by kind, ambiguous
// outcomes resolved, 412s, porcupine checks run, IDs checked for submission
// order, violations and unknown results. It exits 1 when any round found a violation or a check reached no
// verdict, 2 when it could not run.
//
//	go run ./test/torture/cmd/soak --duration 10m [--seed N]
//
// Round i uses seed N+i. Every server binds 127.0.0.1; the run stops by
// itself after --duration (the round in progress is finished) or on
// SIGINT.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/listkeeper/listkeeper/test/torture"
)

func main() {
	os.Exit(run())
}

func run() int {
	def := torture.DefaultConfig(0)
	var (
		duration     = flag.Duration("duration", 10*time.Minute, "how long to start new rounds")
		seed         = flag.Int64("seed", 0, "seed of the first round (0: derived from the clock, printed)")
		every        = flag.Duration("every", 10*time.Second, "how often to print running totals")
		phases       = flag.Int("phases", def.Phases, "phases per round")
		ops          = flag.Int("ops", def.OpsPerPhase, "operations per worker per phase")
		hot          = flag.Float64("hot", def.HotRate, "share of operations, reads excepted, on hot IDs (0: none)")
		checkTimeout = flag.Duration("check-timeout", def.CheckTimeout, "timeout of each porcupine check (a timeout counts as a failure)")
		artifacts    = flag.String("artifacts", "", "directory for the visualisations and histories of failed rounds (default: a new directory under $TMPDIR)")
		keepGoing    = flag.Bool("keep-going", false, "keep starting rounds after one failed")
		maxProblems  = flag.Int("max-problems", 20, "problems printed per failed round")
	)
	flag.Parse()
	if flag.NArg() > 0 || *duration <= 0 {
		fmt.Fprintln(os.Stderr, "usage: soak [--duration 10m] [--seed N] [flags]")
		flag.PrintDefaults()
		return 2
	}
	if *seed == 0 {
		*seed = time.Now().UnixNano() % 1_000_000_000
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// A hard bound beyond the duration, so the command always ends.
	ctx, cancel := context.WithTimeout(ctx, *duration+5*time.Minute)
	defer cancel()

	fmt.Printf("soak: seed %d, duration %s, started %s\n", *seed, *duration, time.Now().Format(time.RFC3339))
	began := time.Now()
	lastPrint := began
	var totals torture.Totals
	var failedSeeds []int64
	for i := int64(0); time.Since(began) < *duration; i++ {
		cfg := torture.DefaultConfig(*seed + i)
		cfg.Phases, cfg.OpsPerPhase, cfg.HotRate, cfg.CheckTimeout, cfg.ArtifactDir = *phases, *ops, *hot, *checkTimeout, *artifacts
		rep, err := torture.Run(ctx, cfg)
		if err != nil {
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				fmt.Printf("soak: interrupted during round %d (seed %d); it is not counted\n", i+1, cfg.Seed)
				break
			}
			fmt.Fprintf(os.Stderr, "soak: round %d (seed %d): %v\n", i+1, cfg.Seed, err)
			return 2
		}
		totals.Add(rep.Totals)
		if !rep.Passed() {
			failedSeeds = append(failedSeeds, cfg.Seed)
			fmt.Printf("soak: round %d (seed %d) FAILED: %d violations, %d unknown\n", i+1, cfg.Seed, rep.Totals.Violations, rep.Totals.Unknown)
			for n, p := range rep.Problems {
				if n == *maxProblems {
					fmt.Printf("  ... %d more\n", len(rep.Problems)-n)
					break
				}
				fmt.Printf("  - %s\n", p)
			}
			for _, a := range rep.Artifacts {
				fmt.Printf("  artifact: %s\n", a)
			}
			if !*keepGoing {
				break
			}
		}
		if time.Since(lastPrint) >= *every {
			lastPrint = time.Now()
			fmt.Printf("soak: %s elapsed (last round: workload %s, checks %s) %s\n",
				time.Since(began).Round(time.Second), rep.Elapsed.Round(time.Millisecond), rep.Checked.Round(time.Millisecond), totals.Summary())
		}
	}
	elapsed := time.Since(began)
	fmt.Printf("soak: final totals after %s:\n", elapsed.Round(time.Second))
	totals.Write(os.Stdout)
	if totals.Rounds > 0 {
		fmt.Printf("  %-36s %.0f ops/s, %s per round\n", "throughput", float64(totals.Adds+totals.Removes+totals.Reads)/elapsed.Seconds(), (elapsed / time.Duration(totals.Rounds)).Round(time.Millisecond))
	}
	if len(failedSeeds) > 0 || totals.Violations > 0 || totals.Unknown > 0 {
		fmt.Printf("soak: FAIL (failed seeds %v)\n", failedSeeds)
		return 1
	}
	if totals.Rounds == 0 {
		fmt.Println("soak: FAIL (no round completed)")
		return 1
	}
	fmt.Println("soak: PASS")
	return 0
}
