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
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	apiversion "k8s.io/apimachinery/pkg/version"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// ProjectCRDs is the directory of listkeeper's generated CRDs, relative to
// the module root: the usual Options.CRDDirectory.
const ProjectCRDs = "config/crd/bases"

// Bounds on starting and stopping the control plane. A cold start on a
// busy two-core machine takes tens of seconds.
const (
	startTimeout = 2 * time.Minute
	stopTimeout  = time.Minute
)

// Options configure Start. The zero value starts a control plane with no
// CRDs, found through DefaultAssets, and envtest's default rate limits.
type Options struct {
	// CRDDirectory is a directory of CRD manifests to install before the
	// tests run, relative to the module root unless absolute; it must
	// exist. Default: none, no CRDs are installed (for tests that apply
	// them themselves). ProjectCRDs installs listkeeper's.
	CRDDirectory string
	// Assets is the directory holding kube-apiserver and etcd. Default:
	// DefaultAssets of the module root, so a KUBEBUILDER_ASSETS set by the
	// user wins over bin/k8s.
	Assets string
	// QPS and Burst limit Config and Client. Default (0): envtest's, 1000
	// QPS with a burst of 2000, not client-go's 5 and 10.
	QPS   float32
	Burst int
	// WithoutFinalizerPolicy leaves the MutatingAdmissionPolicy of
	// FinalizerPolicy out even where the kube-apiserver serves it, for a
	// suite that must see a cluster without it. Default: false: with
	// ProjectCRDs on a kube-apiserver that serves
	// admissionregistration.k8s.io/v1 mutatingadmissionpolicies (1.36 and
	// later), Start installs the policy and its binding and waits until
	// every new ListEntry gets the cleanup finalizer (Env.FinalizerPolicy).
	WithoutFinalizerPolicy bool
	// Users are provisioned at start, each with a client certificate and a
	// kubeconfig file (see Env.Kubeconfig). Default: none. Names must be
	// distinct.
	Users []envtest.User
}

// Env is a kube-apiserver and etcd started by envtest for the tests of one
// package, or the reason it could not be started. Start always returns an
// Env: tests that need the control plane call Require, which fails them
// when it is not available, and tests that do not need it run anyway.
//
// An Env is safe for concurrent use by tests once Start has returned;
// Stop must not run concurrently with the tests.
type Env struct {
	err error // why the control plane is not available; nil when it is

	env         *envtest.Environment
	cfg         *rest.Config
	version     *apiversion.Info // what the kube-apiserver reports
	client      client.Client
	kubeconfigs map[string]string // user name -> kubeconfig file
	dir         string            // holds the kubeconfig files
	// finalizerPolicy: the policy of FinalizerPolicy is installed and
	// effective.
	finalizerPolicy bool

	stopOnce sync.Once
	stopErr  error
}

// Start starts the control plane and waits until it serves, with the CRDs
// of opts.CRDDirectory established. It returns a non-nil Env even on
// error: that Env is not available, its Err and Require report why, and
// its Stop releases whatever was started.
func Start(opts Options) (*Env, error) {
	e := &Env{}
	if err := e.start(opts); err != nil {
		e.err = err
		if stopErr := e.Stop(); stopErr != nil {
			e.err = errors.Join(err, fmt.Errorf("stop after failed start: %w", stopErr))
		}
		return e, e.err
	}
	return e, nil
}

func (e *Env) start(opts Options) error {
	root, err := RepoRoot()
	if err != nil {
		return err
	}
	assets := opts.Assets
	if assets == "" {
		assets = DefaultAssets(root)
	}
	if err := CheckAssets(assets); err != nil {
		return err
	}
	e.env = environment(opts, root, assets)
	cfg, err := e.env.Start()
	if err != nil {
		return fmt.Errorf("start envtest with assets %s: %w", assets, err)
	}
	if opts.QPS != 0 {
		cfg.QPS = opts.QPS
	}
	if opts.Burst != 0 {
		cfg.Burst = opts.Burst
	}
	e.cfg = cfg
	if e.version, err = CheckServerVersion(cfg); err != nil {
		return fmt.Errorf("envtest assets %s: %w", assets, err)
	}

	scheme, err := newScheme()
	if err != nil {
		return err
	}
	if e.client, err = client.New(rest.CopyConfig(cfg), client.Options{Scheme: scheme}); err != nil {
		return fmt.Errorf("create client: %w", err)
	}
	if installsProjectCRDs(opts, root) && !opts.WithoutFinalizerPolicy {
		if e.finalizerPolicy, err = InstallFinalizerPolicy(cfg, root); err != nil {
			return err
		}
	}
	return e.addUsers(opts.Users)
}

// environment is the envtest configuration for opts, with relative paths
// resolved against the module root.
func environment(opts Options, root, assets string) *envtest.Environment {
	env := &envtest.Environment{
		BinaryAssetsDirectory:    assets,
		ControlPlaneStartTimeout: startTimeout,
		ControlPlaneStopTimeout:  stopTimeout,
	}
	if dir := opts.CRDDirectory; dir != "" {
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(root, filepath.FromSlash(dir))
		}
		env.CRDDirectoryPaths = []string{dir}
		env.ErrorIfCRDPathMissing = true
	}
	return env
}

// installsProjectCRDs reports whether opts install listkeeper's own CRDs
// (ProjectCRDs), the ones the finalizer policy is for.
func installsProjectCRDs(opts Options, root string) bool {
	dir := opts.CRDDirectory
	if dir == "" {
		return false
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, filepath.FromSlash(dir))
	}
	return filepath.Clean(dir) == filepath.Join(root, filepath.FromSlash(ProjectCRDs))
}

// newScheme returns a scheme with client-go's types and listkeeper's.
func newScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("add client-go types to scheme: %w", err)
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("add v1alpha1 to scheme: %w", err)
	}
	return scheme, nil
}

// addUsers provisions users and writes their kubeconfig files into a
// directory that Stop removes.
func (e *Env) addUsers(users []envtest.User) error {
	if len(users) == 0 {
		return nil
	}
	dir, err := os.MkdirTemp("", "listkeeper-testenv-")
	if err != nil {
		return fmt.Errorf("kubeconfig directory: %w", err)
	}
	e.dir = dir
	e.kubeconfigs = make(map[string]string, len(users))
	for i, u := range users {
		if _, dup := e.kubeconfigs[u.Name]; dup {
			return fmt.Errorf("user %q is listed twice", u.Name)
		}
		au, err := e.env.AddUser(u, rest.CopyConfig(e.cfg))
		if err != nil {
			return fmt.Errorf("add user %s: %w", u.Name, err)
		}
		raw, err := au.KubeConfig()
		if err != nil {
			return fmt.Errorf("kubeconfig of user %s: %w", u.Name, err)
		}
		// The file is named by position: user names may hold characters
		// that do not belong in a file name (system:...).
		path := filepath.Join(dir, fmt.Sprintf("user-%d.kubeconfig", i))
		if err := os.WriteFile(path, raw, 0o600); err != nil {
			return fmt.Errorf("write kubeconfig of user %s: %w", u.Name, err)
		}
		e.kubeconfigs[u.Name] = path
	}
	return nil
}

// Stop stops the control plane and removes the kubeconfig files. It is
// safe to call on an Env that is not available, on nil and more than once;
// later calls return the first call's result.
func (e *Env) Stop() error {
	if e == nil {
		return nil
	}
	e.stopOnce.Do(func() {
		var errs []error
		if e.env != nil {
			if err := e.env.Stop(); err != nil {
				errs = append(errs, fmt.Errorf("stop envtest: %w", err))
			}
		}
		if e.dir != "" {
			if err := os.RemoveAll(e.dir); err != nil {
				errs = append(errs, err)
			}
		}
		e.stopErr = errors.Join(errs...)
	})
	return e.stopErr
}

// Err returns why the control plane is not available, or nil when it is.
func (e *Env) Err() error {
	if e == nil {
		return errNotStarted
	}
	return e.err
}

// errNotStarted is reported by a nil Env: TestMain did not run Main, or
// did not keep the Env.
var errNotStarted = errors.New("testenv.Start has not run for this package (call testenv.Main in TestMain and keep the Env)")

// Require fails t at once, with the reason, when the control plane is not
// available. It never skips: 'make test' always builds the envtest assets,
// so missing ones are a broken setup, not an optional test.
func (e *Env) Require(t testing.TB) {
	t.Helper()
	if err := e.Err(); err != nil {
		t.Fatalf("envtest is not available: %v", err)
	}
}

// Config returns a copy of the REST config of the control plane's admin
// (system:masters) user, with Options.QPS and Burst; nil when the control
// plane is not available. The caller may change the copy.
func (e *Env) Config() *rest.Config {
	if e.Err() != nil {
		return nil
	}
	return rest.CopyConfig(e.cfg)
}

// ServerVersion returns the version the kube-apiserver reports; nil when
// the control plane is not available. Start has checked it against
// WantMinorEnv.
func (e *Env) ServerVersion() *apiversion.Info {
	if e.Err() != nil {
		return nil
	}
	return e.version
}

// Client returns a direct (uncached) client as the admin user, whose
// scheme holds client-go's types and listkeeper's v1alpha1; nil when the
// control plane is not available.
func (e *Env) Client() client.Client {
	if e.Err() != nil {
		return nil
	}
	return e.client
}

// FinalizerPolicy reports whether Start installed the MutatingAdmissionPolicy
// of FinalizerPolicy and saw it take effect: every ListEntry created on
// this control plane gets the cleanup finalizer at creation. It is false
// when the kube-apiserver does not serve the policy (before 1.36, as in
// 'make test-compat'), without ProjectCRDs, with
// Options.WithoutFinalizerPolicy, and when the control plane is not
// available.
func (e *Env) FinalizerPolicy() bool {
	return e.Err() == nil && e.finalizerPolicy
}

// EtcdURL returns the client URL of the control plane's etcd, for tests
// that must change what the API server stores behind its back; nil when the
// control plane is not available.
func (e *Env) EtcdURL() *url.URL {
	if e.Err() != nil || e.env.ControlPlane.Etcd == nil || e.env.ControlPlane.Etcd.URL == nil {
		return nil
	}
	u := *e.env.ControlPlane.Etcd.URL
	return &u
}

// Kubeconfig returns the path of the kubeconfig file of the user named
// name in Options.Users, for kubectl or a manager process. The file is
// removed by Stop.
func (e *Env) Kubeconfig(name string) (string, error) {
	if err := e.Err(); err != nil {
		return "", fmt.Errorf("envtest is not available: %w", err)
	}
	path, ok := e.kubeconfigs[name]
	if !ok {
		return "", fmt.Errorf("no user %q in Options.Users", name)
	}
	return path, nil
}
