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
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// defaultAddr is where the server listens without --addr.
const defaultAddr = "127.0.0.1:8090"

// options are the parsed command-line flags.
type options struct {
	version         bool
	addr            string
	latency         time.Duration
	latencyJitter   time.Duration
	rate503         float64
	rate429         float64
	retryAfter      time.Duration
	rateCommitDrop  float64
	rateReset       float64
	holdWrites      time.Duration
	holdWritesRate  float64
	seed            int64
	requireIfMatch  bool
	stateFile       string
	token           string
	tokenFile       string
	maxBodyBytes    int64
	history         bool
	seedDocs        seedDocs
	shutdownTimeout time.Duration
	profile         fakeapi.Profile
	weakWindow      time.Duration
}

// parseFlags parses args (without the program name). Usage and flag errors
// are written to out.
func parseFlags(args []string, out io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("fakeapi", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		_, _ = fmt.Fprintln(out, "Usage: fakeapi [flags]\n\nServes JSON list documents with the listkeeper list HTTP contract (ETag, If-Match), or like another kind of server (--profile), with optional fault injection.\n\nFlags:")
		fs.PrintDefaults()
	}
	fs.BoolVar(&o.version, "version", false, "print the version and exit")
	fs.StringVar(&o.addr, "addr", defaultAddr, "listen address")
	fs.TextVar(&o.profile, "profile", fakeapi.ProfileStrict, "behave like the kind of server `name`, one of: "+profileNames()+" (gcs: writes are conditional on x-goog-if-generation-match and need a bearer token, any one unless --token is set)")
	fs.DurationVar(&o.weakWindow, "weak-window", fakeapi.DefaultWeakWindow, "with --profile webdav, how long after a write a document's ETag stays weak (0: never)")
	fs.DurationVar(&o.latency, "latency", 0, "latency added to every list request")
	fs.DurationVar(&o.latencyJitter, "latency-jitter", 0, "extra random latency in [0, jitter)")
	fs.Float64Var(&o.rate503, "rate-503", 0, "probability of answering 503 with Retry-After")
	fs.Float64Var(&o.rate429, "rate-429", 0, "probability of answering 429 with Retry-After")
	fs.DurationVar(&o.retryAfter, "retry-after", fakeapi.DefaultRetryAfter, "Retry-After of injected 429 and 503 (rounded up to seconds)")
	fs.Float64Var(&o.rateCommitDrop, "rate-commit-drop", 0, "probability that a PUT or DELETE is processed and then its connection dropped without an answer")
	fs.Float64Var(&o.rateReset, "rate-reset", 0, "probability that a request's connection is reset before anything is processed")
	fs.DurationVar(&o.holdWrites, "hold-writes", 0, "hold PUTs and DELETEs this long after their body is read and before their precondition is evaluated, without blocking other requests; a held write whose client gave up still commits if its precondition holds (0: never)")
	fs.Float64Var(&o.holdWritesRate, "hold-writes-rate", 1, "with --hold-writes, the probability that a PUT or DELETE is held")
	fs.Int64Var(&o.seed, "seed", fakeapi.DefaultSeed, "seed of the fault and jitter random source")
	fs.BoolVar(&o.requireIfMatch, "require-if-match", true, "answer 428 to a PUT without If-Match or If-None-Match: *, and to a DELETE without If-Match (profiles s3, azure-blob, webdav and gcs never do)")
	fs.StringVar(&o.stateFile, "state-file", "", "persist documents and the ETag counter in this file (loaded at start, rewritten atomically on every commit)")
	fs.StringVar(&o.token, "token", "", "require Authorization: Bearer <token> (prefer --token-file: flags are visible to other users)")
	fs.StringVar(&o.tokenFile, "token-file", "", "read the bearer token from this file")
	fs.Int64Var(&o.maxBodyBytes, "max-body-bytes", fakeapi.DefaultMaxBodyBytes, "largest PUT body accepted; larger ones get 413")
	fs.BoolVar(&o.history, "history", false, "record every committed version (served at /_fakeapi/history?path=P)")
	fs.Var(&o.seedDocs, "seed-doc", "`path=json`, path=@file or path=file: create the document at path at start unless it exists (repeatable)")
	fs.DurationVar(&o.shutdownTimeout, "shutdown-timeout", 10*time.Second, "how long to wait for requests in flight on SIGINT/SIGTERM")
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		return options{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.token != "" && o.tokenFile != "" {
		return options{}, errors.New("--token and --token-file are exclusive")
	}
	if o.holdWrites < 0 {
		return options{}, fmt.Errorf("--hold-writes must not be negative, got %s", o.holdWrites)
	}
	if o.holdWrites == 0 && isSet(fs, "hold-writes-rate") {
		return options{}, errors.New("--hold-writes-rate needs --hold-writes")
	}
	if o.tokenFile != "" {
		b, err := os.ReadFile(o.tokenFile)
		if err != nil {
			return options{}, fmt.Errorf("read --token-file: %w", err)
		}
		if o.token = strings.TrimSpace(string(b)); o.token == "" {
			return options{}, fmt.Errorf("--token-file %s is empty", o.tokenFile)
		}
	}
	return o, nil
}

// serverOptions turns the flags into fakeapi options.
func (o options) serverOptions() []fakeapi.Option {
	opts := []fakeapi.Option{
		fakeapi.WithLatency(o.latency, o.latencyJitter),
		fakeapi.WithFaults(fakeapi.Faults{
			Rate503:               o.rate503,
			Rate429:               o.rate429,
			RetryAfter:            o.retryAfter,
			RateResetBeforeCommit: o.rateReset,
			RateCommitThenDrop:    o.rateCommitDrop,
			RateHoldWrites:        o.holdRate(),
			HoldWrites:            o.holdWrites,
		}),
		fakeapi.WithSeed(o.seed),
		fakeapi.WithRequireIfMatch(o.requireIfMatch),
		fakeapi.WithMaxBodyBytes(o.maxBodyBytes),
		fakeapi.WithHistory(o.history),
		fakeapi.WithProfile(o.profile),
		fakeapi.WithWeakWindow(o.weakWindow),
	}
	if o.stateFile != "" {
		opts = append(opts, fakeapi.WithStateFile(o.stateFile))
	}
	if o.token != "" {
		opts = append(opts, fakeapi.WithToken(o.token))
	}
	return opts
}

// holdRate is the probability of a held write: --hold-writes-rate when
// --hold-writes is set, else 0.
func (o options) holdRate() float64 {
	if o.holdWrites == 0 {
		return 0
	}
	return o.holdWritesRate
}

// isSet reports whether the flag name was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// profileNames lists the profiles for the help text.
func profileNames() string {
	ps := fakeapi.Profiles()
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = string(p)
	}
	return strings.Join(names, ", ")
}

// seedDoc is one --seed-doc.
type seedDoc struct {
	path string
	body []byte
}

// seedDocs is the repeatable --seed-doc flag.
type seedDocs []seedDoc

var _ flag.Value = (*seedDocs)(nil)

func (s *seedDocs) String() string {
	if s == nil {
		return ""
	}
	paths := make([]string, len(*s))
	for i, d := range *s {
		paths[i] = d.path
	}
	return strings.Join(paths, ",")
}

// Set parses path=value. The value is read from a file when it starts with
// @, used inline when it is valid JSON, and read from a file otherwise.
func (s *seedDocs) Set(v string) error {
	path, val, ok := strings.Cut(v, "=")
	if !ok || !strings.HasPrefix(path, "/") {
		return fmt.Errorf("want path=json, path=@file or path=file with path starting with /, got %q", v)
	}
	body := []byte(val)
	if name, isFile := strings.CutPrefix(val, "@"); isFile || !json.Valid(body) {
		if !isFile {
			name = val
		}
		b, err := os.ReadFile(name)
		if err != nil {
			return fmt.Errorf("%s is neither valid JSON nor a readable file: %w", path, err)
		}
		body = b
	}
	if !json.Valid(body) {
		return fmt.Errorf("document for %s is not valid JSON", path)
	}
	*s = append(*s, seedDoc{path: path, body: body})
	return nil
}
