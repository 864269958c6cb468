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

package finalizerpolicy_test

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/finalizerpolicy"
	"github.com/listkeeper/listkeeper/internal/metrics"
	"github.com/listkeeper/listkeeper/internal/testenv"
)

// The tests run on the shared test environment with listkeeper's CRDs: on
// a kube-apiserver that serves MutatingAdmissionPolicy (1.37, make test)
// testenv has installed the finalizer policy of config/finalizer-policy, on
// 1.31 (make test-compat) it has not, and the probe must tell which.

// outsider may do nothing: no RBAC grants it anything.
const outsider = "outsider"

var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.Main(m, testenv.Options{
		CRDDirectory: testenv.ProjectCRDs,
		Users:        []envtest.User{{Name: outsider}},
	}, func(e *testenv.Env) error {
		env = e
		return e.Err()
	}))
}

func TestProbe(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	got, err := finalizerpolicy.Probe(ctx, env.Client(), "default")
	if err != nil {
		t.Fatal(err)
	}
	if want := env.FinalizerPolicy(); got != want {
		t.Errorf("Probe = %t on kube-apiserver %s, where the finalizer policy is installed: %t", got, env.ServerVersion().GitVersion, want)
	}

	// A dry run stores nothing.
	var entries v1alpha1.ListEntryList
	if err := env.Client().List(ctx, &entries, client.InNamespace("default")); err != nil {
		t.Fatal(err)
	}
	for _, le := range entries.Items {
		if strings.HasPrefix(le.Name, "listkeeper-finalizer-probe-") {
			t.Errorf("the probe stored ListEntry %s", le.Name)
		}
	}

	t.Run("no such namespace", func(t *testing.T) {
		if _, err := finalizerpolicy.Probe(ctx, env.Client(), "no-such-namespace"); !apierrors.IsNotFound(err) {
			t.Errorf("Probe in a namespace that does not exist: %v, want NotFound", err)
		}
	})
	t.Run("forbidden", func(t *testing.T) {
		if _, err := finalizerpolicy.Probe(ctx, userClient(t, outsider), "default"); !apierrors.IsForbidden(err) {
			t.Errorf("Probe by a user who may not create ListEntries: %v, want Forbidden", err)
		}
	})
}

// TestDetector runs a Detector: Active and the gauge follow what the API
// server does, and each change is logged once however many probes see it.
// Where the policy is installed, its binding is taken away and put back,
// and the Detector follows both ways.
func TestDetector(t *testing.T) {
	env.Require(t)
	log := &recordingLog{}
	d := &finalizerpolicy.Detector{Client: env.Client(), Namespace: "default", Interval: 20 * time.Millisecond, Log: log.logger()}
	if d.Active() {
		t.Fatal("Active before the first probe")
	}
	if d.NeedLeaderElection() {
		t.Error("the Detector needs leader election; every replica must run it")
	}
	stop := run(t, d)
	defer stop()

	policy := env.FinalizerPolicy()
	waitFor(t, d, policy)
	const on, off = "(MutatingAdmissionPolicy active)", "(no MutatingAdmissionPolicy;"
	wantLogs := []string{off}
	if policy {
		wantLogs = []string{on}
		binding := &admissionregistrationv1.MutatingAdmissionPolicyBinding{}
		if err := env.Client().Get(context.Background(), client.ObjectKey{Name: "cleanup-finalizer"}, binding); err != nil {
			t.Fatal(err)
		}
		if err := env.Client().Delete(context.Background(), binding); err != nil {
			t.Fatal(err)
		}
		restored := false
		restore := func() {
			if restored {
				return
			}
			restored = true
			again := &admissionregistrationv1.MutatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: binding.Name, Labels: binding.Labels}, Spec: binding.Spec}
			if err := env.Client().Create(context.Background(), again); err != nil {
				t.Errorf("put the binding back: %v", err)
			}
		}
		defer restore()
		waitFor(t, d, false)
		restore()
		waitFor(t, d, true)
		wantLogs = append(wantLogs, off, on)
	}
	// Several more probes, no news.
	time.Sleep(10 * d.Interval)
	stop()
	if got := log.messages(); !matches(got, wantLogs) {
		t.Errorf("logged %q, want one record per change: %q", got, wantLogs)
	}
}

// TestDetectorFailing: a probe that fails leaves Active false and the
// gauge at 0, and is logged once as an error.
func TestDetectorFailing(t *testing.T) {
	env.Require(t)
	log := &recordingLog{}
	d := &finalizerpolicy.Detector{Client: userClient(t, outsider), Namespace: "default", Interval: 20 * time.Millisecond, Log: log.logger()}
	stop := run(t, d)
	if err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return len(log.messages()) > 0, nil
	}); err != nil {
		t.Fatal("nothing logged after the first probe")
	}
	time.Sleep(10 * d.Interval)
	stop()
	if d.Active() || testutil.ToFloat64(metrics.FinalizerAtBirth) != 0 {
		t.Errorf("Active %t, gauge %v after failed probes; want false and 0", d.Active(), testutil.ToFloat64(metrics.FinalizerAtBirth))
	}
	got := log.messages()
	if len(got) != 1 || !strings.Contains(got[0], "cannot tell") || !strings.Contains(got[0], "forbidden") {
		t.Errorf("logged %q, want one error that says why", got)
	}
}

func TestDetectorNeedsClientAndNamespace(t *testing.T) {
	for _, d := range []*finalizerpolicy.Detector{{Namespace: "default"}, {Client: env.Client()}} {
		if err := d.Start(context.Background()); err == nil {
			t.Errorf("Start of %+v succeeded", d)
		}
	}
}

// run starts d and returns a function that stops it and waits until it
// returned (idempotent).
func run(t *testing.T, d *finalizerpolicy.Detector) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Start(ctx) }()
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Start returned %v", err)
			}
		})
	}
}

// waitFor waits until d is Active as want, with the gauge to match.
func waitFor(t *testing.T, d *finalizerpolicy.Detector, want bool) {
	t.Helper()
	gauge := 0.0
	if want {
		gauge = 1
	}
	if err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return d.Active() == want && testutil.ToFloat64(metrics.FinalizerAtBirth) == gauge, nil
	}); err != nil {
		t.Fatalf("Active %t, gauge %v; want %t, %v", d.Active(), testutil.ToFloat64(metrics.FinalizerAtBirth), want, gauge)
	}
}

// matches reports whether each message contains the fragment at its place.
func matches(messages, fragments []string) bool {
	if len(messages) != len(fragments) {
		return false
	}
	for i := range messages {
		if !strings.Contains(messages[i], fragments[i]) {
			return false
		}
	}
	return true
}

// recordingLog keeps every record logged through its logger.
type recordingLog struct {
	mu   sync.Mutex
	msgs []string
}

func (r *recordingLog) logger() logr.Logger {
	return funcr.New(func(prefix, args string) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.msgs = append(r.msgs, args)
	}, funcr.Options{})
}

func (r *recordingLog) messages() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.msgs...)
}

// userClient is a client acting as the envtest user name.
func userClient(t *testing.T, name string) client.Client {
	t.Helper()
	path, err := env.Kubeconfig(name)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: env.Client().Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
