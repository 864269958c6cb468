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
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/listkeeper/listkeeper/internal/storetest/wafv2fake"
)

// Exit codes.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// config is the demo's flags.
type config struct {
	bin      string        // directory of manager and fakeapi
	assets   string        // directory of kube-apiserver and etcd
	entries  int           // ListEntries to create and delete
	replicas int           // manager processes
	timeout  time.Duration // per phase
	keep     bool          // stay up after the summary until Ctrl-C
	store    string        // where the list lives: storeFakeAPI, storeS3 or storeWAFv2
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the demo and returns the process's exit code.
func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintln(stderr, "demo:", err)
		return exitUsage
	}
	// The demo's own Kubernetes clients and envtest log nothing worth
	// showing (such as requests cut short on purpose); the processes it
	// runs log to files.
	ctrllog.SetLogger(logr.Discard())
	ctx := logr.NewContext(context.Background(), logr.Discard())
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop() // only after the teardown: a second Ctrl-C must not orphan the children
	d, err := newDemo(cfg, stdout, isTerminal(os.Stdout))
	if err != nil {
		fmt.Fprintln(stderr, "demo:", err)
		return exitFailed
	}
	return d.main(ctx)
}

// parseFlags parses the command line; usage and errors go to out.
func parseFlags(args []string, out io.Writer) (config, error) {
	cfg := config{}
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(out)
	defAssets := os.Getenv("KUBEBUILDER_ASSETS")
	if defAssets == "" {
		defAssets = filepath.Join("bin", "k8s")
	}
	fs.StringVar(&cfg.bin, "bin", "bin", "directory holding the manager and fakeapi binaries")
	fs.StringVar(&cfg.assets, "assets", defAssets, "directory holding kube-apiserver and etcd (default $KUBEBUILDER_ASSETS, else bin/k8s)")
	fs.IntVar(&cfg.entries, "entries", 200, "ListEntries to create and then delete")
	fs.IntVar(&cfg.replicas, "replicas", 3, "manager processes to run, all active")
	fs.DurationVar(&cfg.timeout, "timeout", 2*time.Minute, "how long each phase may take")
	fs.BoolVar(&cfg.keep, "keep", false, "leave everything running after the summary until Ctrl-C")
	fs.StringVar(&cfg.store, "store", storeFakeAPI, "where the list lives: fakeapi (the fake list server, bin/fakeapi), s3 (an in-process S3 that checks SigV4) or wafv2 (an in-process AWS WAFv2 IP-set API that checks SigV4 and lock tokens; the IDs become CIDRs)")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	switch {
	case cfg.entries < 1:
		return config{}, errors.New("--entries must be at least 1")
	case cfg.replicas < 1:
		return config{}, errors.New("--replicas must be at least 1")
	case cfg.timeout <= 0:
		return config{}, errors.New("--timeout must be positive")
	case !validStore(cfg.store):
		return config{}, fmt.Errorf("--store must be one of %s, not %q", strings.Join(storeKinds, ", "), cfg.store)
	case cfg.store == storeWAFv2 && cfg.entries > wafv2MaxEntries:
		return config{}, fmt.Errorf("--entries must be at most %d with --store=wafv2: an IP set holds at most %d addresses, %d of them the bystanders' and the sample entry's",
			wafv2MaxEntries, wafv2fake.MaxAddresses, bystanders+1)
	}
	if cfg.assets == "" { // make passes --assets "" when KUBEBUILDER_ASSETS is empty
		cfg.assets = defAssets
	}
	return cfg, nil
}
