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

package e2e_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

// buildTimeout bounds the build of the binaries when bin/ lacks them.
const buildTimeout = 5 * time.Minute

// suite is what TestMain sets up once for every test. cluster is nil in
// -short mode.
var suite struct {
	root    string
	dir     string // temp dir of the run
	cluster *harness.Cluster
	bins    harness.Binaries

	mu   sync.Mutex
	sups []*harness.Supervisor // every test's, for stopBeforeTimeout
}

// track registers a test's supervisor with the suite.
func track(sup *harness.Supervisor) {
	suite.mu.Lock()
	defer suite.mu.Unlock()
	suite.sups = append(suite.sups, sup)
}

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(runSuite(m))
}

// runSuite starts the control plane, runs the tests, stops it and returns
// the exit code. The temp dir is kept when a test failed.
func runSuite(m *testing.M) int {
	if testing.Short() {
		return m.Run()
	}
	// The harness's own clients and envtest log nothing worth showing.
	ctrllog.SetLogger(logr.Discard())
	root, err := harness.RepoRoot()
	if err != nil {
		return fail(err)
	}
	suite.root = root
	assets := harness.DefaultAssets(root)
	if err := harness.CheckAssets(assets); err != nil {
		return fail(err)
	}
	if suite.dir, err = os.MkdirTemp("", "listkeeper-e2e-*"); err != nil {
		return fail(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	suite.bins, err = harness.FindBinaries(ctx, root, filepath.Join(root, "bin"), suite.dir)
	cancel()
	if err != nil {
		return fail(err)
	}
	suite.cluster, err = harness.StartCluster(harness.ClusterOptions{
		Assets: assets, CRDDir: filepath.Join(root, "config", "crd", "bases"), Dir: suite.dir, PolicyRoot: root,
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: logs in %s\n", suite.dir)
		return fail(err)
	}
	if guard := stopBeforeTimeout(); guard != nil {
		defer guard.Stop()
	}
	code := m.Run()
	if err := suite.cluster.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: stop control plane:", err)
	}
	if code == 0 {
		_ = os.RemoveAll(suite.dir)
	} else {
		fmt.Fprintf(os.Stderr, "e2e: kept %s\n", suite.dir)
	}
	return code
}

// stopBeforeTimeout kills the tests' processes and stops the control plane
// shortly before -test.timeout makes the test binary panic, which skips
// every cleanup: the managers and the list server would die with the
// binary (Pdeathsig), but kube-apiserver and etcd would be left running.
// The managers go first, so that no watch holds up the API server's
// shutdown. It returns nil without a timeout.
func stopBeforeTimeout() *time.Timer {
	f := flag.Lookup("test.timeout")
	if f == nil {
		return nil
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return nil
	}
	d, ok := g.Get().(time.Duration)
	if !ok || d <= 0 {
		return nil
	}
	margin := min(time.Minute, d/4)
	return time.AfterFunc(d-margin, func() {
		fmt.Fprintf(os.Stderr, "e2e: the test binary times out in %v: stopping everything (logs kept in %s)\n", margin, suite.dir)
		suite.mu.Lock()
		sups := slices.Clone(suite.sups)
		suite.mu.Unlock()
		for _, sup := range sups {
			sup.KillAll()
		}
		_ = suite.cluster.Stop()
	})
}

func fail(err error) int {
	fmt.Fprintln(os.Stderr, "e2e:", err)
	return 1
}
