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

package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// Defaults of ListServerOptions.
const (
	DefaultListServerName = "fakeapi"
	// DefaultListServerReady bounds the wait for /_fakeapi/healthz.
	DefaultListServerReady = 30 * time.Second
	// statsBeforeStop bounds the read of the counters before a stop.
	statsBeforeStop = 2 * time.Second
	// portFreeTimeout bounds the wait for the address to be free before a
	// start.
	portFreeTimeout = 10 * time.Second
	// The fake server's routes the harness reads.
	adminHealthz = fakeapi.AdminPrefix + "healthz"
	adminStats   = fakeapi.AdminPrefix + "stats"
	adminHistory = fakeapi.AdminPrefix + "history?path="
	adminFaults  = fakeapi.AdminPrefix + "faults"
)

// SeedDoc is a document the list server creates at start unless it exists
// (a state file may already hold it).
type SeedDoc struct {
	Path string // URL path, e.g. /lists/allow
	Body []byte // JSON
}

// ListServerOptions configure StartListServer.
type ListServerOptions struct {
	// Bin is the fakeapi binary. Required.
	Bin string
	// Name names the process and its log file; default
	// DefaultListServerName.
	Name string
	// Addr is host:port to listen on; default 127.0.0.1 and a free port.
	// Restarts use the same address.
	Addr string
	// Token is the bearer token every request must carry; empty: none.
	Token string
	// Latency is added to every list request (--latency); default none.
	Latency time.Duration
	// StateFile persists the documents across restarts (--state-file).
	StateFile string
	// History records every committed version (--history).
	History bool
	// Seed are the documents created at start (--seed-doc).
	Seed []SeedDoc
	// Args are extra flags.
	Args []string
	// ReadyTimeout bounds the wait until the server answers; default
	// DefaultListServerReady.
	ReadyTimeout time.Duration
}

// ListServer is the fake list server process (cmd/fakeapi) and a client
// for it. It is safe for concurrent use.
type ListServer struct {
	sup  *Supervisor
	opts ListServerOptions
	args []string
	base string // http://127.0.0.1:<port>

	mu       sync.Mutex
	proc     *Proc
	restarts int
	past     fakeapi.Stats // summed stats of the processes before this one
	reads    int64         // the harness's own reads of list documents
}

// StartListServer starts opts.Bin and waits until it answers.
func StartListServer(ctx context.Context, sup *Supervisor, opts ListServerOptions) (*ListServer, error) {
	if opts.Bin == "" {
		return nil, errors.New("ListServerOptions need Bin")
	}
	opts.Name = orDefault(opts.Name, DefaultListServerName)
	opts.ReadyTimeout = orDefault(opts.ReadyTimeout, DefaultListServerReady)
	if opts.Addr == "" {
		addr, err := FreeAddr()
		if err != nil {
			return nil, err
		}
		opts.Addr = addr
	}
	args := []string{"--addr", opts.Addr}
	if opts.Token != "" {
		args = append(args, "--token", opts.Token)
	}
	if opts.Latency > 0 {
		args = append(args, "--latency", opts.Latency.String())
	}
	if opts.StateFile != "" {
		args = append(args, "--state-file", opts.StateFile)
	}
	if opts.History {
		args = append(args, "--history")
	}
	for _, d := range opts.Seed {
		args = append(args, "--seed-doc", d.Path+"="+string(d.Body))
	}
	args = append(args, opts.Args...)
	s := &ListServer{sup: sup, opts: opts, args: args, base: "http://" + opts.Addr}
	if err := s.start(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// start waits until the address is free (the previous process may still
// hold it for a moment), starts the process and waits until it is ready.
func (s *ListServer) start(ctx context.Context) error {
	if err := waitPortFree(ctx, s.Port(), portFreeTimeout); err != nil {
		return fmt.Errorf("%s: %w", s.opts.Name, err)
	}
	p, err := s.sup.Start(s.opts.Name, s.opts.Bin, s.args...)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.proc = p
	s.mu.Unlock()
	return WaitReady(ctx, p, s.base+adminHealthz, s.opts.ReadyTimeout)
}

// waitPortFree polls until 127.0.0.1:port can be listened on, ctx ends or
// timeout passes.
func waitPortFree(ctx context.Context, port int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for !PortFree(port) {
		if time.Now().After(deadline) {
			return fmt.Errorf("port %d still taken after %v", port, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}

// Base is the server's URL without a path: http://127.0.0.1:<port>.
func (s *ListServer) Base() string { return s.base }

// Addr is the address it listens on.
func (s *ListServer) Addr() string { return s.opts.Addr }

// Port is the port it listens on.
func (s *ListServer) Port() int {
	i := strings.LastIndexByte(s.opts.Addr, ':')
	port, _ := strconv.Atoi(s.opts.Addr[i+1:])
	return port
}

// URL is the URL of the document at path.
func (s *ListServer) URL(path string) string { return s.base + path }

// Token is the bearer token, "" when none.
func (s *ListServer) Token() string { return s.opts.Token }

// Proc is the current process.
func (s *ListServer) Proc() *Proc {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc
}

// Restarts is how often the server was restarted.
func (s *ListServer) Restarts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.restarts
}

// Reads is how many list-document reads the harness itself sent (through
// Document), which the server's Stats count too.
func (s *ListServer) Reads() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads
}

// Document reads the document at path. It counts as one of the harness's
// Reads when the server answered, whatever the status.
func (s *ListServer) Document(ctx context.Context, path string) (Document, error) {
	var d Document
	err := s.getJSON(ctx, path, &d)
	if statusErr := (*StatusError)(nil); err == nil || errors.As(err, &statusErr) || errors.Is(err, errDecode) {
		s.mu.Lock()
		s.reads++
		s.mu.Unlock()
	}
	return d, err
}

// Stats reads the server's request counters, summed over the processes
// since the first start (see the package doc for what a kill loses).
func (s *ListServer) Stats(ctx context.Context) (fakeapi.Stats, error) {
	var st fakeapi.Stats
	if err := s.getJSON(ctx, adminStats, &st); err != nil {
		return fakeapi.Stats{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return AddStats(s.past, st), nil
}

// History returns the committed versions of the document at path that
// the current process recorded (with History on).
func (s *ListServer) History(ctx context.Context, path string) ([]fakeapi.Version, error) {
	var h []fakeapi.Version
	err := s.getJSON(ctx, adminHistory+path, &h)
	return h, err
}

// Faults reads the server's rate-based faults.
func (s *ListServer) Faults(ctx context.Context) (fakeapi.Faults, error) {
	var f fakeapi.Faults
	err := s.getJSON(ctx, adminFaults, &f)
	return f, err
}

// SetFaults replaces the server's rate-based faults at run time: for
// example fakeapi.Faults{RateHoldWrites: 1, HoldWrites: 8 * time.Second}
// holds every write for 8 s before its precondition is evaluated, and the
// zero Faults switches every fault off. A restarted server starts again
// with the faults of its flags.
func (s *ListServer) SetFaults(ctx context.Context, f fakeapi.Faults) error {
	body, err := json.Marshal(f)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, s.base+adminFaults, bytes.NewReader(body))
	if err != nil {
		return err
	}
	for k, v := range s.AuthHeader() {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := httpClient.Do(req)
	if err != nil {
		return fmt.Errorf("set faults: %w", err)
	}
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("set faults: %s: %s", resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}

// Get does an authorized GET of path and returns the body of a 200.
func (s *ListServer) Get(ctx context.Context, path string) (io.ReadCloser, error) {
	return get(ctx, s.base+path, s.AuthHeader())
}

// AuthHeader is the Authorization header the server wants, or nil.
func (s *ListServer) AuthHeader() http.Header {
	if s.opts.Token == "" {
		return nil
	}
	return http.Header{"Authorization": {"Bearer " + s.opts.Token}}
}

func (s *ListServer) getJSON(ctx context.Context, path string, v any) error {
	body, err := s.Get(ctx, path)
	if err != nil {
		return err
	}
	defer func() { _ = body.Close() }()
	if err := json.NewDecoder(body).Decode(v); err != nil {
		return fmt.Errorf("%w %s: %w", errDecode, path, err)
	}
	return nil
}

// Stop stops the server gracefully (SIGTERM), after reading its counters.
func (s *ListServer) Stop() {
	s.end((*Proc).Stop)
}

// Kill kills the server with SIGKILL, right after reading its counters.
// With a state file every acknowledged commit is on disk.
func (s *ListServer) Kill() {
	s.end((*Proc).Kill)
}

func (s *ListServer) end(how func(*Proc)) {
	p := s.Proc()
	if p == nil || p.Exited() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), statsBeforeStop)
	var st fakeapi.Stats
	err := s.getJSON(ctx, adminStats, &st)
	cancel()
	how(p)
	if err == nil {
		s.mu.Lock()
		s.past = AddStats(s.past, st)
		s.mu.Unlock()
	}
}

// Restart starts the server again on the same address with the same flags
// (and so the same state file), stopping it first if it runs.
func (s *ListServer) Restart(ctx context.Context) error {
	s.Stop()
	s.mu.Lock()
	s.restarts++
	s.mu.Unlock()
	return s.start(ctx)
}
