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
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// StopGrace is how long a child gets to exit after SIGTERM before its
// process group is killed. The manager's own graceful shutdown takes up to
// 15s.
const StopGrace = 20 * time.Second

// Proc is one child process. It runs in its own process group, so that a
// terminal's Ctrl-C reaches only the parent, which then stops it, and so
// that killing the group also kills anything the child started. Its stdout
// and stderr are appended to a log file. A Proc is safe for concurrent use.
type Proc struct {
	// Name names the child in messages and its log file, e.g. manager-1.
	Name string
	// LogPath is the file its output goes to.
	LogPath string

	cmd      *exec.Cmd
	stopping atomic.Bool   // set before it is stopped or killed on purpose
	done     chan struct{} // closed when it has exited
	err      error         // its exit error; read only after done is closed
}

// Supervisor starts child processes and notices when one exits before it
// is stopped. It is safe for concurrent use.
type Supervisor struct {
	logDir string

	mu    sync.Mutex
	procs []*Proc

	once    sync.Once
	died    chan struct{} // closed when the first child exits unexpectedly
	diedErr error         // why; read only after died is closed
}

// NewSupervisor returns a Supervisor whose children log to files in logDir.
func NewSupervisor(logDir string) *Supervisor {
	return &Supervisor{logDir: logDir, died: make(chan struct{})}
}

// Start runs bin with args as a child called name, appending its output to
// <logDir>/<name>.log. A child started again under the same name (a
// restart) appends to the same file, after a line that says so. The child
// inherits this process's environment.
func (s *Supervisor) Start(name, bin string, args ...string) (*Proc, error) {
	return s.StartEnv(name, nil, bin, args...)
}

// StartEnv is Start with env ("KEY=value") added to the inherited
// environment; a key in env wins over an inherited one.
func (s *Supervisor) StartEnv(name string, env []string, bin string, args ...string) (*Proc, error) {
	logPath := filepath.Join(s.logDir, name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create log of %s: %w", name, err)
	}
	if fi, err := logFile.Stat(); err == nil && fi.Size() > 0 {
		fmt.Fprintf(logFile, "\n--- harness: %s started again at %s: %s %s\n",
			name, time.Now().Format(time.RFC3339Nano), bin, strings.Join(args, " "))
	}
	cmd := exec.Command(bin, args...)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = childProcAttr()
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &Proc{Name: name, LogPath: logPath, cmd: cmd, done: make(chan struct{})}
	s.mu.Lock()
	s.procs = append(s.procs, p)
	s.mu.Unlock()
	go s.wait(p, logFile)
	return p, nil
}

// wait reaps p and reports it when nobody asked it to stop.
func (s *Supervisor) wait(p *Proc, logFile *os.File) {
	p.err = p.cmd.Wait()
	_ = logFile.Close()
	close(p.done)
	if !p.stopping.Load() {
		s.once.Do(func() {
			s.diedErr = fmt.Errorf("%s exited early (%v); see %s", p.Name, exitStatus(p.err), p.LogPath)
			close(s.died)
		})
	}
}

// Died is closed when a child exits before it is stopped or killed through
// its Proc; Err then says which one.
func (s *Supervisor) Died() <-chan struct{} {
	if s == nil {
		return nil
	}
	return s.died
}

// Err returns the early exit that closed Died, or nil.
func (s *Supervisor) Err() error {
	if s == nil {
		return nil
	}
	select {
	case <-s.died:
		return s.diedErr
	default:
		return nil
	}
}

// Logs returns the log files of all children, in the order they were
// first started, each once.
func (s *Supervisor) Logs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, p := range s.procs {
		if !slices.Contains(out, p.LogPath) {
			out = append(out, p.LogPath)
		}
	}
	return out
}

// Procs returns every child ever started, in start order.
func (s *Supervisor) Procs() []*Proc {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.procs)
}

// StopAll stops every child that still runs, in parallel.
func (s *Supervisor) StopAll() { Stop(s.Procs()...) }

// KillAll kills every child that still runs with SIGKILL, in parallel.
func (s *Supervisor) KillAll() {
	var wg sync.WaitGroup
	for _, p := range s.Procs() {
		wg.Go(p.Kill)
	}
	wg.Wait()
}

// Stop stops the given children in parallel and waits for them. Nil
// entries are skipped.
func Stop(procs ...*Proc) {
	var wg sync.WaitGroup
	for _, p := range procs {
		if p != nil {
			wg.Go(p.Stop)
		}
	}
	wg.Wait()
}

// Pid returns the child's process ID, which is also its process group ID.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Done is closed when the child has exited.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Exited reports whether the child has exited.
func (p *Proc) Exited() bool { return isClosed(p.done) }

// ExitErr returns how the child exited: nil for status 0. It is nil while
// the child runs.
func (p *Proc) ExitErr() error {
	if !p.Exited() {
		return nil
	}
	return p.err
}

// Stop sends SIGTERM to the child's process group and waits up to
// StopGrace for it to exit, then kills the group with SIGKILL. Stopping a
// child that has exited does nothing. A paused child (Pause) is resumed
// after the SIGTERM, so that it can act on it.
func (p *Proc) Stop() {
	p.stopping.Store(true)
	if p.Exited() {
		return
	}
	_ = syscall.Kill(-p.Pid(), syscall.SIGTERM)
	_ = syscall.Kill(-p.Pid(), syscall.SIGCONT)
	select {
	case <-p.done:
		return
	case <-time.After(StopGrace):
	}
	p.Kill()
}

// Kill sends SIGKILL to the child's process group and waits for the child
// to exit, which is then not an early exit.
func (p *Proc) Kill() {
	p.stopping.Store(true)
	if p.Exited() {
		return
	}
	_ = syscall.Kill(-p.Pid(), syscall.SIGKILL)
	<-p.done
}

// Pause stops the child's process group with SIGSTOP: it stays alive,
// holds its connections and its state, and runs no code until Resume, as a
// process on a stalled node or in a paused VM would. Pausing a child that
// has exited does nothing.
func (p *Proc) Pause() error {
	if p.Exited() {
		return nil
	}
	if err := syscall.Kill(-p.Pid(), syscall.SIGSTOP); err != nil {
		return fmt.Errorf("pause %s: %w", p.Name, err)
	}
	return nil
}

// Resume continues a paused child's process group with SIGCONT.
func (p *Proc) Resume() error {
	if p.Exited() {
		return nil
	}
	if err := syscall.Kill(-p.Pid(), syscall.SIGCONT); err != nil {
		return fmt.Errorf("resume %s: %w", p.Name, err)
	}
	return nil
}

// MayExit says that the child may exit by itself from now on, such as a
// replica that finds, when resumed, that its right to act has ended: its
// exit is then not an early exit (Supervisor.Died), and ExitErr says how
// it ended.
func (p *Proc) MayExit() { p.stopping.Store(true) }

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
