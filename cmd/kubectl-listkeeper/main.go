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

// Command kubectl-listkeeper is listkeeper's kubectl plugin: on the PATH,
// kubectl runs it as `kubectl listkeeper`. It reads the cluster of the
// user's kubeconfig (--kubeconfig, KUBECONFIG, --context, -n) and says
// what the operator is doing with a list or an entry:
//
//   - status LIST: whether the list holds the claim on its document (and
//     if not, which list does), the operator replica that writes the
//     document (from the members' Leases, see internal/membership), its
//     entries by condition, its item counts, last sync and last error,
//     its redacted URL and document ID, and whether the API server puts
//     the cleanup finalizer on new entries (finalizer.go); -o json for
//     scripts.
//   - reconcile LIST|ENTRY: sets listkeeper.dev/reconcile-requested-at
//     and waits until the operator has handled it, as `flux reconcile`
//     does, then prints the outcome.
//   - why ENTRY|LIST: the conditions of an entry and of its list, in
//     words, with the next step for each reason (reasons.go).
//
// Run it with -h for the flags. docs/operations/troubleshooting.md, "kubectl plugin",
// shows it at work.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

func main() {
	// controller-runtime's client logs nothing the user needs; without a
	// logger it would warn that none was set.
	ctrllog.SetLogger(logr.Discard())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case errors.Is(err, flag.ErrHelp):
	case err != nil:
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

// run parses args (without the program name), connects to the cluster of
// the kubeconfig and runs the command. Results go to stdout; usage and
// flag errors to stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	inv, err := parse(args, stderr)
	if err != nil {
		return err
	}
	if inv.cmd.offline {
		return inv.cmd.run(ctx, &env{out: stdout}, inv)
	}
	e, err := connect(inv.opts)
	if err != nil {
		return err
	}
	e.out = stdout
	return inv.cmd.run(ctx, e, inv)
}
