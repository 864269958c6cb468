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
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/listkeeper/listkeeper/internal/metrics"
)

// DashboardUID is the Grafana dashboard's uid, stable across versions so
// that links to it keep working.
const DashboardUID = "listkeeper"

// Grafana template variables the panel queries use. Every selector of
// every panel matches cluster=~"$cluster" and job=~"$job"; the per-list
// ones also namespace=~"$namespace". A checker substitutes
// VarRateInterval before parsing a query as PromQL.
const (
	// VarCluster selects the clusters (the cluster label that a
	// multi-cluster Prometheus, Thanos or Mimir adds; multi, "All", which
	// also matches series without one).
	VarCluster = "$cluster"
	// VarJob selects the installations: the job of each one's scrape target
	// (multi, "All").
	VarJob = "$job"
	// VarNamespace selects the ExternalLists' namespaces (multi, "All").
	VarNamespace = "$namespace"
	// VarRateInterval is Grafana's built-in rate window.
	VarRateInterval = "$__rate_interval"
)

// Variable is one of the dashboard's query variables: the values of Label
// on the series Selector selects.
type Variable struct {
	// Name is the variable's name, without the $.
	Name string
	// Title is its label in Grafana.
	Title string
	// Label is the series label whose values the variable offers.
	Label string
	// Metric is the metric the values come from.
	Metric string
	// Selector selects Metric's series, narrowed by the variables above
	// this one.
	Selector string
}

// Query is the variable's Grafana query.
func (v Variable) Query() string { return fmt.Sprintf("label_values(%s, %s)", v.Selector, v.Label) }

// Variables are the dashboard's query variables, in the order Grafana
// shows them, each narrowed by those before it.
func Variables() []Variable {
	return []Variable{
		{Name: "cluster", Title: "Cluster", Label: "cluster", Metric: metrics.BuildInfoName, Selector: metrics.BuildInfoName},
		{Name: "job", Title: "Job", Label: "job", Metric: metrics.BuildInfoName,
			Selector: fmt.Sprintf(`%s{cluster=~"%s"}`, metrics.BuildInfoName, VarCluster)},
		{Name: "namespace", Title: "Namespace", Label: "namespace", Metric: metrics.ListReadyName, Selector: sel(metrics.ListReadyName)},
	}
}

// sel selects metric in the chosen clusters and jobs, with more matchers.
func sel(metric string, matchers ...string) string {
	all := append([]string{fmt.Sprintf(`cluster=~"%s"`, VarCluster), fmt.Sprintf(`job=~"%s"`, VarJob)}, matchers...)
	return fmt.Sprintf("%s{%s}", metric, strings.Join(all, ", "))
}

// Query is one PromQL query of a panel.
type Query struct {
	// Expr is the PromQL expression, with Grafana variables.
	Expr string
	// Legend is the series' legend format.
	Legend string
	// Instant asks for the latest value only (tables).
	Instant bool
}

// Panel is one dashboard panel.
type Panel struct {
	// Title is the panel's title.
	Title string
	// Question is what the panel answers; it is the panel's description.
	Question string
	// Type is the Grafana panel type: timeseries, stat or table.
	Type string
	// Unit is the Grafana unit of the values.
	Unit string
	// Queries are the panel's queries.
	Queries []Query
	// Wide panels take the whole row; others half of it.
	Wide bool
}

func ns(metric string) string { return sel(metric, fmt.Sprintf(`namespace=~"%s"`, VarNamespace)) }

func perListNS(metric string) string { return fmt.Sprintf("max by (namespace, name) (%s)", ns(metric)) }

func rate(selector string) string { return fmt.Sprintf("rate(%s[%s])", selector, VarRateInterval) }

// Panels are the dashboard's panels, top to bottom, left to right.
func Panels() []Panel {
	return []Panel{
		{
			Title: "Lists not Ready", Type: "stat", Unit: "short",
			Question: "How many ExternalLists cannot be read or written right now?",
			Queries:  []Query{{Expr: fmt.Sprintf("count(%s == 0) or vector(0)", perListNS(metrics.ListReadyName)), Instant: true}},
		},
		{
			Title: "Entries pending or stuck", Type: "stat", Unit: "short",
			Question: "How many ListEntries wait for their ID to reach the list, and how many are stuck deleting?",
			Queries: []Query{
				{Expr: fmt.Sprintf("sum(%s) or vector(0)", perListNS(metrics.ListEntriesPendingName)), Legend: "pending", Instant: true},
				{Expr: fmt.Sprintf("sum(%s) or vector(0)", perListNS(metrics.ListEntriesStuckTerminatingName)), Legend: "stuck terminating", Instant: true},
			},
		},
		{
			Title: "Lists", Type: "table", Unit: "short", Wide: true,
			Question: "Which lists are Ready (and if not, why), how many items and entries does each have, and when was each last synced?",
			Queries: []Query{
				{Expr: fmt.Sprintf("max by (namespace, name, reason) (%s)", ns(metrics.ListReadyName)), Legend: "ready", Instant: true},
				{Expr: perListNS(metrics.ListItemsName), Legend: "items", Instant: true},
				{Expr: perListNS(metrics.ListEntriesName), Legend: "entries", Instant: true},
				{Expr: perListNS(metrics.ListForeignItemsName), Legend: "foreign items", Instant: true},
				{Expr: perListNS(metrics.ListEntriesPendingName), Legend: "pending", Instant: true},
				{Expr: fmt.Sprintf("time() - %s", perListNS(metrics.ListLastSyncName)), Legend: "seconds since sync", Instant: true},
			},
		},
		{
			Title: "Write outcomes", Type: "timeseries", Unit: "ops",
			Question: "How many read-modify-write cycles per second are written, unchanged, lost to other writers (conflict), ambiguous or failed, across all replicas?",
			Queries:  []Query{{Expr: fmt.Sprintf("sum by (result) (%s)", rate(sel(metrics.ListWritesName))), Legend: "{{result}}"}},
		},
		{
			Title: "Conflict ratio", Type: "timeseries", Unit: "percentunit",
			Question: "What share of PUTs lose to another writer (412)? High means heavy contention on the same lists.",
			Queries: []Query{{Expr: fmt.Sprintf(`sum(%s) / sum(%s)`,
				rate(sel(metrics.ListWritesName, `result="conflict"`)), rate(sel(metrics.ListWritesName, `result=~"written|conflict"`))), Legend: "conflict / (written + conflict)"}},
		},
		{
			Title: "Change latency", Type: "timeseries", Unit: "s",
			Question: "How long does a change take from submission to commit on the list (50th and 99th percentile)?",
			Queries: []Query{
				{Expr: fmt.Sprintf("histogram_quantile(0.5, sum by (le) (%s))", rate(sel(metrics.ChangeDurationName+"_bucket"))), Legend: "p50"},
				{Expr: fmt.Sprintf("histogram_quantile(0.99, sum by (le) (%s))", rate(sel(metrics.ChangeDurationName+"_bucket"))), Legend: "p99"},
			},
		},
		{
			Title: "List server latency", Type: "timeseries", Unit: "s",
			Question: "How fast do the list servers answer GET and PUT (99th percentile, until the response headers)?",
			Queries: []Query{{Expr: fmt.Sprintf("histogram_quantile(0.99, sum by (le, method) (%s))",
				rate(sel(metrics.RequestDurationName+"_bucket"))), Legend: "p99 {{method}}"}},
		},
		{
			Title: "List server answers", Type: "timeseries", Unit: "reqps",
			Question: "Which status codes do the list servers answer with (0: no answer), per method? 5xx or 0 means the list API is failing; 401/403 means credentials.",
			Queries:  []Query{{Expr: fmt.Sprintf("sum by (method, code) (%s)", rate(sel(metrics.HTTPRequestsName))), Legend: "{{method}} {{code}}"}},
		},
		{
			Title: "Changes per write", Type: "timeseries", Unit: "short",
			Question: "How many changes does one PUT carry on average? Above 1 means combining saves writes.",
			Queries: []Query{{Expr: fmt.Sprintf("sum(%s) / sum(%s)",
				rate(sel(metrics.BatchSizeName+"_sum")), rate(sel(metrics.BatchSizeName+"_count"))), Legend: "changes per PUT"}},
		},
		{
			Title: "Entries per list", Type: "timeseries", Unit: "short",
			Question: "How do the live entries of each list change over time?",
			Queries:  []Query{{Expr: perListNS(metrics.ListEntriesName), Legend: "{{namespace}}/{{name}}"}},
		},
		{
			Title: "Versions", Type: "table", Unit: "short", Wide: true,
			Question: "Which versions of the manager run, and how many replicas run each?",
			Queries:  []Query{{Expr: fmt.Sprintf("count by (version, revision, goversion) (%s)", sel(metrics.BuildInfoName)), Legend: "replicas", Instant: true}},
		},
	}
}

// Dashboard renders the Grafana dashboard JSON.
func Dashboard() ([]byte, error) {
	datasource := map[string]string{"type": "prometheus", "uid": "${datasource}"}
	var panels []map[string]any
	x, y := 0, 0
	for i, p := range Panels() {
		w := 12
		if p.Wide {
			w = 24
		}
		if x+w > 24 {
			x, y = 0, y+8
		}
		var targets []map[string]any
		for j, q := range p.Queries {
			t := map[string]any{
				"datasource": datasource, "refId": string(rune('A' + j)), "expr": q.Expr,
				"legendFormat": q.Legend, "instant": q.Instant, "range": !q.Instant,
			}
			if p.Type == "table" {
				t["format"] = "table"
			}
			targets = append(targets, t)
		}
		panel := map[string]any{
			"id": i + 1, "type": p.Type, "title": p.Title, "description": p.Question,
			"datasource": datasource, "gridPos": map[string]int{"h": 8, "w": w, "x": x, "y": y},
			"targets":     targets,
			"fieldConfig": map[string]any{"defaults": map[string]any{"unit": p.Unit}, "overrides": []any{}},
		}
		if p.Type == "table" {
			panel["transformations"] = []any{map[string]any{"id": "merge", "options": map[string]any{}}}
		}
		panels = append(panels, panel)
		x += w
	}
	d := map[string]any{
		"uid": DashboardUID, "title": "listkeeper", "tags": []string{"listkeeper"},
		"description": "listkeeper: list readiness, writes, conflicts and latency. Generated by make monitoring from internal/monitoring.",
		"editable":    true, "schemaVersion": 39, "version": 1, "refresh": "30s",
		"time":     map[string]string{"from": "now-6h", "to": "now"},
		"timezone": "browser", "graphTooltip": 1,
		"templating": map[string]any{"list": templating(datasource)},
		"panels":     panels,
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		return nil, fmt.Errorf("encode the dashboard: %w", err)
	}
	return buf.Bytes(), nil
}

// templating is the data source variable and the query Variables, each
// multi-valued with "All" (.*, which also matches a missing label) chosen.
func templating(datasource map[string]string) []any {
	list := []any{map[string]any{"name": "datasource", "label": "Data source", "type": "datasource", "query": "prometheus"}}
	for _, v := range Variables() {
		list = append(list, map[string]any{
			"name": v.Name, "label": v.Title, "type": "query", "datasource": datasource,
			"query":      map[string]string{"query": v.Query(), "refId": v.Name},
			"definition": v.Query(), "refresh": 2, "multi": true, "includeAll": true,
			"allValue": ".*", "current": map[string]any{"text": "All", "value": "$__all"}, "sort": 1,
		})
	}
	return list
}
