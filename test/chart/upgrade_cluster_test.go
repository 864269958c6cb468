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

package chart_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/loader"
	"helm.sh/helm/v4/pkg/kube"
	release "helm.sh/helm/v4/pkg/release/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/internal/finalizerpolicy"
	"github.com/listkeeper/listkeeper/internal/testenv"
)

// TestUpgradeTakesOverCRDsOnCluster runs helm install of the previous chart
// and helm upgrade to this one with Helm's own client against the
// kube-apiserver, as the upgrade steps of docs/install.md ("Install with
// Helm") say: the previous chart created its CRDs from crds/, outside the
// release, so a plain upgrade is refused (Helm will not update objects it
// does not own), and
// --take-ownership adopts and updates them: afterwards the API server
// serves ClusterExternalList and ListEntry's listRef.kind, and the CRDs
// belong to the release and carry helm.sh/resource-policy: keep.
//
// The test replaces the CRDs with the previous chart's, so it runs on a
// control plane of its own that starts without them; the package's other
// tests keep the shared one and its CRDs.
func TestUpgradeTakesOverCRDsOnCluster(t *testing.T) {
	own := testenv.StartForTest(t, controlPlane)
	const name, ns = "lku", "lk-upgrade-cluster"
	ensureNamespace(t, own, ns, nil)
	for _, n := range []string{"clusterexternallists.listkeeper.dev", "externallists.listkeeper.dev", "listentries.listkeeper.dev"} {
		if err := crdClient(t, own).Get(context.Background(), client.ObjectKey{Name: n}, &apiextensionsv1.CustomResourceDefinition{}); !apierrors.IsNotFound(err) {
			t.Fatalf("CRD %s on the test's own control plane before the install: %v, want NotFound", n, err)
		}
	}
	cfg := helmConfig(t, own, ns)

	prev, err := loader.Load(previousChart)
	if err != nil {
		t.Fatal(err)
	}
	in := action.NewInstall(cfg)
	in.ReleaseName, in.Namespace = name, ns
	in.WaitStrategy = kube.HookOnlyStrategy
	if _, err := in.Run(prev, map[string]any{}); err != nil {
		t.Fatalf("install the previous chart: %v", err)
	}
	le := getCRD(t, own, "listentries.listkeeper.dev")
	if hasListRefKind(le) {
		t.Fatal("the previous chart installed a ListEntry CRD with listRef.kind already")
	}
	if err := crdClient(t, own).Get(context.Background(), client.ObjectKey{Name: "clusterexternallists.listkeeper.dev"}, &apiextensionsv1.CustomResourceDefinition{}); !apierrors.IsNotFound(err) {
		t.Fatalf("ClusterExternalList CRD after installing the previous chart: %v, want NotFound", err)
	}

	current, err := loader.Load(chartDir())
	if err != nil {
		t.Fatal(err)
	}
	up := action.NewUpgrade(cfg)
	up.Namespace = ns
	up.WaitStrategy = kube.HookOnlyStrategy
	_, err = up.Run(name, current, map[string]any{})
	if err == nil || !strings.Contains(err.Error(), "listkeeper.dev") || !strings.Contains(err.Error(), "invalid ownership metadata") {
		t.Fatalf("a plain upgrade over CRDs from crds/: %v, want a refusal naming them", err)
	}
	t.Logf("a plain upgrade is refused: %v", err)
	if hasListRefKind(getCRD(t, own, "listentries.listkeeper.dev")) {
		t.Fatal("the refused upgrade changed the ListEntry CRD")
	}

	up = action.NewUpgrade(cfg)
	up.Namespace = ns
	up.WaitStrategy = kube.HookOnlyStrategy
	up.TakeOwnership = true
	upgraded, err := up.Run(name, current, map[string]any{})
	if err != nil {
		t.Fatalf("helm upgrade --take-ownership: %v", err)
	}
	for _, n := range []string{"clusterexternallists.listkeeper.dev", "externallists.listkeeper.dev", "listentries.listkeeper.dev"} {
		crd := getCRD(t, own, n)
		if crd.Annotations["meta.helm.sh/release-name"] != name || crd.Annotations["meta.helm.sh/release-namespace"] != ns {
			t.Errorf("CRD %s: annotations %v, want it owned by release %s/%s", n, crd.Annotations, ns, name)
		}
		if crd.Annotations["helm.sh/resource-policy"] != "keep" {
			t.Errorf("CRD %s: helm.sh/resource-policy %q, want keep", n, crd.Annotations["helm.sh/resource-policy"])
		}
	}
	if !hasListRefKind(getCRD(t, own, "listentries.listkeeper.dev")) {
		t.Error("after the upgrade the ListEntry CRD still lacks listRef.kind")
	}
	waitEstablished(t, own, "clusterexternallists.listkeeper.dev", "externallists.listkeeper.dev", "listentries.listkeeper.dev")
	checkFinalizerPolicyInstalled(t, own, upgraded, ns)
}

// checkFinalizerPolicyInstalled: where e's kube-apiserver serves
// MutatingAdmissionPolicy, the release installed the finalizer policy and
// it is in force: a ListEntry created (dry run) in ns comes back with the
// cleanup finalizer. Elsewhere (make test-compat) the release has none.
func checkFinalizerPolicyInstalled(t *testing.T, e *testenv.Env, rel any, ns string) {
	t.Helper()
	r, ok := rel.(*release.Release)
	if !ok {
		t.Fatalf("helm returned a %T, not a *release.Release", rel)
	}
	got := kinds(parse(t, r.Manifest))
	served, err := testenv.ServesMutatingAdmissionPolicies(e.Config())
	if err != nil {
		t.Fatal(err)
	}
	if !served {
		if got[policyKind] != 0 || got[bindingKind] != 0 {
			t.Errorf("kube-apiserver %s has no MutatingAdmissionPolicy, yet the release holds %d policies and %d bindings", e.ServerVersion().GitVersion, got[policyKind], got[bindingKind])
		}
		return
	}
	if got[policyKind] != 1 || got[bindingKind] != 1 {
		t.Fatalf("the release holds %d policies and %d bindings, want 1 of each", got[policyKind], got[bindingKind])
	}
	var last error
	if err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		ok, err := finalizerpolicy.Probe(ctx, e.Client(), ns)
		last = err
		return ok, nil
	}); err != nil {
		t.Fatalf("a ListEntry created in %s after the install comes back without the cleanup finalizer (last error: %v)", ns, last)
	}
}

// helmConfig is Helm's action configuration for namespace ns of e's
// control plane, acting as helmUser through its kubeconfig, with releases
// in Secrets as helm keeps them.
func helmConfig(t *testing.T, e *testenv.Env, ns string) *action.Configuration {
	t.Helper()
	kubeconfig, err := e.Kubeconfig(helmUser)
	if err != nil {
		t.Fatal(err)
	}
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig = &kubeconfig
	flags.Namespace = &ns
	cfg := action.NewConfiguration(action.ConfigurationSetLogger(slog.NewTextHandler(io.Discard, nil)))
	if err := cfg.Init(flags, ns, "secret"); err != nil {
		t.Fatal(err)
	}
	// The version helm renders for: the kube-apiserver's own (the Makefile
	// stamps it in; one built without it reports v0.0.0-master, which the
	// chart's kubeVersion refuses, and testenv refuses it under
	// LISTKEEPER_WANT_KUBE_MINOR).
	cfg.Capabilities = common.DefaultCapabilities.Copy()
	kv, err := common.ParseKubeVersion(e.ServerVersion().GitVersion)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Capabilities.KubeVersion = *kv
	return cfg
}

// crdClient is a client of e's control plane that knows
// CustomResourceDefinitions.
func crdClient(t *testing.T, e *testenv.Env) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(e.Config(), client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func getCRD(t *testing.T, e *testenv.Env, name string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := crdClient(t, e).Get(context.Background(), client.ObjectKey{Name: name}, crd); err != nil {
		t.Fatalf("CRD %s: %v", name, err)
	}
	return crd
}

// hasListRefKind: the ListEntry CRD's schema has spec.listRef.kind.
func hasListRefKind(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, v := range crd.Spec.Versions {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		if _, ok := v.Schema.OpenAPIV3Schema.Properties["spec"].Properties["listRef"].Properties["kind"]; ok {
			return true
		}
	}
	return false
}
