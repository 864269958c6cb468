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
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/testenv"
)

// Defaults of ClusterOptions.
const (
	DefaultClusterUser  = "listkeeper-e2e"
	DefaultClientQPS    = 500
	DefaultClientBurst  = 1000
	DefaultStartTimeout = time.Minute
	DefaultStopTimeout  = 30 * time.Second
)

// ClusterOptions configure StartCluster.
type ClusterOptions struct {
	// Assets is the directory holding kube-apiserver and etcd. Required.
	Assets string
	// CRDDir is the directory of the CRD manifests to install. Required.
	CRDDir string
	// Dir receives the certificates, etcd's data, the logs
	// (kube-apiserver.log, etcd.log) and the kubeconfig. Required; it must
	// exist.
	Dir string
	// User is the name of the system:masters user of the kubeconfig and the
	// client; default DefaultClusterUser.
	User string
	// QPS and Burst limit the harness's own client; default
	// DefaultClientQPS and DefaultClientBurst.
	QPS   float32
	Burst int
	// StartTimeout bounds the start of the control plane; default
	// DefaultStartTimeout.
	StartTimeout time.Duration
	// PolicyRoot is the module root whose MutatingAdmissionPolicy
	// (testenv.FinalizerPolicy) is installed, as users install it, where
	// the kube-apiserver serves it (1.36 and later), so that every
	// ListEntry gets the cleanup finalizer at creation. Empty: the policy
	// is not installed and the managers patch the finalizer on themselves.
	PolicyRoot string
}

// Cluster is a kube-apiserver and etcd run by envtest, with the CRDs
// installed, a kubeconfig file for a system:masters user, and a client.
// Unlike the Supervisor's children, the control plane's processes do not
// die with the process that started them: call Stop.
type Cluster struct {
	// Kubeconfig is the path of the kubeconfig file for the managers and
	// kubectl.
	Kubeconfig string
	// Config is the REST config of the kubeconfig's user.
	Config *rest.Config
	// Client is a client for that user, with the CRD types in its scheme.
	Client client.Client
	// FinalizerPolicy is set when StartCluster installed the finalizer
	// policy (ClusterOptions.PolicyRoot) and saw it take effect.
	FinalizerPolicy bool

	env  *envtest.Environment
	logs []*os.File // kube-apiserver and etcd output

	stopMu  sync.Mutex
	stopped bool
}

// CheckAssets returns an error that says what to do when dir lacks the
// kube-apiserver or etcd binary. It is testenv.CheckAssets.
func CheckAssets(dir string) error { return testenv.CheckAssets(dir) }

// DefaultAssets returns $KUBEBUILDER_ASSETS when it is set, else
// <root>/bin/k8s, where 'make envtest-assets' builds them. It is
// testenv.DefaultAssets.
func DefaultAssets(root string) string { return testenv.DefaultAssets(root) }

// NewScheme returns a scheme with the Kubernetes types and listkeeper's.
func NewScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	return scheme, nil
}

// StartCluster starts the control plane. On error the cluster it returns
// is stopped, but still knows its log files (nil only when the options are
// incomplete).
func StartCluster(opts ClusterOptions) (*Cluster, error) {
	if opts.Assets == "" || opts.CRDDir == "" || opts.Dir == "" {
		return nil, errors.New("ClusterOptions need Assets, CRDDir and Dir")
	}
	if err := CheckAssets(opts.Assets); err != nil {
		return nil, err
	}
	c := &Cluster{}
	apiLog, err := c.logFile(filepath.Join(opts.Dir, "kube-apiserver.log"))
	if err != nil {
		return c, err
	}
	etcdLog, err := c.logFile(filepath.Join(opts.Dir, "etcd.log"))
	if err != nil {
		return c, err
	}
	c.env = &envtest.Environment{
		CRDDirectoryPaths:        []string{opts.CRDDir},
		ErrorIfCRDPathMissing:    true,
		BinaryAssetsDirectory:    opts.Assets,
		ControlPlaneStartTimeout: orDefault(opts.StartTimeout, DefaultStartTimeout),
		ControlPlaneStopTimeout:  DefaultStopTimeout,
		ControlPlane: envtest.ControlPlane{
			APIServer: &envtest.APIServer{CertDir: filepath.Join(opts.Dir, "apiserver"), Out: apiLog, Err: apiLog},
			Etcd:      &envtest.Etcd{DataDir: filepath.Join(opts.Dir, "etcd"), Out: etcdLog, Err: etcdLog},
		},
	}
	for _, d := range []string{c.env.ControlPlane.APIServer.CertDir, c.env.ControlPlane.Etcd.DataDir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return c, err
		}
	}
	cfg, err := c.env.Start()
	if err != nil {
		_ = c.Stop()
		return c, fmt.Errorf("start kube-apiserver and etcd (envtest, assets %s): %w", opts.Assets, err)
	}
	// As every envtest suite does: a run that wants a Kubernetes minor
	// version (testenv.WantMinorEnv) fails on another.
	if _, err := testenv.CheckServerVersion(cfg); err != nil {
		_ = c.Stop()
		return c, fmt.Errorf("envtest assets %s: %w", opts.Assets, err)
	}
	if err := c.connect(filepath.Join(opts.Dir, "kubeconfig"), opts); err != nil {
		_ = c.Stop()
		return c, err
	}
	if opts.PolicyRoot != "" {
		if c.FinalizerPolicy, err = testenv.InstallFinalizerPolicy(c.Config, opts.PolicyRoot); err != nil {
			_ = c.Stop()
			return c, fmt.Errorf("install the finalizer policy: %w", err)
		}
	}
	return c, nil
}

// EtcdURL returns the client URL of the control plane's etcd, for tests
// that change what the API server stores behind its back; nil before the
// control plane started.
func (c *Cluster) EtcdURL() *url.URL {
	if c == nil || c.env == nil || c.env.ControlPlane.Etcd == nil || c.env.ControlPlane.Etcd.URL == nil {
		return nil
	}
	u := *c.env.ControlPlane.Etcd.URL
	return &u
}

func (c *Cluster) logFile(path string) (*os.File, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	c.logs = append(c.logs, f)
	return f, nil
}

// LogPaths returns the control plane's log files.
func (c *Cluster) LogPaths() []string {
	if c == nil {
		return nil
	}
	out := make([]string, len(c.logs))
	for i, f := range c.logs {
		out[i] = f.Name()
	}
	return out
}

// connect provisions an admin user, writes its kubeconfig to path and builds
// the client.
func (c *Cluster) connect(path string, opts ClusterOptions) error {
	name := opts.User
	if name == "" {
		name = DefaultClusterUser
	}
	user, err := c.env.AddUser(envtest.User{Name: name, Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return fmt.Errorf("provision user: %w", err)
	}
	kc, err := user.KubeConfig()
	if err != nil {
		return fmt.Errorf("render kubeconfig: %w", err)
	}
	if err := os.WriteFile(path, kc, 0o600); err != nil {
		return fmt.Errorf("write kubeconfig: %w", err)
	}
	c.Kubeconfig = path

	scheme, err := NewScheme()
	if err != nil {
		return err
	}
	c.Config = user.Config()
	c.Config.QPS = orDefault(opts.QPS, DefaultClientQPS)
	c.Config.Burst = orDefault(opts.Burst, DefaultClientBurst)
	c.Client, err = client.New(c.Config, client.Options{Scheme: scheme})
	if err != nil {
		return fmt.Errorf("create client: %w", err)
	}
	return nil
}

// Stop stops the control plane and closes its logs. It is safe to call on
// a partly started cluster, on nil, more than once and concurrently.
func (c *Cluster) Stop() error {
	if c == nil {
		return nil
	}
	c.stopMu.Lock()
	defer c.stopMu.Unlock()
	if c.stopped {
		return nil
	}
	c.stopped = true
	var err error
	if c.env != nil {
		err = c.env.Stop()
	}
	for _, f := range c.logs {
		_ = f.Close()
	}
	return err
}

// KubectlPath returns the kubectl to run: the one on PATH, else
// /usr/bin/kubectl.
func KubectlPath() (string, error) {
	if p, err := exec.LookPath("kubectl"); err == nil {
		return p, nil
	}
	const fallback = "/usr/bin/kubectl"
	if _, err := os.Stat(fallback); err != nil {
		return "", fmt.Errorf("kubectl is not on PATH: %w", err)
	}
	return fallback, nil
}

// Kubectl runs kubectl against the cluster with stdin and returns its
// stdout.
func (c *Cluster) Kubectl(ctx context.Context, stdin io.Reader, args ...string) (string, error) {
	kubectl, err := KubectlPath()
	if err != nil {
		return "", err
	}
	full := append([]string{"--kubeconfig", c.Kubeconfig}, args...)
	cmd := exec.CommandContext(ctx, kubectl, full...)
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("kubectl %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// ApplyKustomization renders the kustomization in dir, passes the result
// through edit (when not nil) and applies it to namespace. It returns
// kubectl's output.
func (c *Cluster) ApplyKustomization(ctx context.Context, dir, namespace string, edit func(string) string) (string, error) {
	rendered, err := c.Kubectl(ctx, nil, "kustomize", dir)
	if err != nil {
		return "", err
	}
	if edit != nil {
		rendered = edit(rendered)
	}
	return c.Kubectl(ctx, strings.NewReader(rendered), "apply", "--namespace", namespace, "-f", "-")
}

// orDefault returns v, or def when v is the zero value.
func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
