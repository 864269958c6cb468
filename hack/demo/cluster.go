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
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// kubectlPath is the kubectl the demo runs.
const kubectlPath = "/usr/bin/kubectl"

// cluster is a kube-apiserver and etcd run by envtest, with the CRDs
// installed, a kubeconfig file for a system:masters user, and a client.
type cluster struct {
	env        *envtest.Environment
	kubeconfig string
	client     client.Client
	logs       []*os.File // kube-apiserver and etcd output
	stopped    bool
}

// startCluster starts the control plane from the binaries in assets, with
// its certificates, data and logs under dir, and installs the CRDs in
// crdDir. On error the cluster it returns is stopped, but still knows its
// log files.
func startCluster(assets, crdDir, dir string) (*cluster, error) {
	c := &cluster{}
	apiLog, err := c.logFile(filepath.Join(dir, "kube-apiserver.log"))
	if err != nil {
		return c, err
	}
	etcdLog, err := c.logFile(filepath.Join(dir, "etcd.log"))
	if err != nil {
		return c, err
	}
	c.env = &envtest.Environment{
		CRDDirectoryPaths:        []string{crdDir},
		ErrorIfCRDPathMissing:    true,
		BinaryAssetsDirectory:    assets,
		ControlPlaneStartTimeout: time.Minute,
		ControlPlaneStopTimeout:  30 * time.Second,
		ControlPlane: envtest.ControlPlane{
			APIServer: &envtest.APIServer{CertDir: filepath.Join(dir, "apiserver"), Out: apiLog, Err: apiLog},
			Etcd:      &envtest.Etcd{DataDir: filepath.Join(dir, "etcd"), Out: etcdLog, Err: etcdLog},
		},
	}
	for _, d := range []string{c.env.ControlPlane.APIServer.CertDir, c.env.ControlPlane.Etcd.DataDir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return c, err
		}
	}
	if _, err := c.env.Start(); err != nil {
		_ = c.stop()
		return c, fmt.Errorf("start kube-apiserver and etcd (envtest, assets %s): %w", assets, err)
	}
	if err := c.connect(filepath.Join(dir, "kubeconfig")); err != nil {
		_ = c.stop()
		return c, err
	}
	return c, nil
}

func (c *cluster) logFile(path string) (*os.File, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	c.logs = append(c.logs, f)
	return f, nil
}

// logPaths returns the control plane's log files.
func (c *cluster) logPaths() []string {
	out := make([]string, len(c.logs))
	for i, f := range c.logs {
		out[i] = f.Name()
	}
	return out
}

// connect provisions an admin user, writes its kubeconfig to path and builds
// the demo's client.
func (c *cluster) connect(path string) error {
	user, err := c.env.AddUser(envtest.User{Name: "listkeeper-demo", Groups: []string{"system:masters"}}, nil)
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
	c.kubeconfig = path

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return err
	}
	cfg := user.Config()
	cfg.QPS, cfg.Burst = 500, 1000 // the demo's own load generator
	c.client, err = client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return fmt.Errorf("create client: %w", err)
	}
	return nil
}

// stop stops the control plane and closes its logs. It is safe to call on
// a partly started cluster, and more than once.
func (c *cluster) stop() error {
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

// applySamples renders the kustomization in dir, replaces the URL prefix
// sampleServer with server (a no-op when they are equal), and applies the
// result to namespace. It returns kubectl's output.
func (c *cluster) applySamples(ctx context.Context, dir, namespace, sampleServer, server string) (string, error) {
	rendered, err := c.kubectl(ctx, nil, "kustomize", dir)
	if err != nil {
		return "", err
	}
	manifest := strings.ReplaceAll(rendered, sampleServer, server)
	return c.kubectl(ctx, strings.NewReader(manifest), "apply", "--namespace", namespace, "-f", "-")
}

// kubectl runs kubectl against the cluster and returns its stdout.
func (c *cluster) kubectl(ctx context.Context, stdin io.Reader, args ...string) (string, error) {
	args = append([]string{"--kubeconfig", c.kubeconfig}, args...)
	cmd := exec.CommandContext(ctx, kubectlPath, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("kubectl %s: %w: %s", strings.Join(args[2:], " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}
