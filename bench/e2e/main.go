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
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

// Exit codes.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// config is the benchmark's flags.
type config struct {
	bin           string        // directory of manager and fakeapi
	assets        string        // directory of kube-apiserver and etcd
	replicas      []int         // replica counts, one round each
	entries       int           // ListEntries to create and delete
	lists         int           // ExternalLists the entries are dealt over, each on its own document
	bystanders    int           // IDs on the list that nobody touches
	latency       time.Duration // the fake server's latency per request
	batchInterval string        // the managers' --batch-interval; "" = their default
	workers       int           // the managers' --max-concurrent-reconciles
	clients       int           // goroutines creating or deleting entries
	timeout       time.Duration // per phase
	poll          time.Duration // how often the list is read while waiting
	out           string        // results directory
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the benchmark and returns the process's exit code.
func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintln(stderr, "bench-e2e:", err)
		return exitUsage
	}
	for _, f := range []string{filepath.Join(cfg.bin, "manager"), filepath.Join(cfg.bin, "fakeapi")} {
		if err := harness.CheckBinaries(f); err != nil {
			fmt.Fprintf(stderr, "bench-e2e: %v (run 'make build', or use 'make bench-e2e')\n", err)
			return exitFailed
		}
	}
	if err := harness.CheckAssets(cfg.assets); err != nil {
		fmt.Fprintln(stderr, "bench-e2e:", err)
		return exitFailed
	}
	if _, err := os.Stat(crdDir); err != nil {
		fmt.Fprintf(stderr, "bench-e2e: %v (run from the repository root)\n", err)
		return exitFailed
	}
	ctrllog.SetLogger(logr.Discard())
	ctx := logr.NewContext(context.Background(), logr.Discard())
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()

	b := &bench{cfg: cfg, out: stdout, start: time.Now()}
	res := b.runAll(ctx)
	if ctx.Err() != nil {
		fmt.Fprintln(stdout, "interrupted")
		return exitInterrupted
	}
	var md strings.Builder
	writeMarkdown(&md, res)
	fmt.Fprintln(stdout)
	fmt.Fprint(stdout, md.String())
	dir, err := writeFiles(cfg.out, b.stamp(), res, md.String())
	if err != nil {
		fmt.Fprintln(stderr, "bench-e2e: write results:", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "\nresults in %s and %s\n", dir, filepath.Join(cfg.out, latestDir))
	if res.failed() {
		return exitFailed
	}
	return exitOK
}

// parseFlags parses the command line; usage and errors go to out.
func parseFlags(args []string, out io.Writer) (config, error) {
	cfg := config{}
	fs := flag.NewFlagSet("bench-e2e", flag.ContinueOnError)
	fs.SetOutput(out)
	defAssets := os.Getenv("KUBEBUILDER_ASSETS")
	if defAssets == "" {
		defAssets = filepath.Join("bin", "k8s")
	}
	replicas := "1,3,5"
	fs.StringVar(&cfg.bin, "bin", "bin", "directory holding the manager and fakeapi binaries")
	fs.StringVar(&cfg.assets, "assets", defAssets, "directory holding kube-apiserver and etcd (default $KUBEBUILDER_ASSETS, else bin/k8s)")
	fs.StringVar(&replicas, "replicas", replicas, "comma-separated replica counts, one round each")
	fs.IntVar(&cfg.entries, "entries", 1000, "ListEntries to create and then delete")
	fs.IntVar(&cfg.lists, "lists", 1, "ExternalLists, each on its own document of the list server; the entries are dealt over them round-robin")
	fs.IntVar(&cfg.bystanders, "bystanders", 50, "IDs on the list that the operator must leave alone")
	fs.DurationVar(&cfg.latency, "latency", 2*time.Millisecond, "latency the fake list server adds to every list request")
	fs.StringVar(&cfg.batchInterval, "batch-interval", "", "the managers' --batch-interval (default: theirs)")
	fs.IntVar(&cfg.workers, "workers", harness.DefaultManagerWorkers, "the managers' --max-concurrent-reconciles")
	fs.IntVar(&cfg.clients, "clients", harness.DefaultWorkers, "goroutines that create or delete the entries")
	fs.DurationVar(&cfg.timeout, "timeout", 5*time.Minute, "how long each phase may take")
	fs.DurationVar(&cfg.poll, "poll", 100*time.Millisecond, "how often the list is read while waiting")
	fs.StringVar(&cfg.out, "out", filepath.Join("bench", "results"), "directory of the results")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var err error
	if cfg.replicas, err = parseReplicas(replicas); err != nil {
		return config{}, err
	}
	switch {
	case cfg.entries < 1:
		return config{}, errors.New("--entries must be at least 1")
	case cfg.lists < 1 || cfg.lists > cfg.entries:
		return config{}, errors.New("--lists must be at least 1 and at most --entries")
	case cfg.bystanders < 0:
		return config{}, errors.New("--bystanders must not be negative")
	case cfg.latency < 0:
		return config{}, errors.New("--latency must not be negative")
	case cfg.workers < 1 || cfg.clients < 1:
		return config{}, errors.New("--workers and --clients must be at least 1")
	case cfg.timeout <= 0 || cfg.poll <= 0:
		return config{}, errors.New("--timeout and --poll must be positive")
	}
	if cfg.batchInterval != "" {
		if _, err := time.ParseDuration(cfg.batchInterval); err != nil {
			return config{}, fmt.Errorf("--batch-interval: %w", err)
		}
	}
	if cfg.assets == "" { // make passes --assets "" when KUBEBUILDER_ASSETS is empty
		cfg.assets = defAssets
	}
	return cfg, nil
}

// parseReplicas parses "1,3" into distinct positive counts, in order.
func parseReplicas(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--replicas: %q is not a positive count", f)
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// bench is one run of the benchmark.
type bench struct {
	cfg   config
	out   io.Writer
	start time.Time
}

func (b *bench) stamp() string { return "e2e-" + b.start.Format("20060102-150405") }

// runAll runs one round per replica count and the checks of the targets.
func (b *bench) runAll(ctx context.Context) *results {
	res := &results{Started: b.start, Config: b.cfg.public(), Host: hostInfo()}
	b.logf("listkeeper end-to-end benchmark: %d entries on %d list(s), %d bystanders each, replicas %v, list latency %v, GOMAXPROCS %d",
		b.cfg.entries, b.cfg.lists, b.cfg.bystanders, b.cfg.replicas, b.cfg.latency, runtime.GOMAXPROCS(0))
	for _, r := range b.cfg.replicas {
		if ctx.Err() != nil {
			break
		}
		rr := b.runRound(ctx, r)
		res.Rounds = append(res.Rounds, rr)
	}
	res.Elapsed = seconds(time.Since(b.start))
	res.Host.LoadEnd = loadAverage()
	res.Targets = checkTargets(res)
	return res
}

// logf prints a line prefixed with the time since the start.
func (b *bench) logf(format string, args ...any) {
	fmt.Fprintf(b.out, "[%6.1fs] %s\n", time.Since(b.start).Seconds(), fmt.Sprintf(format, args...))
}
