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
	"fmt"
	"strings"
	"time"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/metrics"
)

// RunbookBase is where the alerts' runbook anchors point: the page
// docs/operations/alerts.md on GitHub.
const RunbookBase = "https://github.com/listkeeper/listkeeper/blob/main/docs/operations/alerts.md"

// Rule is one alerting rule, in Prometheus's rule-file form.
type Rule struct {
	Alert       string            `json:"alert"`
	Expr        string            `json:"expr"`
	For         string            `json:"for"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
}

// RuleGroup is a named group of rules.
type RuleGroup struct {
	Name  string `json:"name"`
	Rules []Rule `json:"rules"`
}

// Severities of the alerts.
const (
	SeverityWarning  = "warning"
	SeverityCritical = "critical"
	SeverityInfo     = "info"
)

// Thresholds of the alerts.
const (
	// WriteErrorRatio is the share of write decisions that fail before
	// ListkeeperWriteErrors fires.
	WriteErrorRatio = 0.05
	// ConflictRatio is the share of PUTs lost to other writers (412)
	// before ListkeeperHighConflictRatio fires.
	ConflictRatio = 0.5
	// SlowChangeSeconds is the 99th percentile of submit-to-commit time
	// above which ListkeeperSlowChanges fires. It is below the largest
	// finite bucket of listkeeper_change_duration_seconds (32.768 s), so
	// the quantile can exceed it.
	SlowChangeSeconds = 30
)

// Jobs of the manager's scrape targets. The Prometheus Operator names a
// ServiceMonitor's job after the Service it scrapes (neither ServiceMonitor
// sets jobLabel).
const (
	// KustomizeJob is the job of config/prometheus's ServiceMonitor: the
	// metrics Service of config/default.
	KustomizeJob = "listkeeper-controller-manager-metrics-service"
	// ChartJob is the job of the Helm chart's ServiceMonitor for a release
	// named listkeeper: its Service <fullname>-metrics. The chart's
	// templates/prometheusrule.yaml replaces it with its own release's.
	ChartJob = "listkeeper-metrics"
)

// DefaultListStaleAfter is how old a list's last resync may grow before
// ListkeeperListStale fires: three resyncs at the default resyncInterval.
// The interval is per list and not exported, so a list that sets a longer
// one needs a RuleOptions.ListStaleAfter of at least three times it.
const DefaultListStaleAfter = 3 * v1alpha1.DefaultResyncInterval

// RuleOptions are what the generated rules depend on besides the metrics.
// The zero value means the defaults.
type RuleOptions struct {
	// Job is the job label of the manager's metrics, which ListkeeperAbsent
	// wants present. Default: KustomizeJob.
	Job string
	// ListStaleAfter is the age of a list's last resync at which
	// ListkeeperListStale fires. Default: DefaultListStaleAfter.
	ListStaleAfter time.Duration
}

func (o RuleOptions) withDefaults() RuleOptions {
	if o.Job == "" {
		o.Job = KustomizeJob
	}
	if o.ListStaleAfter <= 0 {
		o.ListStaleAfter = DefaultListStaleAfter
	}
	return o
}

// shortDuration writes d as Prometheus durations read: 30m, 2h, 90s.
func shortDuration(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	default:
		return fmt.Sprintf("%ds", d/time.Second)
	}
}

// runbook returns the docs/operations/alerts.md anchor of an alert: its
// heading there is the alert's name, and GitHub anchors are lower case.
func runbook(alert string) string { return RunbookBase + "#" + Anchor(alert) }

// Anchor is the GitHub anchor of a Markdown heading that is one word.
func Anchor(heading string) string {
	out := make([]rune, 0, len(heading))
	for _, r := range heading {
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		out = append(out, r)
	}
	return string(out)
}

func perList(name string) string {
	return fmt.Sprintf("max by (namespace, name) (%s)", name)
}

func writes(results, window string) string {
	op := "="
	if strings.Contains(results, "|") {
		op = "=~"
	}
	return fmt.Sprintf(`sum(rate(%s{result%s"%s"}[%s]))`, metrics.ListWritesName, op, results, window)
}

// Rules are listkeeper's alerting rules.
func Rules(o RuleOptions) []RuleGroup {
	o = o.withDefaults()
	return []RuleGroup{{
		Name: "listkeeper",
		Rules: []Rule{
			{
				Alert:  "ListkeeperAbsent",
				Expr:   fmt.Sprintf(`absent(%s{job=%q})`, metrics.BuildInfoName, o.Job),
				For:    "10m",
				Labels: map[string]string{"severity": SeverityCritical},
				Annotations: map[string]string{
					"summary":     "No listkeeper manager is scraped",
					"description": fmt.Sprintf("Prometheus has had no metrics of job {{ $labels.job }} for 10 minutes: no manager replica runs, or none can be scraped. Nothing reconciles ListEntries meanwhile; IDs that should come off lists stay on them. `kubectl get deploy,pods -A -l app.kubernetes.io/name=listkeeper` shows the replicas; %s is 1 on every replica that serves metrics.", metrics.BuildInfoName),
					"runbook_url": runbook("ListkeeperAbsent"),
				},
			},
			{
				Alert:  "ListkeeperListNotReady",
				Expr:   perList(metrics.ListReadyName) + " == 0",
				For:    "10m",
				Labels: map[string]string{"severity": SeverityWarning},
				Annotations: map[string]string{
					"summary":     "ExternalList {{ $labels.namespace }}/{{ $labels.name }} is not Ready",
					"description": "The ExternalList {{ $labels.namespace }}/{{ $labels.name }} has not been Ready for 10 minutes: its document cannot be read or written. `kubectl describe xl -n {{ $labels.namespace }} {{ $labels.name }}` shows the reason; listkeeper_list_ready carries it in its reason label.",
					"runbook_url": runbook("ListkeeperListNotReady"),
				},
			},
			{
				Alert:  "ListkeeperListStale",
				Expr:   fmt.Sprintf("time() - %s > %d", perList(metrics.ListLastSyncName), int(o.ListStaleAfter.Seconds())),
				For:    "10m",
				Labels: map[string]string{"severity": SeverityWarning},
				Annotations: map[string]string{
					"summary":     "ExternalList {{ $labels.namespace }}/{{ $labels.name }} has not been resynced for long",
					"description": fmt.Sprintf("The last resync of the ExternalList {{ $labels.namespace }}/{{ $labels.name }} was {{ $value | humanizeDuration }} ago, more than %s: drift on the list is neither corrected nor reported. `kubectl get xl -n {{ $labels.namespace }} {{ $labels.name }} -o yaml` shows status.lastSyncTime and the conditions.", shortDuration(o.ListStaleAfter)),
					"runbook_url": runbook("ListkeeperListStale"),
				},
			},
			{
				Alert: "ListkeeperWriteErrors",
				Expr: fmt.Sprintf("%s / %s > %g",
					writes("error", "10m"), fmt.Sprintf("sum(rate(%s[10m]))", metrics.ListWritesName), WriteErrorRatio),
				For:    "15m",
				Labels: map[string]string{"severity": SeverityWarning},
				Annotations: map[string]string{
					"summary":     "listkeeper list writes are failing",
					"description": fmt.Sprintf("More than %g%% of listkeeper's read-modify-write cycles failed, across all replicas, for 15 minutes ({{ $value | humanizePercentage }}).", WriteErrorRatio*100),
					"runbook_url": runbook("ListkeeperWriteErrors"),
				},
			},
			{
				Alert: "ListkeeperHighConflictRatio",
				Expr: fmt.Sprintf("%s / %s > %g",
					writes("conflict", "10m"), writes("written|conflict", "10m"), ConflictRatio),
				For:    "15m",
				Labels: map[string]string{"severity": SeverityInfo},
				Annotations: map[string]string{
					"summary":     "listkeeper loses most list writes to other writers",
					"description": fmt.Sprintf("More than %g%% of listkeeper's PUTs were answered 412 (another writer won), across all replicas, for 15 minutes ({{ $value | humanizePercentage }}). Changes still land, but slowly.", ConflictRatio*100),
					"runbook_url": runbook("ListkeeperHighConflictRatio"),
				},
			},
			{
				Alert: "ListkeeperSlowChanges",
				Expr: fmt.Sprintf("histogram_quantile(0.99, sum by (le) (rate(%s_bucket[10m]))) > %d",
					metrics.ChangeDurationName, SlowChangeSeconds),
				For:    "15m",
				Labels: map[string]string{"severity": SeverityWarning},
				Annotations: map[string]string{
					"summary":     "listkeeper changes take long to reach their lists",
					"description": fmt.Sprintf("The 99th percentile of the time from submitting a change to its commit on the list has been above %ds for 15 minutes, across all replicas ({{ $value | humanizeDuration }}).", SlowChangeSeconds),
					"runbook_url": runbook("ListkeeperSlowChanges"),
				},
			},
			{
				Alert:  "ListkeeperEntriesStuckTerminating",
				Expr:   perList(metrics.ListEntriesStuckTerminatingName) + " > 0",
				For:    "15m",
				Labels: map[string]string{"severity": SeverityWarning},
				Annotations: map[string]string{
					"summary":     "ListEntries of {{ $labels.namespace }}/{{ $labels.name }} are stuck deleting",
					"description": "{{ $value }} ListEntries of the ExternalList {{ $labels.namespace }}/{{ $labels.name }} have been deleting for longer than the manager's --stuck-terminating-after, for 15 minutes more.",
					"runbook_url": runbook("ListkeeperEntriesStuckTerminating"),
				},
			},
		},
	}}
}
