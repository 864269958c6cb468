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
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/loader"
	release "helm.sh/helm/v4/pkg/release/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/listkeeper/listkeeper/internal/testenv"
)

// helmUser is the envtest user Helm's client acts as.
const helmUser = "helm"

// controlPlane configures the package's control planes, the shared one and
// those of tests that need their own: no CRDs, and helmUser a cluster
// administrator with a kubeconfig, for the tests that run Helm's own
// client against the control plane.
var controlPlane = testenv.Options{Users: []envtest.User{{Name: helmUser, Groups: []string{"system:masters"}}}}

var (
	env  *testenv.Env
	root string // the module root
)

// TestMain starts a control plane without CRDs, shared by the tests: they
// install the chart's own, as helm would, and none deletes or replaces
// them. TestUpgradeTakesOverCRDsOnCluster, which puts the previous chart's
// CRDs in their place, runs on a control plane of its own.
func TestMain(m *testing.M) {
	os.Exit(testenv.Main(m, controlPlane, func(e *testenv.Env) error {
		env = e
		var err error
		root, err = testenv.RepoRoot()
		return err
	}))
}

// chartDir is the chart under test.
func chartDir() string { return filepath.Join(root, "charts", "listkeeper") }

// renderOpts are the inputs of one helm template.
type renderOpts struct {
	release, namespace string
	values             map[string]any
	kubeVersion        string // default: serverKubeVersion()
}

// renderChart renders the chart as 'helm template --include-crds' does,
// with the Helm SDK and no cluster. The chart's CRDs are templates; a
// crds/ directory would add its CRDs beside them.
func renderChart(o renderOpts) (string, error) {
	rel, err := dryRunInstall(o)
	if err != nil {
		return "", err
	}
	return rel.Manifest, nil
}

// renderNotes renders the chart's NOTES.txt as helm install prints it.
func renderNotes(o renderOpts) (string, error) {
	rel, err := dryRunInstall(o)
	if err != nil {
		return "", err
	}
	return rel.Info.Notes, nil
}

// dryRunInstall runs helm install --dry-run=client with the Helm SDK.
func dryRunInstall(o renderOpts) (*release.Release, error) {
	ch, err := loader.Load(chartDir())
	if err != nil {
		return nil, fmt.Errorf("load chart: %w", err)
	}
	cfg := action.NewConfiguration(action.ConfigurationSetLogger(slog.NewTextHandler(io.Discard, nil)))
	in := action.NewInstall(cfg)
	in.DryRunStrategy = action.DryRunClient
	in.ReleaseName = o.release
	in.Namespace = o.namespace
	in.Replace = true
	in.IncludeCRDs = true
	kv := o.kubeVersion
	if kv == "" {
		kv = serverKubeVersion()
	}
	if in.KubeVersion, err = common.ParseKubeVersion(kv); err != nil {
		return nil, err
	}
	vals := o.values
	if vals == nil {
		vals = map[string]any{}
	}
	rel, err := in.Run(ch, vals)
	if err != nil {
		return nil, err
	}
	r, ok := rel.(*release.Release)
	if !ok {
		return nil, fmt.Errorf("helm returned a %T, not a *release.Release", rel)
	}
	return r, nil
}

// newestKubeVersion is the version of the kube-apiserver of make test.
const newestKubeVersion = "v1.37.2"

// serverKubeVersion is the version the envtest kube-apiserver reports
// (1.37 in make test, 1.31 in make test-compat), so that the chart renders
// what helm would render for it; newestKubeVersion when the control plane
// is not available.
func serverKubeVersion() string {
	if v := env.ServerVersion(); v != nil {
		return v.GitVersion
	}
	return newestKubeVersion
}

// rendered is the chart's output, parsed.
type rendered struct {
	objs []*unstructured.Unstructured
}

func render(t *testing.T, o renderOpts) rendered {
	t.Helper()
	manifest, err := renderChart(o)
	if err != nil {
		t.Fatalf("render the chart: %v", err)
	}
	r := parse(t, manifest)
	if len(r.objs) == 0 {
		t.Fatal("the chart rendered no objects")
	}
	return r
}

// parse splits a release manifest into its objects.
func parse(t *testing.T, manifest string) rendered {
	t.Helper()
	var r rendered
	for _, part := range strings.Split(manifest, "\n---") {
		if len(bytes.TrimSpace([]byte(part))) == 0 {
			continue
		}
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(part), &obj.Object); err != nil {
			t.Fatalf("parse a rendered object: %v\n%s", err, part)
		}
		if len(obj.Object) == 0 { // only comments
			continue
		}
		r.objs = append(r.objs, obj)
	}
	return r
}

// all returns the rendered objects of a kind.
func (r rendered) all(kind string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range r.objs {
		if o.GetKind() == kind {
			out = append(out, o)
		}
	}
	return out
}

// one returns the only rendered object of a kind, decoded into T.
func one[T any](t *testing.T, r rendered, kind string) *T {
	t.Helper()
	objs := r.all(kind)
	if len(objs) != 1 {
		t.Fatalf("%d objects of kind %s rendered, want 1", len(objs), kind)
	}
	out := new(T)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(objs[0].Object, out); err != nil {
		t.Fatalf("decode %s: %v", kind, err)
	}
	return out
}

// managerContainer is the Deployment's manager container.
func managerContainer(t *testing.T, d *appsv1.Deployment) corev1.Container {
	t.Helper()
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == "manager" {
			return c
		}
	}
	t.Fatalf("Deployment %s has no container named manager", d.Name)
	return corev1.Container{}
}

// ensureNamespace creates a namespace for real on e's control plane, with
// labels.
func ensureNamespace(t *testing.T, e *testenv.Env, name string, labels map[string]string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	if err := e.Client().Create(context.Background(), ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create namespace %s: %v", name, err)
	}
}

// createForReal creates objects; the ones that exist already are left
// alone (CRDs are shared by the tests of the package).
func createForReal(t *testing.T, objs ...*unstructured.Unstructured) {
	t.Helper()
	for _, o := range objs {
		if err := env.Client().Create(context.Background(), o.DeepCopy()); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("create %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
}

// waitEstablished waits until the named CRDs serve on e's control plane.
func waitEstablished(t *testing.T, e *testenv.Env, names ...string) {
	t.Helper()
	for _, name := range names {
		err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			crd := &unstructured.Unstructured{}
			crd.SetAPIVersion("apiextensions.k8s.io/v1")
			crd.SetKind("CustomResourceDefinition")
			if err := e.Client().Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
				return false, err
			}
			conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
			for _, c := range conds {
				m, _ := c.(map[string]any)
				if m["type"] == "Established" && m["status"] == "True" {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			t.Fatalf("CRD %s not established: %v", name, err)
		}
	}
}

// dryRun has the API server validate and admit every object without
// storing it, and reports each refusal.
func dryRun(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	for _, o := range objs {
		err := env.Client().Create(context.Background(), o.DeepCopy(), client.DryRunAll)
		if err != nil {
			t.Errorf("%s %s/%s refused by the API server: %v", o.GetKind(), o.GetNamespace(), o.GetName(), err)
		}
	}
}

// managerShutdownTimeout reads the manager's GracefulShutdownTimeout from
// cmd/manager/main.go, so that the grace period is checked against the
// value the binary is built with. It understands "N * time.Unit".
func managerShutdownTimeout(t *testing.T) time.Duration {
	t.Helper()
	path := filepath.Join(root, "cmd", "manager", "main.go")
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var found ast.Expr
	ast.Inspect(f, func(n ast.Node) bool {
		if kv, ok := n.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && id.Name == "GracefulShutdownTimeout" {
				found = kv.Value
			}
		}
		return found == nil
	})
	if call, ok := found.(*ast.CallExpr); ok && len(call.Args) == 1 {
		found = call.Args[0] // ptr(...)
	}
	d, err := durationOf(found)
	if err != nil {
		t.Fatalf("GracefulShutdownTimeout in %s: %v; teach managerShutdownTimeout the new form", path, err)
	}
	return d
}

func durationOf(e ast.Expr) (time.Duration, error) {
	units := map[string]time.Duration{"Millisecond": time.Millisecond, "Second": time.Second, "Minute": time.Minute}
	b, ok := e.(*ast.BinaryExpr)
	if !ok || b.Op != token.MUL {
		return 0, errors.New("not N * time.Unit")
	}
	lit, ok := b.X.(*ast.BasicLit)
	sel, ok2 := b.Y.(*ast.SelectorExpr)
	if !ok || !ok2 || lit.Kind != token.INT {
		return 0, errors.New("not N * time.Unit")
	}
	n, err := strconv.Atoi(lit.Value)
	unit, known := units[sel.Sel.Name]
	if err != nil || !known {
		return 0, fmt.Errorf("cannot evaluate %s * %s", lit.Value, sel.Sel.Name)
	}
	return time.Duration(n) * unit, nil
}
