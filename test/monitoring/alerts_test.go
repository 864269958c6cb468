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
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/prometheus/prometheus/promql/promqltest"
	"github.com/prometheus/prometheus/rules"

	lkmonitoring "github.com/listkeeper/listkeeper/internal/monitoring"
)

// firing evaluates rule every minute from 0 to the last of at over the
// series of load (promqltest's load syntax, at 1m steps from time 0), as
// Prometheus's rule manager does, and returns what fires at each minute of
// at: each alert's labels, sorted.
func firing(t *testing.T, rule rulefmt.Rule, load string, at ...time.Duration) map[time.Duration][]string {
	t.Helper()
	storage := promqltest.LoadedStorage(t, "load 1m\n"+strings.TrimLeft(load, "\n"))
	engine := promqltest.NewTestEngine(t, false, 0, 100000)
	expr, err := parser.NewParser(parser.Options{}).ParseExpr(rule.Expr)
	if err != nil {
		t.Fatalf("%s: %v", rule.Alert, err)
	}
	ar := rules.NewAlertingRule(rule.Alert, expr, time.Duration(rule.For), time.Duration(rule.KeepFiringFor),
		labels.FromMap(rule.Labels), labels.FromMap(rule.Annotations), labels.EmptyLabels(), "", false, nil)
	query := rules.EngineQueryFunc(engine, storage)
	out := map[time.Duration][]string{}
	for ts := time.Duration(0); ts <= slices.Max(at); ts += time.Minute {
		if _, err := ar.Eval(context.Background(), 0, time.Unix(0, 0).Add(ts), query, nil, 0); err != nil {
			t.Fatalf("%s at %s: %v", rule.Alert, ts, err)
		}
		if !slices.Contains(at, ts) {
			continue
		}
		got := []string{}
		for _, a := range ar.ActiveAlerts() {
			if a.State == rules.StateFiring {
				got = append(got, a.Labels.String())
			}
		}
		slices.Sort(got)
		out[ts] = got
	}
	return out
}

// ruleNamed returns the alert of one rule file.
func ruleNamed(t *testing.T, groups *rulefmt.RuleGroups, alert string) rulefmt.Rule {
	t.Helper()
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			if r.Alert == alert {
				return r
			}
		}
	}
	t.Fatalf("no alert %s", alert)
	return rulefmt.Rule{}
}

func checkFiring(t *testing.T, got map[time.Duration][]string, want map[time.Duration][]string) {
	t.Helper()
	for at, w := range want {
		if !slices.Equal(got[at], w) {
			t.Errorf("at %s: firing %v, want %v", at, got[at], w)
		}
	}
}

// TestListkeeperAbsent: in both rule files, the alert fires ten minutes
// after the last replica of its own job stopped being scraped (five of
// them Prometheus's lookback), named by that job, and not before; another
// installation's metrics (another job) do not keep it quiet.
func TestListkeeperAbsent(t *testing.T) {
	for path, groups := range ruleGroups(t) {
		t.Run(path, func(t *testing.T) {
			job := map[string]string{lkmonitoring.ChartRulesPath: lkmonitoring.ChartJob, lkmonitoring.PrometheusRulePath: lkmonitoring.KustomizeJob}[path]
			rule := ruleNamed(t, groups, "ListkeeperAbsent")
			// Two replicas of job until minute 20; another installation all along.
			load := strings.NewReplacer("JOB", job).Replace(`
  listkeeper_build_info{job="JOB", instance="a", version="v"} 1x20
  listkeeper_build_info{job="JOB", instance="b", version="v"} 1x20
  listkeeper_build_info{job="other-listkeeper-metrics", instance="c", version="v"} 1x60
`)
			want := `{alertname="ListkeeperAbsent", job="` + job + `", severity="critical"}`
			checkFiring(t, firing(t, rule, load, 10*time.Minute, 30*time.Minute, 34*time.Minute, 36*time.Minute, 50*time.Minute),
				map[time.Duration][]string{
					10 * time.Minute: {},
					30 * time.Minute: {},     // absent since 25m (lookback), pending
					34 * time.Minute: {},     // pending for 9m
					36 * time.Minute: {want}, // pending for 11m
					50 * time.Minute: {want},
				})
		})
	}
}

// TestListkeeperListStale: a list whose last resync stays put fires once
// it is older than DefaultListStaleAfter (30m) for ten minutes; a list that
// resyncs every resyncInterval (10m) never does, nor does one that comes
// back.
func TestListkeeperListStale(t *testing.T) {
	if lkmonitoring.DefaultListStaleAfter != 30*time.Minute {
		t.Fatalf("DefaultListStaleAfter is %s; the series below assume 30m", lkmonitoring.DefaultListStaleAfter)
	}
	for path, groups := range ruleGroups(t) {
		t.Run(path, func(t *testing.T) {
			rule := ruleNamed(t, groups, "ListkeeperListStale")
			// Values are Unix seconds of the last resync; time starts at 0.
			// fresh resyncs every 10m; stuck last did at 0; back is stuck
			// until it resyncs at minute 38. Two replicas report stuck
			// during a handover (max by (namespace, name)).
			load := `
  listkeeper_list_last_sync_timestamp_seconds{namespace="a", name="fresh", instance="r1"} 0x9 600x9 1200x9 1800x9 2400x9 3000x9 3600x1
  listkeeper_list_last_sync_timestamp_seconds{namespace="a", name="stuck", instance="r1"} 0x61
  listkeeper_list_last_sync_timestamp_seconds{namespace="a", name="stuck", instance="r2"} _x30 0x31
  listkeeper_list_last_sync_timestamp_seconds{namespace="b", name="back", instance="r1"} 0x37 2280x23
`
			stuck := `{alertname="ListkeeperListStale", name="stuck", namespace="a", severity="warning"}`
			checkFiring(t, firing(t, rule, load, 20*time.Minute, 35*time.Minute, 40*time.Minute, 42*time.Minute, 60*time.Minute),
				map[time.Duration][]string{
					20 * time.Minute: {},
					35 * time.Minute: {},      // stuck and back older than 30m since 31m: pending
					40 * time.Minute: {},      // back resynced at 38m, before its 10m were up
					42 * time.Minute: {stuck}, // pending since 31m
					60 * time.Minute: {stuck}, // and stays
				})
		})
	}
}
