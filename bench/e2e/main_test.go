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
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

func TestParseFlags(t *testing.T) {
	cfg, err := parseFlags([]string{"--bin", "b", "--assets", "", "--replicas", "3, 1,3", "--entries", "10", "--lists", "8",
		"--latency", "5ms", "--batch-interval", "100ms", "--timeout", "1m"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.bin != "b" || cfg.assets == "" || !slices.Equal(cfg.replicas, []int{3, 1}) || cfg.entries != 10 || cfg.lists != 8 ||
		cfg.latency != 5*time.Millisecond || cfg.batchInterval != "100ms" || cfg.timeout != time.Minute {
		t.Errorf("parseFlags = %+v", cfg)
	}
	def, err := parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(def.replicas, []int{1, 3, 5}) || def.entries != 1000 || def.lists != 1 || def.latency != 2*time.Millisecond || def.batchInterval != "" {
		t.Errorf("defaults = %+v", def)
	}
	for _, args := range [][]string{
		{"--replicas", "0"}, {"--replicas", "1,x"}, {"--replicas", ""}, {"--entries", "0"}, {"--latency", "-1s"},
		{"--batch-interval", "soon"}, {"--timeout", "0s"}, {"--workers", "0"}, {"extra"},
		{"--lists", "0"}, {"--entries", "4", "--lists", "5"},
	} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("parseFlags(%q) succeeded, want an error", args)
		}
	}
}

// sampleResults is a run of three rounds: R=1, 3 and 5.
func sampleResults() *results {
	rec := func(success, errs float64) map[harness.ReconcileKey]float64 {
		return map[harness.ReconcileKey]float64{{Controller: "listentry", Result: "success"}: success,
			{Controller: "listentry", Result: "error"}: errs, {Controller: "externallist", Result: "success"}: 1}
	}
	mk := func(name string, secs, rpc, p99 float64, replicas ...harness.ManagerMetrics) phase {
		p := phase{Name: name, Changes: 1000, Finished: true, Seconds: secs, ListSeconds: secs, EntriesSeconds: secs + 1,
			Requests: int64(rpc * 1000), RequestsPerChange: rpc, Conflicts: 12, Commits: 40, ConflictsPerWrite: 0.3,
			Latency: latencyFigures{IDs: 1000, P50: p99 / 4, P99: p99, Max: p99 + 0.5}}
		var total harness.ManagerMetrics
		for i, m := range replicas {
			p.Replicas = append(p.Replicas, figuresOf("manager-"+string(rune('1'+i)), m))
			total = total.Add(m)
		}
		p.Total = figuresOf("total", total)
		p.Operator = operatorAPIOf(harness.Counters{Managers: replicas},
			harness.APIServerMetrics{Requests: map[string]float64{"leases PUT": 10, "leases GET": 2}}, true)
		return p
	}
	m := harness.ManagerMetrics{Requests: 100, Conflicts: 4, Writes: 20, Batches: 20, Changes: 300, Reconciles: rec(2000, 3),
		APIRequests: map[string]float64{"GET": 2, "PUT": 4, "PATCH": 500, "POST": 1}, APIConflicts: 3}
	r := &results{
		Started: time.Date(2026, 12, 2, 14, 0, 0, 0, time.UTC), Elapsed: 120,
		Config: config{replicas: []int{1, 3, 5}, entries: 1000, lists: 1, bystanders: 50, latency: 2 * time.Millisecond, workers: 8, clients: 16, timeout: time.Minute}.public(),
		Host:   host{GoVersion: "go1.26.8", GOMAXPROCS: 2, LoadStart: [3]float64{1, 1, 1}, LoadEnd: [3]float64{1.5, 1, 1}},
		Rounds: []round{
			{Replicas: 1, Phases: []phase{mk("create", 10, 0.04, 1.2, m), mk("delete", 12, 0.05, 0.8, m)}},
			{Replicas: 3, Phases: []phase{mk("create", 9, 0.4, 2.5, m, m, m), mk("delete", 11, 0.6, 1.5, m, m, m)}},
			{Replicas: 5, Phases: []phase{mk("create", 10.5, 0.03, 1.9, m, m, m, m, m), mk("delete", 14, 0.02, 2, m, m, m, m, m)}},
		},
	}
	r.Rounds[0].Phases[1].ConflictsPerWrite = 0.05
	r.Rounds[0].Phases[0].ConflictsPerWrite = 0.1
	// R=1 and R=3 ran with the finalizer policy; R=1's create wrote 1000
	// entries and the operator 1100 times more.
	r.Rounds[0].FinalizerPolicy, r.Rounds[1].FinalizerPolicy = true, true
	r.Rounds[0].Phases[0].API = apiFiguresOf(harness.APIServerMetrics{Requests: map[string]float64{"listentries POST": 1000, "listentries/status PUT": 1100}}, 1000)
	return r
}

func TestTargets(t *testing.T) {
	r := sampleResults()
	got := checkTargets(r)
	type row struct {
		name, got  string
		known, met bool
	}
	want := []row{
		{"list requests per change, R=1 (create, delete)", "0.040, 0.050", true, true},
		{"412s per committed write, R=1 (create, delete)", "0.100, 0.050", true, true},
		// (507 - 12) requests per phase, twice, per 1000 entries.
		{"Kubernetes API requests per entry, R=1 (create + delete, every verb, Leases left out)", "0.99", true, true},
		{"per-ID latency p99, R=1 (create, delete)", "1.20s, 0.80s", true, true},
		{"operator's ListEntry writes per entry, create, R=1 (finalizer policy)", "1.10", true, true},
		{"list requests per change, R=3 (create, delete)", "0.400, 0.600", true, false},
		{"412s per committed write, R=3 (create, delete)", "0.300, 0.300", true, false},
		{"Kubernetes API requests per entry, R=3 (create + delete, every verb, Leases left out)", "3.02", true, true},
		{"per-ID latency p99, R=3 (create, delete)", "2.50s, 1.50s", true, false},
		{"operator's ListEntry writes per entry, create, R=3 (finalizer policy)", "not measured: the API server's metrics could not be read", false, false},
		{"list requests per change, R=5 (create, delete)", "0.030, 0.020", true, true},
		{"412s per committed write, R=5 (create, delete)", "0.300, 0.300", true, false},
		{"Kubernetes API requests per entry, R=5 (create + delete, every verb, Leases left out)", "5.05", true, false},
		{"per-ID latency p99, R=5 (create, delete)", "1.90s, 2.00s", true, true},
		{"operator's ListEntry writes per entry, create, R=5 (finalizer policy)", "not measured: the API server ran without the finalizer policy", false, false},
		{"per-ID create latency p99, R=1 (finalizer policy)", "1.20s", true, true},
		{"create time, R=5 vs R=1", "10.50s vs 10.00s (1.05×)", true, true},
		{"delete time, R=5 vs R=1", "14.00s vs 12.00s (1.17×)", true, false},
		{"list requests per change with 8 lists, R=5 (create, delete)", "run with --lists 8 to measure", false, false},
	}
	if len(got) != len(want) {
		t.Fatalf("checkTargets gave %d targets, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if g := got[i]; g.Name != w.name || g.Got != w.got || g.Known != w.known || g.Met != w.met {
			t.Errorf("target %d = %+v, want %+v", i, g, w)
		}
	}

	// With 8 lists the last target is measured at R=5.
	r.Config.Lists = 8
	if last := checkTargets(r)[len(want)-1]; !last.Known || !last.Met || last.Got != "0.030, 0.020" {
		t.Errorf("target with 8 lists = %+v", last)
	}
	r.Config.Lists = 1

	// More than 1.3 operator writes per entry misses the target; so does
	// a create p99 at R=1 of 3.5 s or more.
	r.Rounds[0].Phases[0].API.OperatorWrites = 1500
	r.Rounds[0].Phases[0].Latency.P99 = 3.5
	if tg := checkTargets(r)[4]; !tg.Known || tg.Met || tg.Got != "1.50" {
		t.Errorf("writes target over the limit = %+v", tg)
	}
	if tg := checkTargets(r)[15]; !tg.Known || tg.Met || tg.Got != "3.50s" {
		t.Errorf("create p99 target at the limit = %+v", tg)
	}
	r.Rounds[0].Phases[0].Latency.P99 = 1.2

	// A phase whose IDs did not all settle has no latency verdict.
	r.Rounds[2].Phases[1].Latency.Unsettled = 3
	if tg := checkTargets(r)[13]; tg.Known || tg.Got != "delete: 3 IDs never settled in the list history" {
		t.Errorf("latency target with unsettled IDs = %+v", tg)
	}
	r.Rounds[2].Phases[1].Latency = latencyFigures{}
	if tg := checkTargets(r)[13]; tg.Known || tg.Got != "delete: no list history" {
		t.Errorf("latency target without history = %+v", tg)
	}

	r.Rounds = r.Rounds[1:]
	for _, tg := range checkTargets(r)[10:13] {
		if tg.Known {
			t.Errorf("a comparison with R=1 is known without a round of 1 replica: %+v", tg)
		}
	}
	r.Rounds[0].Phases[1].Operator.LeasesKnown = false
	r.Rounds[0].Phases[1].Operator.Entries = r.Rounds[0].Phases[1].Operator.Total
	if got := checkTargets(r)[2].Got; got != "3.03 (Leases included: the API server's metrics could not be read)" {
		t.Errorf("API requests per entry without the Lease count = %q", got)
	}
}

func TestMarkdown(t *testing.T) {
	r := sampleResults()
	r.Targets = checkTargets(r)
	r.Rounds[1].Phases[1].API = apiFigures{Known: true, Writes: 2200, Reads: 3000, CPUSeconds: 20}
	r.Rounds = append(r.Rounds, round{Replicas: 7, Phases: []phase{{Name: "create", Changes: 1000}}, Error: "create: list: timed out | x\ny"})
	var b strings.Builder
	writeMarkdown(&b, r)
	md := b.String()
	for _, want := range []string{
		"2026-12-02 14:00:00 UTC · go1.26.8 · GOMAXPROCS 2 · 120 s in total",
		"Workload: 1000 ListEntries on one ExternalList; each list's document starts with 50 bystander IDs. The entries are created by 16 goroutines",
		"| 3 | delete | 11.00 | 11.00 | 12.00 | 1000 | 600 | 0.600 | 12 | 40 | 60 | 15.0 | 6009 (success 6000, error 9) | 3 | ok |",
		"| 1 | create | manager-1 | 2003 (success 2000, error 3) | 1 | 100 | 4 | 20 | 15.0 | 507 |",
		"| 3 | create | total | 6009 (success 6000, error 9) | 3 | 300 | 12 | 60 | 15.0 | 1521 |",
		"| 7 | create | | | | 1000 | | | | | | | | | failed |",
		"**failed**: create: list: timed out \\| x y |",
		"| 3 | delete | 12.00 | 2200 | 2.20 | 3000 | 20.0 | 0.0 | 1.67 |",
		"| 3 | create | 10.00 | - | - | - | - | 0.0 | - |",
		"| 3 | create | yes | 9.00 | 0.400 | 12 | 0.300 | 0.62 / 2.50 | 1.51 | 1.52 | - |",
		"| 1 | create | yes | 10.00 | 0.040 | 12 | 0.100 | 0.30 / 1.20 | 0.49 | 0.51 | 1.10 |",
		"| 3 | **create + delete** | | | | | | | **3.02** | | |",
		"| 7 | create | no | failed | | | | | | | |",
		"| operator's ListEntry writes per entry, create, R=1 (finalizer policy) | ≤ 1.3 | 1.10 | met |",
		"| 5 | delete | 1000 | 0.50 | 2.00 | 2.50 | 0 |",
		"| 5 | delete | 2535 | 10 | 5 | 20 | 2500 | 0 | 15 | 12 | 2523 | 2.52 |",
		"| list requests per change, R=3 (create, delete) | ≤ 0.050 each | 0.400, 0.600 | **not met** |",
		"| create time, R=5 vs R=1 | ≤ 1.1× R=1 | 10.50s vs 10.00s (1.05×) | met |",
		"| list requests per change with 8 lists, R=5 (create, delete) | ≤ 0.050 each | run with --lists 8 to measure | not measured |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "| 1 | create | total |") {
		t.Errorf("markdown has a total row for a single replica:\n%s", md)
	}
	if strings.Contains(md, "Noisy host") {
		t.Errorf("markdown calls a quiet host noisy")
	}
	r.Config.Lists = 8
	b.Reset()
	writeMarkdown(&b, r)
	if want := "Workload: 1000 ListEntries dealt round-robin over 8 ExternalLists, each on its own document; each list's"; !strings.Contains(b.String(), want) {
		t.Errorf("markdown with 8 lists lacks %q", want)
	}
}

func TestByResult(t *testing.T) {
	for _, tt := range []struct {
		m    map[string]float64
		want string
	}{
		{nil, "0"},
		{map[string]float64{"error": 2, "success": 5, "zeta": 1, "alpha": 1, "requeue": 0}, "9 (success 5, error 2, alpha 1, zeta 1)"},
	} {
		if got := byResult(tt.m); got != tt.want {
			t.Errorf("byResult(%v) = %q, want %q", tt.m, got, tt.want)
		}
	}
}

func TestWriteFiles(t *testing.T) {
	out := t.TempDir()
	r := sampleResults()
	dir, err := writeFiles(out, "e2e-20261202-140000", r, "# report\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, filepath.Join(out, latestDir)} {
		md, err := os.ReadFile(filepath.Join(d, markdownFile))
		if err != nil || string(md) != "# report\n" {
			t.Errorf("%s: %q, %v", markdownFile, md, err)
		}
		js, err := os.ReadFile(filepath.Join(d, jsonFile))
		if err != nil {
			t.Fatal(err)
		}
		var back results
		if err := json.Unmarshal(js, &back); err != nil || len(back.Rounds) != 3 || back.Rounds[1].Phases[0].Total.Reconciles["listentry"]["success"] != 6000 {
			t.Errorf("%s does not round-trip: %v", jsonFile, err)
		}
	}
}
