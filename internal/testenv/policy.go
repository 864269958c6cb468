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
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/finalizerpolicy"
)

// FinalizerPolicy is the kustomize directory, relative to the module root,
// of the MutatingAdmissionPolicy and binding that put the cleanup finalizer
// on every ListEntry at creation: the files users install.
const FinalizerPolicy = "config/finalizer-policy"

// policyGroupVersion and policyResource are what a kube-apiserver serves
// when it has MutatingAdmissionPolicy (Kubernetes 1.36 and later).
const (
	policyGroupVersion = "admissionregistration.k8s.io/v1"
	policyResource     = "mutatingadmissionpolicies"
)

// policyEffectiveTimeout bounds the wait for a new policy to take effect:
// the admission plugin learns of it through an informer.
const policyEffectiveTimeout = time.Minute

// probeNamespace is where the wait dry-runs its ListEntry: envtest's
// kube-apiserver creates it at start.
const probeNamespace = "default"

// ServesMutatingAdmissionPolicies reports whether the kube-apiserver at cfg
// serves admissionregistration.k8s.io/v1 mutatingadmissionpolicies.
func ServesMutatingAdmissionPolicies(cfg *rest.Config) (bool, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(rest.CopyConfig(cfg))
	if err != nil {
		return false, fmt.Errorf("discovery client: %w", err)
	}
	list, err := dc.ServerResourcesForGroupVersion(policyGroupVersion)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("discover %s: %w", policyGroupVersion, err)
	}
	return slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == policyResource }), nil
}

// InstallFinalizerPolicy installs the MutatingAdmissionPolicy and binding
// of FinalizerPolicy (under the module root root, as users get them) on
// the control plane of cfg when its kube-apiserver serves them, and waits
// until a ListEntry created in namespace default comes back with the
// cleanup finalizer. It reports whether it installed them; the CRDs of
// ProjectCRDs must be established. Start calls it; a harness that starts
// its own control plane (test/e2e) can too.
func InstallFinalizerPolicy(cfg *rest.Config, root string) (bool, error) {
	served, err := ServesMutatingAdmissionPolicies(cfg)
	if err != nil || !served {
		return false, err
	}
	scheme, err := newScheme()
	if err != nil {
		return false, err
	}
	c, err := client.New(rest.CopyConfig(cfg), client.Options{Scheme: scheme})
	if err != nil {
		return false, fmt.Errorf("create client: %w", err)
	}
	if err := installFinalizerPolicy(c, filepath.Join(root, filepath.FromSlash(FinalizerPolicy))); err != nil {
		return false, err
	}
	return true, nil
}

// installFinalizerPolicy creates the objects of the kustomize directory
// dir (its resources, as they are: no overlay) and waits until a ListEntry
// created in probeNamespace comes back with the cleanup finalizer.
func installFinalizerPolicy(c client.Client, dir string) error {
	objs, err := readKustomization(dir)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), policyEffectiveTimeout)
	defer cancel()
	for _, o := range objs {
		if err := c.Create(ctx, o); err != nil {
			return fmt.Errorf("create %s %s from %s: %w", o.GetKind(), o.GetName(), dir, err)
		}
	}
	var last error
	err = wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		ok, err := finalizerpolicy.Probe(ctx, c, probeNamespace)
		last = err
		return ok, nil
	})
	if err != nil {
		if last == nil {
			last = errors.New("the dry run succeeded without it")
		}
		return fmt.Errorf("the policy of %s is not effective after %s: a dry-run ListEntry comes back without %s (last error: %w)",
			dir, policyEffectiveTimeout, v1alpha1.FinalizerName, last)
	}
	return nil
}

// readKustomization reads the resources a kustomization.yaml lists, each
// file holding one or more objects.
func readKustomization(dir string) ([]*unstructured.Unstructured, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		return nil, err
	}
	var k struct {
		Resources []string `json:"resources"`
	}
	if err := yaml.Unmarshal(raw, &k); err != nil {
		return nil, fmt.Errorf("parse %s/kustomization.yaml: %w", dir, err)
	}
	if len(k.Resources) == 0 {
		return nil, fmt.Errorf("%s/kustomization.yaml lists no resources", dir)
	}
	var objs []*unstructured.Unstructured
	for _, name := range k.Resources {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			return nil, err
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			obj := &unstructured.Unstructured{}
			err := dec.Decode(&obj.Object)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("parse %s/%s: %w", dir, name, err)
			}
			if len(obj.Object) > 0 {
				objs = append(objs, obj)
			}
		}
	}
	return objs, nil
}
