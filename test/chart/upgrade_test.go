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
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/loader"
	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	kubefake "helm.sh/helm/v4/pkg/kube/fake"
	release "helm.sh/helm/v4/pkg/release/v1"
	"helm.sh/helm/v4/pkg/storage"
	"helm.sh/helm/v4/pkg/storage/driver"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// previousChart is the chart as it was before its CRDs became templates
// (commit 6d52338, packaged with git archive): its CRDs are in crds/, and
// they predate ClusterExternalList, spec.listRef.kind and status.documentID.
const previousChart = "testdata/listkeeper-0.2.0-dev-6d52338.tgz"

// TestUpgradeUpdatesCRDs installs the previous chart into the Helm SDK's
// in-memory release storage and runs helm upgrade --dry-run to this chart,
// as Helm would against a cluster. The previous release carries no CRD (Helm
// installed crds/ beside it, and no upgrade ever touched them again); the
// upgrade's manifest carries all three, as this chart's files/crds with
// helm.sh/resource-policy: keep, and they differ from the ones the previous
// chart installed: ClusterExternalList is new, and the ListEntry schema has
// listRef.kind. An upgrade of the previous chart to itself carries none,
// which is the bug this chart fixes.
func TestUpgradeUpdatesCRDs(t *testing.T) {
	const name, ns = "lk", "lk-upgrade"
	prev, err := loader.Load(previousChart)
	if err != nil {
		t.Fatal(err)
	}
	prevChart, ok := prev.(*chartv2.Chart)
	if !ok {
		t.Fatalf("the previous chart is a %T", prev)
	}
	installed := map[string]*unstructured.Unstructured{}
	for _, crd := range prevChart.CRDObjects() {
		installed[crdOf(t, crd.File.Data).GetName()] = crdOf(t, crd.File.Data)
	}
	if len(installed) != 2 {
		t.Fatalf("the previous chart has %d CRDs in crds/, want 2 (ExternalList, ListEntry)", len(installed))
	}

	t.Run("to this chart", func(t *testing.T) {
		cfg := previousRelease(t, name, ns)
		current, err := loader.Load(chartDir())
		if err != nil {
			t.Fatal(err)
		}
		upgraded := upgrade(t, cfg, name, ns, current)
		if upgraded.Version != 2 {
			t.Errorf("upgraded release is version %d, want 2", upgraded.Version)
		}
		r := parse(t, upgraded.Manifest)
		crds := map[string]*unstructured.Unstructured{}
		for _, o := range r.all("CustomResourceDefinition") {
			crds[o.GetName()] = o
		}
		for _, n := range []string{"clusterexternallists.listkeeper.dev", "externallists.listkeeper.dev", "listentries.listkeeper.dev"} {
			crd := crds[n]
			if crd == nil {
				t.Errorf("the upgrade does not carry CRD %s", n)
				continue
			}
			if got := crd.GetAnnotations()["helm.sh/resource-policy"]; got != "keep" {
				t.Errorf("CRD %s: helm.sh/resource-policy %q, want keep", n, got)
			}
			raw, err := os.ReadFile(filepath.Join(chartDir(), "files", "crds", "listkeeper.dev_"+firstLabel(n)+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			want := crdOf(t, raw)
			if !reflect.DeepEqual(crd.Object["spec"], want.Object["spec"]) {
				t.Errorf("CRD %s: the upgrade's spec is not files/crds'", n)
			}
			old, was := installed[n]
			switch {
			case !was && n != "clusterexternallists.listkeeper.dev":
				t.Errorf("the previous chart did not install CRD %s", n)
			case was && reflect.DeepEqual(old.Object["spec"], crd.Object["spec"]):
				t.Errorf("CRD %s: the upgrade leaves it as the previous chart installed it", n)
			}
		}
		if _, was := installed["clusterexternallists.listkeeper.dev"]; was {
			t.Error("the previous chart already had ClusterExternalList; pick an older one")
		}
		// The change that matters to users: a ListEntry may name a
		// ClusterExternalList only once the upgrade has updated its CRD.
		if _, found := listRefKind(t, installed["listentries.listkeeper.dev"]); found {
			t.Error("the previous ListEntry CRD already has spec.listRef.kind")
		}
		if kind, found := listRefKind(t, crds["listentries.listkeeper.dev"]); !found || !reflect.DeepEqual(kind["enum"], []any{"ExternalList", "ClusterExternalList"}) {
			t.Errorf("the upgraded ListEntry CRD's spec.listRef.kind is %v (found %t), want enum ExternalList, ClusterExternalList", kind, found)
		}
	})

	t.Run("to itself, as before", func(t *testing.T) {
		cfg := previousRelease(t, name, ns)
		upgraded := upgrade(t, cfg, name, ns, prev)
		if n := len(parse(t, upgraded.Manifest).all("CustomResourceDefinition")); n != 0 {
			t.Errorf("an upgrade of the previous chart carries %d CRDs; it carried none, which is why its CRDs were never updated", n)
		}
	})
}

// previousRelease returns an action configuration whose in-memory storage
// holds release name, version 1, installed from the previous chart with
// its defaults. The Kubernetes client only prints: Helm's crds/ handling
// (create once, never update) is what the test is about, so the CRDs are
// skipped here and read from the chart instead.
func previousRelease(t *testing.T, name, ns string) *action.Configuration {
	t.Helper()
	cfg := action.NewConfiguration(action.ConfigurationSetLogger(slog.NewTextHandler(io.Discard, nil)))
	cfg.Releases = storage.Init(driver.NewMemory())
	cfg.KubeClient = &kubefake.PrintingKubeClient{Out: io.Discard}
	cfg.Capabilities = common.DefaultCapabilities.Copy()
	kv, err := common.ParseKubeVersion("v1.37.2")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Capabilities.KubeVersion = *kv

	prev, err := loader.Load(previousChart)
	if err != nil {
		t.Fatal(err)
	}
	in := action.NewInstall(cfg)
	in.ReleaseName, in.Namespace, in.SkipCRDs = name, ns, true
	rel, err := in.Run(prev, map[string]any{})
	if err != nil {
		t.Fatalf("install the previous chart: %v", err)
	}
	r, ok := rel.(*release.Release)
	if !ok || r.Version != 1 {
		t.Fatalf("install the previous chart: %#v", rel)
	}
	if n := len(parse(t, r.Manifest).all("CustomResourceDefinition")); n != 0 {
		t.Fatalf("the previous release's manifest holds %d CRDs; its CRDs were in crds/, outside the release", n)
	}
	return cfg
}

// upgrade runs helm upgrade --dry-run of release name to ch, with the
// previous release's values, and returns the release it would write.
func upgrade(t *testing.T, cfg *action.Configuration, name, ns string, ch chart.Charter) *release.Release {
	t.Helper()
	up := action.NewUpgrade(cfg)
	up.Namespace = ns
	up.DryRunStrategy = action.DryRunClient
	rel, err := up.Run(name, ch, map[string]any{})
	if err != nil {
		t.Fatalf("upgrade: %v", err)
	}
	r, ok := rel.(*release.Release)
	if !ok {
		t.Fatalf("upgrade returned a %T", rel)
	}
	return r
}

// crdOf parses one CRD file.
func crdOf(t *testing.T, data []byte) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(data, &u.Object); err != nil {
		t.Fatal(err)
	}
	if u.GetKind() != "CustomResourceDefinition" {
		t.Fatalf("a %s among the CRDs", u.GetKind())
	}
	return u
}

// listRefKind returns the schema of spec.listRef.kind in the served
// version of a ListEntry CRD.
func listRefKind(t *testing.T, crd *unstructured.Unstructured) (map[string]any, bool) {
	t.Helper()
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	if len(versions) != 1 {
		t.Fatalf("CRD %s has %d versions, want 1", crd.GetName(), len(versions))
	}
	kind, found, err := unstructured.NestedMap(versions[0].(map[string]any), "schema", "openAPIV3Schema",
		"properties", "spec", "properties", "listRef", "properties", "kind")
	if err != nil {
		t.Fatal(err)
	}
	return kind, found
}

// firstLabel is the plural of a CRD name: what precedes its first dot.
func firstLabel(name string) string {
	for i := range name {
		if name[i] == '.' {
			return name[:i]
		}
	}
	return name
}
