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

package testenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

func TestEnvServesTheCRDs(t *testing.T) {
	env.Require(t)
	var lists v1alpha1.ExternalListList
	if err := env.Client().List(context.Background(), &lists, client.InNamespace("default")); err != nil {
		t.Fatalf("list ExternalLists (is the CRD installed?): %v", err)
	}
	var entries v1alpha1.ListEntryList
	if err := env.Client().List(context.Background(), &entries, client.InNamespace("default")); err != nil {
		t.Fatalf("list ListEntries (is the CRD installed?): %v", err)
	}
}

func TestConfigIsACopyWithTheRateLimits(t *testing.T) {
	env.Require(t)
	cfg := env.Config()
	if cfg.QPS != testQPS || cfg.Burst != testBurst {
		t.Errorf("Config has QPS %v, burst %d; want %v, %d", cfg.QPS, cfg.Burst, testQPS, testBurst)
	}
	cfg.QPS = 1
	if again := env.Config(); again.QPS != testQPS {
		t.Errorf("changing a Config changed the Env's: QPS %v", again.QPS)
	}
}

func TestKubeconfigAuthenticatesTheUser(t *testing.T) {
	env.Require(t)
	path, err := env.Kubeconfig(testUser)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	review, err := cs.AuthenticationV1().SelfSubjectReviews().Create(context.Background(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("self subject review with %s: %v", path, err)
	}
	if got := review.Status.UserInfo.Username; got != testUser {
		t.Errorf("the kubeconfig authenticates %q, want %q", got, testUser)
	}

	if _, err := env.Kubeconfig("nobody"); err == nil {
		t.Error("Kubeconfig of a user not in Options.Users succeeded")
	}
}

func TestNotAvailable(t *testing.T) {
	e, err := Start(Options{Assets: t.TempDir(), CRDDirectory: ProjectCRDs})
	if err == nil {
		t.Fatal("Start with no binaries succeeded")
	}
	if e == nil {
		t.Fatal("Start returned a nil Env")
	}
	if !errors.Is(e.Err(), err) || !strings.Contains(err.Error(), "lack kube-apiserver") {
		t.Errorf("Err() = %v, Start returned %v; want the same, naming the missing binary", e.Err(), err)
	}
	if e.Config() != nil || e.Client() != nil {
		t.Error("an Env that is not available has a Config or a Client")
	}
	if _, err := e.Kubeconfig(testUser); err == nil {
		t.Error("an Env that is not available has a kubeconfig")
	}
	if failed, msg := requireOutcome(t, e); !failed || !strings.Contains(msg, "lack kube-apiserver") {
		t.Errorf("Require failed = %t with %q; want it to fail with the reason", failed, msg)
	}
	for range 2 {
		if err := e.Stop(); err != nil {
			t.Errorf("Stop = %v", err)
		}
	}
}

func TestNilEnv(t *testing.T) {
	var e *Env
	if failed, msg := requireOutcome(t, e); !failed || !strings.Contains(msg, "testenv.Main") {
		t.Errorf("Require on nil failed = %t with %q; want it to fail, naming testenv.Main", failed, msg)
	}
	if e.Config() != nil || e.Client() != nil {
		t.Error("a nil Env has a Config or a Client")
	}
	if err := e.Stop(); err != nil {
		t.Errorf("Stop on nil = %v", err)
	}
}

func TestRequirePassesWhenAvailable(t *testing.T) {
	env.Require(t)
	if failed, msg := requireOutcome(t, env); failed {
		t.Errorf("Require failed on an available Env: %s", msg)
	}
}

func TestSetUpError(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name    string
		before  error
		setup   func(*Env) error
		wantErr error
	}{
		{"no setup", nil, nil, nil},
		{"setup succeeds", nil, func(*Env) error { return nil }, nil},
		{"setup fails", nil, func(*Env) error { return boom }, boom},
		{"not available before", errNotStarted, func(*Env) error { return boom }, errNotStarted},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := &Env{err: tc.before}
			e.setUp(tc.setup)
			if tc.wantErr == nil && e.Err() != nil || tc.wantErr != nil && !errors.Is(e.Err(), tc.wantErr) {
				t.Errorf("Err() = %v, want %v", e.Err(), tc.wantErr)
			}
			if tc.before == nil && tc.wantErr != nil && errors.Is(e.Err(), errNotStarted) {
				t.Errorf("Err() = %v keeps an earlier reason", e.Err())
			}
		})
	}
}

func TestEnvironment(t *testing.T) {
	root := filepath.FromSlash("/repo")
	abs := filepath.FromSlash("/elsewhere/crds")
	tests := []struct {
		name      string
		crdDir    string
		wantPaths []string
	}{
		{"no CRDs", "", nil},
		{"relative to the module root", ProjectCRDs, []string{filepath.Join(root, "config", "crd", "bases")}},
		{"absolute", abs, []string{abs}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := environment(Options{CRDDirectory: tc.crdDir}, root, "/assets")
			if fmt.Sprint(got.CRDDirectoryPaths) != fmt.Sprint(tc.wantPaths) {
				t.Errorf("CRDDirectoryPaths = %v, want %v", got.CRDDirectoryPaths, tc.wantPaths)
			}
			if got.ErrorIfCRDPathMissing != (tc.crdDir != "") {
				t.Errorf("ErrorIfCRDPathMissing = %t with CRDDirectory %q", got.ErrorIfCRDPathMissing, tc.crdDir)
			}
			if got.BinaryAssetsDirectory != "/assets" || got.ControlPlaneStartTimeout != startTimeout || got.ControlPlaneStopTimeout != stopTimeout {
				t.Errorf("environment = %+v", got)
			}
		})
	}
}

func TestProjectCRDsExist(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(root, filepath.FromSlash(ProjectCRDs))); err != nil || !st.IsDir() {
		t.Errorf("ProjectCRDs %s is not a directory under %s: %v", ProjectCRDs, root, err)
	}
}

// requireOutcome calls e.Require with a testing.TB that records a fatal
// failure instead of failing t.
func requireOutcome(t *testing.T, e *Env) (failed bool, msg string) {
	t.Helper()
	r := &recordingTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.Require(r)
	}()
	<-done
	if r.skipped {
		t.Errorf("Require skipped the test (%s); it must fail it", r.msg)
	}
	return r.failed, r.msg
}

// recordingTB records Fatalf and the Skip family and ends the goroutine,
// as testing.T does.
type recordingTB struct {
	testing.TB
	failed, skipped bool
	msg             string
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Fatalf(format string, args ...any) {
	r.failed, r.msg = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (r *recordingTB) Skip(args ...any) { r.Skipf("%s", fmt.Sprint(args...)) }

func (r *recordingTB) SkipNow() { r.Skipf("SkipNow") }

func (r *recordingTB) Skipf(format string, args ...any) {
	r.skipped, r.msg = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}
