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

package controller

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
	"github.com/listkeeper/listkeeper/internal/testenv"
)

// The envtest suite: one kube-apiserver and etcd for the whole package,
// started in TestMain, and one shared fake list server. Each test works in
// its own namespace, runs its own manager(s) restricted to that namespace
// (like cmd/manager's --namespace), and uses its own list path or its own
// fake server, so tests do not see each other's objects.

var (
	testScheme = runtime.NewScheme()

	// testEnv is the control plane, started by TestMain. restConfig, k8sClient
	// and envErr are its Config, Client and Err under the names the tests
	// use; restConfig and k8sClient are nil when it is not available.
	testEnv    *testenv.Env
	restConfig *rest.Config
	k8sClient  client.Client // direct, uncached
	envErr     error         // why the control plane is not available

	// sharedLists serves the list documents of most tests, one path each.
	sharedLists    *fakeapi.Server
	sharedListsURL string

	// globalLog collects what is logged through controller-runtime's global
	// logger and klog; the secret test greps it too.
	globalLog = &syncBuffer{}
)

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(testScheme))
	utilruntime.Must(v1alpha1.AddToScheme(testScheme))
}

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	// Quiet unless a test fails: global logs go to a buffer (controller-runtime
	// warns on stderr when no logger is ever set).
	globalLogger := zap.New(zap.WriteTo(globalLog), zap.UseDevMode(false))
	ctrl.SetLogger(globalLogger)
	klog.SetLogger(globalLogger.WithName("klog"))

	srv, err := fakeapi.New()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeapi:", err)
		return 1
	}
	sharedLists = srv
	hs := httptest.NewServer(srv)
	defer hs.Close()
	sharedListsURL = hs.URL

	return testenv.Main(m, testenv.Options{
		CRDDirectory: testenv.ProjectCRDs,
		// Three replicas and their direct reads need more than client-go's
		// default 5 QPS.
		QPS:   500,
		Burst: 1000,
		// kubectl, for the tests that check what kubectl shows and waits
		// for.
		Users: []envtest.User{{Name: kubectlUser, Groups: []string{"system:masters"}}},
	}, func(e *testenv.Env) error {
		testEnv = e
		restConfig, k8sClient, envErr = e.Config(), e.Client(), e.Err()
		return nil
	})
}

// requireEnv fails the test (it never skips) when the control plane is not
// available.
func requireEnv(t *testing.T) {
	t.Helper()
	testEnv.Require(t)
}

// syncBuffer is a bytes.Buffer safe for concurrent writers (loggers).
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// eventually polls cond every interval until it returns nil or timeout
// passes, and then fails t with the last error. No fixed sleeps: tests wait
// for observable state.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	if err := poll(timeout, cond); err != nil {
		t.Fatalf("timed out after %s waiting for %s: %v", timeout, what, err)
	}
}

func poll(timeout time.Duration, cond func() error) error {
	const interval = 50 * time.Millisecond
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(interval)
	}
}

// ctxFor returns a context that ends with the test.
func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx
}
