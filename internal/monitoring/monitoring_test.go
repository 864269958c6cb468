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
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/testenv"
)

// alertsDoc and monitoringDoc are the files, relative to the repository's
// root, that hold the alerts' runbooks and the dashboard's panels.
const (
	alertsDoc     = "docs/operations/alerts.md"
	monitoringDoc = "docs/operations/monitoring.md"
)

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestGeneratedFilesUpToDate: the committed files are what Files renders
// (hack/verify.sh checks the same in make test; this says which file).
func TestGeneratedFilesUpToDate(t *testing.T) {
	files, err := Files(Options{})
	if err != nil {
		t.Fatal(err)
	}
	root := repoRoot(t)
	for path, want := range files {
		got, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Errorf("%s: %v (run make monitoring)", path, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run make monitoring", path)
		}
	}
}

// TestRulesAreComplete: every alert waits (for:), has a severity, a
// summary and description, and a runbook anchor that exists in
// docs/operations/alerts.md, the file RunbookBase names.
func TestRulesAreComplete(t *testing.T) {
	if !strings.HasSuffix(RunbookBase, "/"+alertsDoc) {
		t.Fatalf("RunbookBase %q does not name %s", RunbookBase, alertsDoc)
	}
	doc, err := os.ReadFile(filepath.Join(repoRoot(t), alertsDoc))
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^#+ (\S+)\s*$`).FindAllStringSubmatch(string(doc), -1) {
		anchors[Anchor(m[1])] = true
	}
	severities := map[string]bool{SeverityInfo: true, SeverityWarning: true, SeverityCritical: true}
	seen := map[string]bool{}
	for _, g := range Rules(RuleOptions{}) {
		for _, r := range g.Rules {
			if seen[r.Alert] {
				t.Errorf("alert %s defined twice", r.Alert)
			}
			seen[r.Alert] = true
			if d, err := time.ParseDuration(r.For); err != nil || d < 5*time.Minute {
				t.Errorf("%s: for %q, want a duration of at least 5m", r.Alert, r.For)
			}
			if !severities[r.Labels["severity"]] {
				t.Errorf("%s: severity %q", r.Alert, r.Labels["severity"])
			}
			if r.Annotations["summary"] == "" || r.Annotations["description"] == "" {
				t.Errorf("%s: summary or description missing", r.Alert)
			}
			url := r.Annotations["runbook_url"]
			anchor, ok := strings.CutPrefix(url, RunbookBase+"#")
			if !ok || !anchors[anchor] {
				t.Errorf("%s: runbook %q has no heading in %s", r.Alert, url, alertsDoc)
			}
		}
	}
	for _, want := range []string{"ListkeeperAbsent", "ListkeeperListNotReady", "ListkeeperListStale", "ListkeeperWriteErrors",
		"ListkeeperHighConflictRatio", "ListkeeperSlowChanges", "ListkeeperEntriesStuckTerminating"} {
		if !seen[want] {
			t.Errorf("alert %s missing", want)
		}
	}
}

// TestRuleOptions: the job and the staleness threshold reach the
// expressions, the zero value means the defaults, and each rule file
// selects the job of the ServiceMonitor it ships with.
func TestRuleOptions(t *testing.T) {
	exprs := func(o RuleOptions) map[string]string {
		out := map[string]string{}
		for _, r := range Rules(o)[0].Rules {
			out[r.Alert] = r.Expr
		}
		return out
	}
	for _, tc := range []struct {
		name             string
		o                RuleOptions
		absent, staleGT  string
		staleDescription string
	}{
		{"defaults", RuleOptions{}, `absent(listkeeper_build_info{job="listkeeper-controller-manager-metrics-service"})`, "> 1800", "more than 30m:"},
		{"set", RuleOptions{Job: "team-a-listkeeper-metrics", ListStaleAfter: 3 * time.Hour},
			`absent(listkeeper_build_info{job="team-a-listkeeper-metrics"})`, "> 10800", "more than 3h:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := exprs(tc.o)
			if e["ListkeeperAbsent"] != tc.absent {
				t.Errorf("ListkeeperAbsent: %q, want %q", e["ListkeeperAbsent"], tc.absent)
			}
			if !strings.HasSuffix(e["ListkeeperListStale"], tc.staleGT) {
				t.Errorf("ListkeeperListStale: %q, want it to end with %q", e["ListkeeperListStale"], tc.staleGT)
			}
			for _, r := range Rules(tc.o)[0].Rules {
				if r.Alert == "ListkeeperListStale" && !strings.Contains(r.Annotations["description"], tc.staleDescription) {
					t.Errorf("ListkeeperListStale description %q does not say %q", r.Annotations["description"], tc.staleDescription)
				}
			}
		})
	}
	if DefaultListStaleAfter != 30*time.Minute {
		t.Errorf("DefaultListStaleAfter = %s; the runbook in docs/operations/alerts.md says 30m", DefaultListStaleAfter)
	}

	files, err := Files(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for path, job := range map[string]string{PrometheusRulePath: KustomizeJob, ChartRulesPath: ChartJob} {
		if want := `job="` + job + `"`; !bytes.Contains(files[path], []byte(want)) {
			t.Errorf("%s does not select %s", path, want)
		}
	}
}

// TestDashboard: the dashboard is valid JSON whose panels are the Go
// definitions, each with the question it answers, without overlaps, and
// docs/operations/monitoring.md documents every panel.
func TestDashboard(t *testing.T) {
	raw, err := Dashboard()
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		UID    string `json:"uid"`
		Panels []struct {
			Title, Description string
			GridPos            struct{ H, W, X, Y int } `json:"gridPos"`
			Targets            []struct{ Expr string }
		}
		Templating struct {
			List []struct{ Name, Definition string }
		}
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("dashboard is not JSON: %v", err)
	}
	var names []string
	for _, v := range d.Templating.List {
		names = append(names, v.Name)
	}
	if got := strings.Join(names, ","); got != "datasource,cluster,job,namespace" {
		t.Errorf("variables %s, want datasource,cluster,job,namespace", got)
	}
	// Every selector of every panel narrows by cluster and job (test/monitoring
	// checks the same selector by selector with Prometheus's parser).
	for _, p := range d.Panels {
		for _, q := range p.Targets {
			n := strings.Count(q.Expr, "{")
			if n == 0 || strings.Count(q.Expr, `cluster=~"$cluster"`) != n || strings.Count(q.Expr, `job=~"$job"`) != n {
				t.Errorf("panel %q: %s does not select by $cluster and $job in each of its %d selectors", p.Title, q.Expr, n)
			}
		}
	}
	doc, err := os.ReadFile(filepath.Join(repoRoot(t), monitoringDoc))
	if err != nil {
		t.Fatal(err)
	}
	panels := Panels()
	if d.UID != DashboardUID || len(d.Panels) != len(panels) {
		t.Fatalf("uid %q, %d panels; want %q, %d", d.UID, len(d.Panels), DashboardUID, len(panels))
	}
	taken := map[[2]int]string{}
	for i, p := range d.Panels {
		if p.Title != panels[i].Title || p.Description == "" || len(p.Targets) != len(panels[i].Queries) {
			t.Errorf("panel %d: %+v does not match %+v", i, p, panels[i])
		}
		for x := p.GridPos.X; x < p.GridPos.X+p.GridPos.W; x++ {
			for y := p.GridPos.Y; y < p.GridPos.Y+p.GridPos.H; y++ {
				if other, ok := taken[[2]int{x, y}]; ok {
					t.Fatalf("panels %q and %q overlap", other, p.Title)
				}
				taken[[2]int{x, y}] = p.Title
			}
		}
		if x := p.GridPos.X + p.GridPos.W; x > 24 {
			t.Errorf("panel %q ends at column %d, past 24", p.Title, x)
		}
		if !bytes.Contains(doc, []byte("| "+p.Title+" |")) {
			t.Errorf("%s has no row for panel %q", monitoringDoc, p.Title)
		}
	}
}
