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
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The command line as kubectl hands it over: argv, the kubeconfig from
// --kubeconfig or KUBECONFIG, -n, and the exit status.

// TestRun runs the commands through run, as main does.
func TestRun(t *testing.T) {
	f := newStatusFixture(t, "run")
	kubeconfig, err := testEnv.Kubeconfig(adminUser)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err = run(context.Background(), []string{"--kubeconfig", kubeconfig, "-n", f.ns, "status", "allow-list", "--operator-namespace", f.opNS}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, &stderr)
	}
	if !strings.Contains(stdout.String(), "Owner:        manager-0-7f3a (Lease manager-0-7f3a") {
		t.Errorf("status does not name the owner:\n%s", &stdout)
	}
	stdout.Reset()
	if err := run(context.Background(), []string{"why", "tenant-d", "--kubeconfig", kubeconfig, "--namespace", f.ns}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stdout.String(), "tenant-d is not on list allow-list: connection refused, timeout") {
		t.Errorf("why tenant-d:\n%s", &stdout)
	}
	err = run(context.Background(), []string{"status", "allow-list", "--kubeconfig", filepath.Join(t.TempDir(), "missing")}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "kubeconfig") {
		t.Errorf("a missing kubeconfig: %v", err)
	}
}

// TestBinary builds the plugin and runs it as a process, and through
// kubectl's plugin lookup when kubectl is on the PATH.
func TestBinary(t *testing.T) {
	f := newStatusFixture(t, "binary")
	kubeconfig, err := testEnv.Kubeconfig(adminUser)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "kubectl-listkeeper")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	cmd := exec.Command(bin, "status", "xl/allow-list", "-o", "json", "--operator-namespace", f.opNS, "-n", f.ns)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, stderrOf(err))
	}
	var s listStatus
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatalf("-o json: %v\n%s", err, out)
	}
	if s.Name != "allow-list" || s.Namespace != f.ns || !s.Claim.Held || s.Owner.Holder != "manager-0-7f3a" || s.DocumentID != f.docID {
		t.Errorf("status -o json: %+v", s)
	}

	cmd = exec.Command(bin, "status", "no-such-list", "--kubeconfig", kubeconfig, "-n", f.ns)
	_, err = cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(exit.Stderr), `error: get ExternalList `+f.ns+`/no-such-list: externallists.listkeeper.dev "no-such-list" not found`) {
		t.Errorf("status of a missing list: %v, stderr:\n%s", err, stderrOf(err))
	}

	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Logf("no kubectl on the PATH: the plugin lookup is not exercised")
		return
	}
	cmd = exec.Command(kubectl, "listkeeper", "why", "le/tenant-a", "--kubeconfig", kubeconfig, "-n", f.ns)
	cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, stderrOf(err))
	}
	if want := "tenant-a is on list allow-list (Added): nothing to do.\n"; !strings.HasPrefix(string(out), want) {
		t.Errorf("kubectl listkeeper why le/tenant-a:\n%s\nwant it to start with %q", out, want)
	}
}

func stderrOf(err error) string {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return string(exit.Stderr)
	}
	return ""
}
