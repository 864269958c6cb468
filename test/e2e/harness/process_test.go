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
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// waitClosed fails the test when ch is not closed within d.
func waitClosed(t *testing.T, ch <-chan struct{}, d time.Duration, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(d):
		t.Fatalf("%s did not happen within %v", what, d)
	}
}

// waitLog fails the test when the file at path does not contain want
// within 10s.
func waitLog(t *testing.T, path, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if strings.Contains(string(b), want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s lacks %q after 10s:\n%s", path, want, b)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestSupervisorStopKillRestart(t *testing.T) {
	dir := t.TempDir()
	sup := NewSupervisor(dir)
	// The child starts a grandchild in its group; stopping must end both.
	p, err := sup.Start("sleeper", "/bin/sh", "-c", "echo started; sleep 60 & wait")
	if err != nil {
		t.Fatal(err)
	}
	waitLog(t, p.LogPath, "started")
	p.Stop()
	if !p.Exited() {
		t.Fatal("Stop returned before the child exited")
	}
	p2, err := sup.Start("sleeper", "/bin/sh", "-c", "echo again; sleep 60")
	if err != nil {
		t.Fatal(err)
	}
	waitLog(t, p2.LogPath, "again")
	p2.Kill()
	if p2.ExitErr() == nil {
		t.Error("a killed child reports exit status 0")
	}
	if err := sup.Err(); err != nil {
		t.Errorf("stopped and killed children count as early exits: %v", err)
	}
	if logs := sup.Logs(); len(logs) != 1 || logs[0] != filepath.Join(dir, "sleeper.log") {
		t.Errorf("Logs = %v, want one file per name", logs)
	}
	b, err := os.ReadFile(filepath.Join(dir, "sleeper.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"started", "--- harness: sleeper started again", "again"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("log lacks %q:\n%s", want, b)
		}
	}
}

func TestSupervisorReportsEarlyExit(t *testing.T) {
	sup := NewSupervisor(t.TempDir())
	if _, err := sup.Start("quitter", "/bin/sh", "-c", "exit 3"); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, sup.Died(), 10*time.Second, "the early exit")
	if err := sup.Err(); err == nil || !strings.Contains(err.Error(), "quitter exited early (exit status 3)") {
		t.Errorf("Err = %v", err)
	}
	sup.StopAll()
}

func TestPauseResumeMayExit(t *testing.T) {
	sup := NewSupervisor(t.TempDir())
	// The child prints a tick every 10 ms: while it is paused, none.
	p, err := sup.Start("ticker", "/bin/sh", "-c", "i=0; while [ $i -lt 1000 ]; do echo tick; i=$((i+1)); sleep 0.01; done; exit 4")
	if err != nil {
		t.Fatal(err)
	}
	waitLog(t, p.LogPath, "tick")
	if err := p.Pause(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // a tick in flight lands
	before, _ := os.ReadFile(p.LogPath)
	time.Sleep(300 * time.Millisecond)
	after, _ := os.ReadFile(p.LogPath)
	if len(after) != len(before) {
		t.Errorf("a paused child went on writing: %d bytes, then %d", len(before), len(after))
	}
	if err := p.Resume(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for b, _ := os.ReadFile(p.LogPath); len(b) == len(after); b, _ = os.ReadFile(p.LogPath) {
		if time.Now().After(deadline) {
			t.Fatal("a resumed child did not write again within 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Allowed to exit by itself, it is not an early exit.
	p.MayExit()
	_ = p.Pause()
	p.Stop() // resumes it, so that it ends on SIGTERM well within StopGrace
	if !p.Exited() || p.ExitErr() == nil {
		t.Errorf("after Stop of a paused child: exited %v, %v", p.Exited(), p.ExitErr())
	}
	if err := sup.Err(); err != nil {
		t.Errorf("a child that may exit counts as an early exit: %v", err)
	}
	q, err := sup.Start("quitter", "/bin/sh", "-c", "sleep 0.1; exit 3")
	if err != nil {
		t.Fatal(err)
	}
	q.MayExit()
	waitClosed(t, q.Done(), 10*time.Second, "the exit")
	if err := sup.Err(); err != nil {
		t.Errorf("a child that may exit counts as an early exit: %v", err)
	}
	if err := q.ExitErr(); err == nil || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("ExitErr = %v, want exit status 3", err)
	}
}

func TestFindPanics(t *testing.T) {
	dir := t.TempDir()
	clean := filepath.Join(dir, "clean.log")
	bad := filepath.Join(dir, "bad.log")
	if err := os.WriteFile(clean, []byte("INFO starting\nINFO panicky name is fine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("INFO ok\npanic: boom\n\ngoroutine 1 [running]:\nE Observed a panic in reconciler\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := FindPanics([]string{clean, bad}, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"bad.log:2: panic: boom", "bad.log:5: E Observed a panic in reconciler"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("FindPanics = %q, want %q", got, want)
	}
	if got, _ := FindPanics([]string{bad}, 1); len(got) != 1 {
		t.Errorf("FindPanics with max 1 = %q", got)
	}
	if _, err := FindPanics([]string{filepath.Join(dir, "none.log")}, 0); err == nil {
		t.Error("FindPanics of a missing file succeeded")
	}
}
