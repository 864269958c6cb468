//go:build linux

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

package azurite_test

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/storetest/azurite"
)

func TestStartWithoutInstallSaysMakeAzurite(t *testing.T) {
	_, err := azurite.Start(t.Context(), azurite.Options{Dir: t.TempDir()})
	if !errors.Is(err, azurite.ErrNotInstalled) || !strings.Contains(err.Error(), "make azurite") {
		t.Fatalf("Start without an install = %v, want ErrNotInstalled saying to run 'make azurite'", err)
	}
}

// TestStopLeavesNothing starts an emulator of its own and checks that
// Stop leaves no process in its group, no listener and no temporary files.
func TestStopLeavesNothing(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where Start makes its log directory
	a, err := azurite.Start(testContext(t), azurite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Stop() })
	pid := a.Pid()
	if host, _, _ := net.SplitHostPort(a.Addr()); host != "127.0.0.1" {
		t.Errorf("Addr = %s, want 127.0.0.1", a.Addr())
	}
	if !strings.HasPrefix(a.LogPath(), tmp+string(filepath.Separator)) {
		t.Errorf("LogPath = %s, want it under TMPDIR %s", a.LogPath(), tmp)
	}
	if err := syscall.Kill(-pid, 0); err != nil {
		t.Fatalf("process group %d is not there while running: %v", pid, err)
	}
	if !slices.Contains(childPIDs(t), pid) {
		t.Fatalf("pid %d is not a child of the test", pid)
	}

	if err := a.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("after Stop, signalling process group %d = %v, want ESRCH", pid, err)
	}
	if slices.Contains(childPIDs(t), pid) {
		t.Errorf("after Stop, pid %d is still a child of the test", pid)
	}
	if c, err := net.DialTimeout("tcp", a.Addr(), time.Second); err == nil {
		_ = c.Close()
		t.Errorf("after Stop, %s still accepts connections", a.Addr())
	}
	if left, err := os.ReadDir(tmp); err != nil || len(left) != 0 {
		t.Errorf("after Stop, TMPDIR holds %v (%v), want nothing", left, err)
	}
	if err := a.Stop(); err != nil {
		t.Errorf("second Stop = %v", err)
	}
}

// TestStartTimeoutLeavesNothing checks that a start that gives up kills
// the emulator it started and keeps the log in a given LogDir.
func TestStartTimeoutLeavesNothing(t *testing.T) {
	logDir := t.TempDir()
	before := childPIDs(t)
	_, err := azurite.Start(testContext(t), azurite.Options{LogDir: logDir, StartTimeout: time.Nanosecond})
	if err == nil || !strings.Contains(err.Error(), "not ready") {
		t.Fatalf("Start with a timeout of 1ns = %v, want a 'not ready' error", err)
	}
	if after := childPIDs(t); !slices.Equal(after, before) {
		t.Errorf("children before the failed start %v, after %v", before, after)
	}
	if _, err := os.Stat(filepath.Join(logDir, "azurite-blob.log")); err != nil {
		t.Errorf("the log in the given LogDir: %v", err)
	}
}

// childPIDs returns the process IDs of the test process's children,
// sorted.
func childPIDs(t *testing.T) []int {
	t.Helper()
	files, err := filepath.Glob("/proc/self/task/*/children")
	if err != nil || len(files) == 0 {
		t.Fatalf("list /proc/self/task/*/children: %v", err)
	}
	var pids []int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread has exited
		}
		for _, field := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(field); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	slices.Sort(pids)
	return slices.Compact(pids)
}
