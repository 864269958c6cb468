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

package monitoring

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
	"go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/controller"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
	"github.com/listkeeper/listkeeper/internal/metrics"
	lkmonitoring "github.com/listkeeper/listkeeper/internal/monitoring"
	"github.com/listkeeper/listkeeper/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.Main(m, testenv.Options{CRDDirectory: testenv.ProjectCRDs}, func(e *testenv.Env) error {
		env = e
		return e.Err()
	}))
}

// exported runs the real controllers, wired by controller.Setup as
// cmd/manager wires them, against envtest and the fake list server until a
// list is Ready and an entry is on it, and returns the names of every
// series the metrics registry then serves (histograms with their _bucket,
// _sum and _count series).
func exported(t *testing.T) map[string]bool {
	t.Helper()
	env.Require(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	srv, err := fakeapi.New()
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	if _, err := srv.Set("/lists/allow", []byte(`{"items":["foreign"]}`)); err != nil {
		t.Fatal(err)
	}

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(v1alpha1.AddToScheme(scheme))
	k8s := env.Client()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "monitoring-"}}
	if err := k8s.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(env.Config(), ctrl.Options{
		Scheme: scheme, Logger: zap.New(zap.WriteTo(testWriter{t})),
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Cache: cache.Options{DefaultNamespaces: map[string]cache.Config{ns.Name: {}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := controller.Setup(mgr, controller.Options{AllowedHosts: []string{"127.0.0.0/8"}, ClientOptions: []etagclient.Option{
		etagclient.WithObserver(metrics.Observer{}), etagclient.WithBatchInterval(0),
	}}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("manager: %v", err)
		}
	}()

	xl := &v1alpha1.ExternalList{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "allow"},
		Spec: v1alpha1.ExternalListSpec{URL: hs.URL + "/lists/allow", ItemsPointer: "/items"}}
	le := &v1alpha1.ListEntry{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "a"},
		Spec: v1alpha1.ListEntrySpec{ListRef: v1alpha1.ListReference{Name: "allow"}, ID: "a"}}
	for _, o := range []client.Object{xl, le} {
		if err := k8s.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		err := k8s.Get(ctx, client.ObjectKeyFromObject(le), le)
		if err == nil && meta.IsStatusConditionTrue(le.Status.Conditions, v1alpha1.ConditionSynced) {
			if err = k8s.Get(ctx, client.ObjectKeyFromObject(xl), xl); err == nil &&
				meta.IsStatusConditionTrue(xl.Status.Conditions, v1alpha1.ConditionReady) {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the list and its entry did not become Ready/Synced: %v %+v %+v", err, xl.Status, le.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}

	fams, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range fams {
		switch f.GetType().String() {
		case "HISTOGRAM":
			for _, s := range []string{"_bucket", "_sum", "_count"} {
				names[f.GetName()+s] = true
			}
		case "SUMMARY":
			for _, s := range []string{"", "_sum", "_count"} {
				names[f.GetName()+s] = true
			}
		default:
			names[f.GetName()] = true
		}
	}
	return names
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	if testing.Verbose() {
		w.t.Log(strings.TrimSpace(string(p)))
	}
	return len(p), nil
}

// selected returns the metric names that expr selects.
func selected(expr string) ([]string, error) {
	e, err := parser.NewParser(parser.Options{}).ParseExpr(expr)
	if err != nil {
		return nil, err
	}
	var names []string
	var bad error
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		vs, ok := n.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		name := vs.Name
		for _, m := range vs.LabelMatchers {
			if m.Name == "__name__" {
				name = m.Value
			}
		}
		if name == "" {
			bad = fmt.Errorf("selector %s names no metric", vs)
		}
		names = append(names, name)
		return nil
	})
	return names, bad
}

// check parses expr and reports every metric it selects that the manager
// does not export.
func check(what, expr string, exported map[string]bool) []string {
	names, err := selected(expr)
	if err != nil {
		return []string{fmt.Sprintf("%s: %q does not parse: %v", what, expr, err)}
	}
	if len(names) == 0 {
		return []string{fmt.Sprintf("%s: %q selects no metric", what, expr)}
	}
	var problems []string
	for _, n := range names {
		if !exported[n] {
			problems = append(problems, fmt.Sprintf("%s: %q selects %s, which the manager does not export", what, expr, n))
		}
	}
	return problems
}

// grafanaQuery turns a panel query into PromQL the way Grafana does with
// "All" chosen in every variable.
func grafanaQuery(q string) string {
	return strings.NewReplacer(lkmonitoring.VarRateInterval, "5m", lkmonitoring.VarNamespace, ".*",
		lkmonitoring.VarCluster, ".*", lkmonitoring.VarJob, ".*").Replace(q)
}

// narrowed reports every vector selector of expr (a panel query with its
// variables left in, but for the rate interval) that lacks a matcher
// label=~"$label" for one of the labels wanted.
func narrowed(what, expr string, wanted ...string) []string {
	e, err := parser.NewParser(parser.Options{}).ParseExpr(strings.ReplaceAll(expr, lkmonitoring.VarRateInterval, "5m"))
	if err != nil {
		return []string{fmt.Sprintf("%s: %q does not parse: %v", what, expr, err)}
	}
	var problems []string
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		vs, ok := n.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		for _, l := range wanted {
			if !slices.ContainsFunc(vs.LabelMatchers, func(m *labels.Matcher) bool {
				return m.Name == l && m.Type == labels.MatchRegexp && m.Value == "$"+l
			}) {
				problems = append(problems, fmt.Sprintf("%s: %s does not match %s=~\"$%s\"", what, vs, l, l))
			}
		}
		return nil
	})
	return problems
}

func repoFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ruleGroups loads the chart's rule file and the PrometheusRule's groups
// with Prometheus's own loader.
func ruleGroups(t *testing.T) map[string]*rulefmt.RuleGroups {
	t.Helper()
	out := map[string]*rulefmt.RuleGroups{}
	groups, errs := rulefmt.Parse(repoFile(t, lkmonitoring.ChartRulesPath), false, model.LegacyValidation, parser.NewParser(parser.Options{}), slog.Default())
	if len(errs) > 0 {
		t.Fatalf("%s: %v", lkmonitoring.ChartRulesPath, errors.Join(errs...))
	}
	out[lkmonitoring.ChartRulesPath] = groups

	var pr struct {
		Kind string `yaml:"kind"`
		Spec struct {
			Groups yaml.Node `yaml:"groups"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal(repoFile(t, lkmonitoring.PrometheusRulePath), &pr); err != nil {
		t.Fatalf("%s: %v", lkmonitoring.PrometheusRulePath, err)
	}
	if pr.Kind != "PrometheusRule" {
		t.Fatalf("%s: kind %q", lkmonitoring.PrometheusRulePath, pr.Kind)
	}
	doc, err := yaml.Marshal(map[string]*yaml.Node{"groups": &pr.Spec.Groups})
	if err != nil {
		t.Fatal(err)
	}
	groups, errs = rulefmt.Parse(doc, false, model.LegacyValidation, parser.NewParser(parser.Options{}), slog.Default())
	if len(errs) > 0 {
		t.Fatalf("%s: %v", lkmonitoring.PrometheusRulePath, errors.Join(errs...))
	}
	out[lkmonitoring.PrometheusRulePath] = groups
	return out
}

func TestRulesAndDashboardSelectExportedMetrics(t *testing.T) {
	names := exported(t)
	for _, want := range []string{metrics.ListReadyName, metrics.RequestDurationName + "_bucket", metrics.BuildInfoName} {
		if !names[want] {
			t.Fatalf("the registry lacks %s after the controllers ran; it has %v", want, slices.Sorted(maps.Keys(names)))
		}
	}

	var problems []string
	alerts := 0
	for path, groups := range ruleGroups(t) {
		for _, g := range groups.Groups {
			for _, r := range g.Rules {
				alerts++
				problems = append(problems, check(path+" "+r.Alert, r.Expr, names)...)
			}
		}
	}
	if want := 2 * len(lkmonitoring.Rules(lkmonitoring.RuleOptions{})[0].Rules); alerts != want {
		t.Errorf("loaded %d rules from the two files, want %d", alerts, want)
	}

	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(repoFile(t, lkmonitoring.DashboardPath), &dash); err != nil {
		t.Fatal(err)
	}
	queries := 0
	for _, p := range dash.Panels {
		for _, q := range p.Targets {
			queries++
			problems = append(problems, check("panel "+p.Title, grafanaQuery(q.Expr), names)...)
			problems = append(problems, narrowed("panel "+p.Title, q.Expr, "cluster", "job")...)
		}
	}
	if queries == 0 {
		t.Error("the dashboard has no queries")
	}
	// Each variable reads an exported metric, narrowed by the variables
	// before it.
	var before []string
	for _, v := range lkmonitoring.Variables() {
		problems = append(problems, check("variable "+v.Name, grafanaQuery(v.Selector), names)...)
		if got, err := selected(grafanaQuery(v.Selector)); err == nil && !slices.Equal(got, []string{v.Metric}) {
			problems = append(problems, fmt.Sprintf("variable %s selects %v, want %s", v.Name, got, v.Metric))
		}
		problems = append(problems, narrowed("variable "+v.Name, v.Selector, before...)...)
		before = append(before, v.Name)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestCheckerCatchesMistakes proves the check can fail: a misspelt metric
// and a query that does not parse are reported.
func TestCheckerCatchesMistakes(t *testing.T) {
	names := map[string]bool{metrics.ListReadyName: true}
	if p := check("ok", "max by (namespace, name) (listkeeper_list_ready) == 0", names); len(p) != 0 {
		t.Errorf("a good rule was flagged: %v", p)
	}
	if p := check("typo", "listkeeper_list_readyy == 0", names); len(p) != 1 {
		t.Errorf("a misspelt metric was not flagged: %v", p)
	}
	if p := check("syntax", "sum(rate(listkeeper_list_ready[5m])", names); len(p) != 1 {
		t.Errorf("an unbalanced expression was not flagged: %v", p)
	}
	if p := check("grafana", grafanaQuery(`sum(rate(listkeeper_nope{namespace=~"$namespace"}[$__rate_interval]))`), names); len(p) != 1 {
		t.Errorf("a panel query naming an unknown metric was not flagged: %v", p)
	}
	if p := narrowed("narrowed", `sum(rate(listkeeper_list_ready{cluster=~"$cluster", job=~"$job"}[$__rate_interval])) / sum(listkeeper_list_ready{cluster=~"$cluster"})`, "cluster", "job"); len(p) != 1 {
		t.Errorf("a selector without job=~\"$job\" was not flagged once: %v", p)
	}
}
