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

// Command fakeapi serves the bundled fake list server (package
// internal/fakeapi) on its own, for demos, benchmarks and end-to-end tests.
// It stores JSON documents in memory by URL path and enforces the list HTTP
// contract: strong ETags, If-Match writes (428 without), If-None-Match: *
// creation, 412 on stale tags. --profile makes it behave like another kind
// of server instead (s3, azure-blob, webdav, quirky, gcs; see the profiles
// in the package doc of internal/fakeapi). Flags inject latency and faults;
// the routes under /_fakeapi/ serve stats and health and change faults at
// run time. Run it with -h for the flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	// CA roots compiled in, used when the system has none: the release
	// image (hack/release) is a static binary with no CA bundle beside it.
	_ "golang.org/x/crypto/x509roots/fallback"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
	"github.com/listkeeper/listkeeper/internal/version"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case errors.Is(err, flag.ErrHelp):
	case err != nil:
		_, _ = fmt.Fprintln(os.Stderr, "fakeapi:", err)
		os.Exit(1)
	}
}

// run serves until ctx is done, then shuts down gracefully. It writes one
// line to stdout once it is listening, and flag errors and usage to stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if o.version {
		_, _ = fmt.Fprintln(stdout, version.String("fakeapi"))
		return nil
	}
	s, err := newServer(o)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	auth := "off"
	if o.token != "" {
		auth = "bearer token"
	}
	_, _ = fmt.Fprintf(stdout, "fakeapi listening on http://%s (profile %s, documents %d, state file %q, auth %s)\n",
		ln.Addr(), s.Profile(), len(s.Paths()), o.stateFile, auth)

	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), o.shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		_ = srv.Close()
		return errors.Join(fmt.Errorf("shutdown: %w", err), serveError(<-served))
	}
	return serveError(<-served)
}

// newServer builds the fake server and creates the --seed-doc documents
// that do not exist yet (a state file may already hold them).
func newServer(o options) (*fakeapi.Server, error) {
	s, err := fakeapi.New(o.serverOptions()...)
	if err != nil {
		return nil, err
	}
	for _, d := range o.seedDocs {
		if _, _, exists := s.Get(d.path); exists {
			continue
		}
		if _, err := s.Set(d.path, d.body); err != nil {
			return nil, fmt.Errorf("--seed-doc: %w", err)
		}
	}
	return s, nil
}

// serveError is what Serve ended with, without the ErrServerClosed of a
// clean shutdown.
func serveError(err error) error {
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
