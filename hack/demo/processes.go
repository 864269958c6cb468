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
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// stopGrace is how long a child gets to exit after SIGTERM before its
// process group is killed. The manager's own graceful shutdown takes up to
// 15s.
const stopGrace = 20 * time.Second

// proc is one child process. It runs in its own process group, so that a
// terminal's Ctrl-C reaches only the demo, which then stops it, and so that
// killing the group also kills anything the child started. Its stdout and
// stderr go to a log file.
type proc struct {
	name    string
	logPath string
	cmd     *exec.Cmd

	stopping atomic.Bool   // set before the demo stops it on purpose
	done     chan struct{} // closed when it has exited
	err      error         // its exit error; read only after done is closed
}

// supervisor starts child processes and notices when one exits before the
// demo stops it. It is safe for concurrent use.
type supervisor struct {
	logDir string

	mu    sync.Mutex
	procs []*proc

	once    sync.Once
	died    chan struct{} // closed when the first child exits unexpectedly
	diedErr error         // why; read only after died is closed
}

func newSupervisor(logDir string) *supervisor {
	return &supervisor{logDir: logDir, died: make(chan struct{})}
}

// start runs bin with args as a child called name, logging to
// <logDir>/<name>.log.
func (s *supervisor) start(name, bin string, args ...string) (*proc, error) {
	logPath := filepath.Join(s.logDir, name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("create log of %s: %w", name, err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = childProcAttr()
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, logPath: logPath, cmd: cmd, done: make(chan struct{})}
	s.mu.Lock()
	s.procs = append(s.procs, p)
	s.mu.Unlock()
	go s.wait(p, logFile)
	return p, nil
}

// wait reaps p and reports it when nobody asked it to stop.
func (s *supervisor) wait(p *proc, logFile *os.File) {
	p.err = p.cmd.Wait()
	_ = logFile.Close()
	close(p.done)
	if !p.stopping.Load() {
		s.once.Do(func() {
			s.diedErr = fmt.Errorf("%s exited early (%v); see %s", p.name, exitStatus(p.err), p.logPath)
			close(s.died)
		})
	}
}

// Died is closed when a child exits before the demo stops it; Err then says
// which one.
func (s *supervisor) Died() <-chan struct{} { return s.died }

// Err returns the early exit that closed Died, or nil.
func (s *supervisor) Err() error {
	select {
	case <-s.died:
		return s.diedErr
	default:
		return nil
	}
}

// logs returns the log files of all children, in start order.
func (s *supervisor) logs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.procs))
	for i, p := range s.procs {
		out[i] = p.logPath
	}
	return out
}

// all returns every child, in start order.
func (s *supervisor) all() []*proc {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.procs)
}

// stop stops the given children in parallel and waits for them.
func stop(procs ...*proc) {
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Go(p.stop)
	}
	wg.Wait()
}

// stop sends SIGTERM to p's process group and waits up to stopGrace for p
// to exit, then kills the group with SIGKILL. Stopping a proc that has
// exited does nothing.
func (p *proc) stop() {
	p.stopping.Store(true)
	if isClosed(p.done) {
		return
	}
	pgid := p.cmd.Process.Pid // the child leads its own group
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.done:
		return
	case <-time.After(stopGrace):
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	<-p.done
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func exitStatus(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// portFree reports whether 127.0.0.1:port can be listened on now.
func portFree(port int) bool {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	_ = ln.Close()
	return true
}

// errNotReady is what waitReady returns while the URL does not answer 200.
var errNotReady = errors.New("not ready")

// waitReady polls url until it answers 200, p exits, ctx ends or timeout
// passes.
func waitReady(ctx context.Context, p *proc, url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	last := errNotReady
	for {
		if last = probe(ctx, url); last == nil {
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s exited (%v) before %s was ready; see %s", p.name, exitStatus(p.err), url, p.logPath)
		case <-ctx.Done():
			return fmt.Errorf("%s: %s not ready after %v: %w (see %s)", p.name, url, timeout, last, p.logPath)
		case <-tick.C:
		}
	}
}

// probe does one GET of url and wants 200.
func probe(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w: %s", errNotReady, resp.Status)
	}
	return nil
}
