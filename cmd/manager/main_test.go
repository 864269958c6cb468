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
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/membership"
	"github.com/listkeeper/listkeeper/internal/version"
)

// runAsManager makes the test binary run the real main() when the tests
// start it as a child process with this variable set.
const runAsManager = "LISTKEEPER_TEST_RUN_MANAGER"

func TestMain(m *testing.M) {
	if os.Getenv(runAsManager) == "1" {
		os.Args = append([]string{"manager"}, strings.Fields(os.Getenv(runAsManager+"_ARGS"))...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// manager runs main() in a child process with args, and returns its
// stdout, stderr and error.
func manager(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), runAsManager+"=1", runAsManager+"_ARGS="+strings.Join(args, " "))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

func TestVersionFlag(t *testing.T) {
	stdout, stderr, err := manager(t, "--version")
	if err != nil {
		t.Fatalf("manager --version: %v (stderr %q)", err, stderr)
	}
	if got, want := strings.TrimSpace(stdout), version.String("manager"); got != want {
		t.Errorf("manager --version printed %q, want %q", got, want)
	}
}

// iso8601 is the layout of zapcore.ISO8601TimeEncoder.
const iso8601 = "2006-01-02T15:04:05.000Z0700"

func TestLogsAreJSONWithISO8601Time(t *testing.T) {
	o := defaultLogOptions()
	var buf bytes.Buffer
	before := time.Now().Add(-time.Second)
	newLogger(&o, &buf).WithName("setup").Info("starting manager", "member", "m-1")
	newLogger(&o, &buf).V(1).Info("debug is off by default")

	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("got %d lines, want the Info line only: %q", len(lines), buf.String())
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatalf("log line is not JSON: %v: %s", err, lines[0])
	}
	ts, ok := rec["ts"].(string)
	if !ok {
		t.Fatalf("ts is %T %v, want an ISO-8601 string", rec["ts"], rec["ts"])
	}
	at, err := time.Parse(iso8601, ts)
	if err != nil {
		t.Fatalf("ts %q is not ISO-8601: %v", ts, err)
	}
	if at.Before(before) || at.After(time.Now().Add(time.Second)) {
		t.Errorf("ts %s is not now", at)
	}
	if rec["msg"] != "starting manager" || rec["level"] != "info" || rec["logger"] != "setup" || rec["member"] != "m-1" {
		t.Errorf("record = %v", rec)
	}
}

// TestLogFlagsOverride: the usual --zap-* flags still win over the
// defaults.
func TestLogFlagsOverride(t *testing.T) {
	o := defaultLogOptions()
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	o.BindFlags(fs)
	if err := fs.Parse([]string{"--zap-encoder=console", "--zap-time-encoding=epoch", "--zap-log-level=debug"}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	newLogger(&o, &buf).V(1).Info("debug line")
	out := buf.String()
	if !strings.Contains(out, "debug line") || json.Valid([]byte(strings.TrimSpace(out))) {
		t.Errorf("with --zap-encoder=console --zap-log-level=debug got %q, want a console debug line", out)
	}
}

// TestAuditLogKeepsEveryRecord: the manager's own logger samples (after
// 100 records of one message in a second it keeps 1 in 100) and honours
// --zap-log-level; the audit logger must do neither. 1,000 commits in a
// burst give 1,000 records, even at --zap-log-level=error.
func TestAuditLogKeepsEveryRecord(t *testing.T) {
	o := defaultLogOptions()
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	o.BindFlags(fs)
	if err := fs.Parse([]string{"--zap-log-level=error"}); err != nil {
		t.Fatal(err)
	}
	var audit, plain bytes.Buffer
	al, pl := newAuditLogger(&o, &audit), newLogger(&defaultOpts, &plain)
	const n = 1000
	for i := range n {
		al.Info("list write committed", "n", i)
		pl.Info("list write committed", "n", i)
	}
	lines := strings.Split(strings.TrimSpace(audit.String()), "\n")
	if len(lines) != n {
		t.Fatalf("audit logger wrote %d records of %d", len(lines), n)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[n-1]), &rec); err != nil || rec["logger"] != "audit" || rec["level"] != "info" {
		t.Fatalf("last audit record %s (%v), want JSON at info from logger audit", lines[n-1], err)
	}
	// The control: the manager's logger does sample, so this test can tell.
	if got := strings.Count(plain.String(), "\n"); got >= n {
		t.Fatalf("the manager's logger kept %d of %d records: it no longer samples, and this test proves nothing", got, n)
	}
}

var defaultOpts = defaultLogOptions()

func TestDefaultMemberGroup(t *testing.T) {
	for pod, want := range map[string]string{
		"listkeeper-controller-manager-7d9f8b6c5d-x2x7k": "listkeeper-controller-manager",
		"my-release-listkeeper-5c7b9d8f4-abcde":          "my-release-listkeeper",
		"manager-1":                                      membership.DefaultGroup, // not a Deployment's pod
		"":                                               membership.DefaultGroup,
		"a-b":                                            membership.DefaultGroup,
		"x-hash-pod":                                     "x",
	} {
		if got := defaultMemberGroup(pod); got != want {
			t.Errorf("defaultMemberGroup(%q) = %q, want %q", pod, got, want)
		}
	}
}

// TestAllowedHostsMalformed: a malformed --allowed-hosts entry stops the
// manager before it starts, with a message that names the entry: it must
// not run with a fence other than the one its administrator meant.
func TestAllowedHostsMalformed(t *testing.T) {
	for _, entry := range []string{"10.0.0.1/8", "lists.example.com:http", "[fd00::/8]443"} {
		_, stderr, err := manager(t, "--allowed-hosts=127.0.0.0/8,"+entry)
		if err == nil {
			t.Fatalf("manager --allowed-hosts=%s started", entry)
		}
		if !strings.Contains(stderr, strconv.Quote(entry)) {
			t.Errorf("manager --allowed-hosts=%s: stderr %q does not name the entry", entry, stderr)
		}
	}
}
