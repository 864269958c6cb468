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
	"bytes"
	"io"
	"maps"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

func TestSummaryRender(t *testing.T) {
	s := summary{
		replicas: []string{"manager-1", "manager-2"},
		phases: []phaseResult{
			{name: "create", finished: true, elapsed: 4213 * time.Millisecond, changes: 200, requests: 460, conflicts: 37,
				replicas: []*harness.ManagerMetrics{{Requests: 240, LostWrites: 20, Writes: 60, Batches: 60, Changes: 120}, {Requests: 220, LostWrites: 17, Writes: 40, Batches: 40, Changes: 100}}},
			{name: "delete", finished: true, elapsed: 3 * time.Second, changes: 200, requests: 400, conflicts: 20, leftover: []string{"demo-0007"},
				replicas: []*harness.ManagerMetrics{{Requests: 200, LostWrites: 10, Writes: 50, Batches: 50, Changes: 100}, {Requests: 200, LostWrites: 10, Writes: 50, Batches: 50, Changes: 100}}},
		},
		final: &finalCheck{after: 2 * time.Second, items: 52, ownerKept: true, leftover: []string{"demo-0007"}},
	}
	var b bytes.Buffer
	s.render(&b)
	want := `phase    time  changes  requests  req/change  412s  lost
create  4.21s      200       460        2.30    37     0
delete     3s      200       400        2.00    20     1

replica    requests  writes  412s  mean batch
manager-1       440     110    30         2.0
manager-2       420      90    27         2.2
total           860     200    57         2.1

lost updates: 1 (IDs missing from the list: 0; IDs left on it: 1 (demo-0007))
final list, 2s after the last phase: 52 items, WRONG: 0 missing, 1 left over (demo-0007), field "owner" kept: true
`
	if got := b.String(); got != want {
		t.Errorf("render:\n%s\nwant:\n%s", got, want)
	}
	if got := s.lost(); got != 1 {
		t.Errorf("lost = %d, want 1 (the final check saw the same ID)", got)
	}
}

func TestSummaryRenderOutside(t *testing.T) {
	phases := []phaseResult{
		{name: "create", finished: true, elapsed: 4 * time.Second, changes: 200, requests: 100, conflicts: 7,
			store: storeStats{Total: 100, Requests: map[string]map[int]int64{"PUT": {412: 7}},
				Agents: map[string]map[int]int64{operatorAgent: {412: 7, 200: 80}, harness.OutsideAgent: {412: 2, 200: 40}}}},
		{name: "delete", finished: true, elapsed: 3 * time.Second, changes: 200, requests: 90, conflicts: 5,
			store: storeStats{Total: 90, Requests: map[string]map[int]int64{"PUT": {412: 5}},
				Agents: map[string]map[int]int64{operatorAgent: {412: 5}, harness.OutsideAgent: {412: 1}}}},
	}
	out := &outsideReport{ids: harness.OutsideIDs(outsidePrefix, 5), counts: harness.OutsideCounts{Edits: 60, Conflicts: 3}}
	good := summary{phases: phases, outside: out,
		final: &finalCheck{after: 2 * time.Second, items: 53, ownerKept: true, outsideLeft: []string{"outside-2", "outside-4"}}}
	var b bytes.Buffer
	good.render(&b)
	for _, want := range []string{
		"outside writer (outside-1..outside-5, one edit every 100ms-200ms during the phases, If-Match, read again after a 412): 60 edits committed, 3 412s, 0 given up\n",
		"412s answered to listkeeper: 12 (create 7, delete 5); answered to the outside writer: 3 (create 2, delete 1)\n",
		"it left on the list: outside-2, outside-4; all still there, and none of the IDs it removed came back\n",
		"lost updates: 0 (",
		"final list, 2s after the last phase: 53 items, as expected (2 of them the outside writer's)\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("render lacks %q:\n%s", want, b.String())
		}
	}
	if good.lost() != 0 {
		t.Errorf("lost = %d, want 0", good.lost())
	}

	bad := good
	bad.final = &finalCheck{after: 2 * time.Second, items: 52, ownerKept: true, outsideLeft: []string{"outside-2", "outside-4"},
		outsideMissing: []string{"outside-4"}, outsideUnexpected: []string{"outside-1"}}
	bad.phases = []phaseResult{phases[0], phases[1]}
	bad.phases[1].store.Agents = nil
	b.Reset()
	bad.render(&b)
	for _, want := range []string{
		"412s: the store cannot tell its clients apart",
		"WRONG: 1 gone (outside-4), 1 it removed are back (outside-1)",
		"lost updates: 2 (IDs missing from the list: 1 (outside-4); IDs left on it: 1 (outside-1))",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("render lacks %q:\n%s", want, b.String())
		}
	}
	if bad.lost() != 2 {
		t.Errorf("lost = %d, want the outside writer's 2", bad.lost())
	}
}

func TestSummaryRenderUnfinished(t *testing.T) {
	s := summary{
		replicas: []string{"manager-1", "manager-2"},
		phases: []phaseResult{{name: "create", elapsed: 3 * time.Second, changes: 200, requests: 88, conflicts: 21,
			replicas: []*harness.ManagerMetrics{{Requests: 29}, nil}}},
	}
	var b bytes.Buffer
	s.render(&b)
	for _, want := range []string{"create  3s (failed)", "manager-2         -", "lost updates: not measured, phase create did not finish"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("render lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "total") {
		t.Errorf("render shows a total although a replica is unknown:\n%s", b.String())
	}
}

func TestStatusLine(t *testing.T) {
	create := status{phase: "create", adding: true, elapsed: 1500 * time.Millisecond, done: 50, total: 200, entries: 120, synced: 30, conflicts: 9}
	if got, want := create.line(true), "create  [#####...............] 50/200 IDs on the list | entries 120, synced 30 | 412s 9 |  1.5s"; got != want {
		t.Errorf("line(true) =\n%q, want\n%q", got, want)
	}
	del := status{phase: "delete", elapsed: 12 * time.Second, done: 200, total: 200, entries: 3}
	if got, want := del.line(false), "delete  200/200 IDs off the list | entries left 3 | 412s 0 | 12.0s"; got != want {
		t.Errorf("line(false) =\n%q, want\n%q", got, want)
	}
}

func TestProgressBar(t *testing.T) {
	for _, tt := range []struct {
		done, total int
		want        string
	}{
		{0, 200, "[....................]"},
		{200, 200, "[####################]"},
		{300, 200, "[####################]"},
		{1, 0, "[....................]"},
	} {
		if got := progressBar(tt.done, tt.total); got != tt.want {
			t.Errorf("progressBar(%d, %d) = %s, want %s", tt.done, tt.total, got, tt.want)
		}
	}
}

func TestProgressPlainSkipsRepeats(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, false)
	st := status{phase: "create", adding: true, total: 1}
	p.show(st)
	p.finish(st)
	if n := strings.Count(b.String(), "\n"); n != 1 {
		t.Errorf("printed %d lines for one status, want 1:\n%s", n, b.String())
	}
}

func TestParseFlags(t *testing.T) {
	cfg, err := parseFlags([]string{"--bin", "b", "--assets", "", "--entries", "5", "--replicas", "2", "--timeout", "30s", "--keep"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.bin != "b" || cfg.assets == "" || cfg.entries != 5 || cfg.replicas != 2 || cfg.timeout != 30*time.Second || !cfg.keep {
		t.Errorf("parseFlags = %+v", cfg)
	}
	if cfg.store != storeFakeAPI {
		t.Errorf("default --store = %q, want %q", cfg.store, storeFakeAPI)
	}
	for _, store := range []string{"fakeapi", "s3", "wafv2"} {
		cfg, err := parseFlags([]string{"--store=" + store}, io.Discard)
		if err != nil || cfg.store != store {
			t.Errorf("parseFlags(--store=%s) = %q, %v", store, cfg.store, err)
		}
	}
	for _, args := range [][]string{{"--entries", "0"}, {"--replicas", "0"}, {"--timeout", "0s"}, {"extra"},
		{"--store", "gcs"}, {"--store", ""}, {"--store", "S3"}} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("parseFlags(%q) succeeded, want an error", args)
		}
	}
}

func TestSummaryRenderStore(t *testing.T) {
	s := summary{
		store: storeS3, race: (&s3Store{}).lostRace(), replicas: []string{"manager-1"},
		phases: []phaseResult{
			{name: "create", finished: true, elapsed: 5 * time.Second, changes: 200, requests: 90, conflicts: 30,
				store: storeStats{Total: 90, Requests: map[string]map[int]int64{"GET": {200: 30}, "PUT": {200: 30, 412: 28, 409: 2}}}},
			{name: "delete", finished: true, elapsed: 4 * time.Second, changes: 200, requests: 60, conflicts: 20,
				store: storeStats{Total: 60, Requests: map[string]map[int]int64{"GET": {200: 20}, "PUT": {200: 20, 412: 20}}}},
		},
	}
	var b bytes.Buffer
	s.render(&b)
	for _, want := range []string{
		"phase   time  changes  requests  req/change  412/409s  lost\n",
		"create    5s      200        90        0.45        30     0\n",
		"list store: s3 (the operator's requests only, by method and status)\n" +
			"s3 requests  create  delete  total\n" +
			"GET 200          30      20     50\n" +
			"PUT 200          30      20     50\n" +
			"PUT 409           2       0      2\n" +
			"PUT 412          28      20     48\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("render lacks\n%s\ngot:\n%s", want, b.String())
		}
	}
}

func TestStoreStats(t *testing.T) {
	base := storeStats{Total: 3, Conflicts: 1, Requests: map[string]map[int]int64{"GET": {200: 2}, "PUT": {412: 1}}, Agents: map[string]map[int]int64{"a": {412: 1}}}
	end := storeStats{Total: 10, Conflicts: 4, Requests: map[string]map[int]int64{"GET": {200: 4}, "PUT": {200: 2, 412: 3, 409: 1}}, Agents: map[string]map[int]int64{"a": {412: 3}, "b": {200: 1}}}
	d := end.sub(base)
	if d.Total != 7 || d.Conflicts != 3 || d.Requests["GET"][200] != 2 || d.Requests["PUT"][200] != 2 || d.Requests["PUT"][412] != 2 || d.Requests["PUT"][409] != 1 {
		t.Errorf("sub = %+v", d)
	}
	if d.Codes != nil {
		t.Errorf("sub invented error codes for a store without them: %v", d.Codes)
	}
	wafBase := storeStats{Codes: map[string]int64{"WAFOptimisticLockException": 2, "ThrottlingException": 1}}
	wafEnd := storeStats{Codes: map[string]int64{"WAFOptimisticLockException": 5, "ThrottlingException": 1, "WAFInternalErrorException": 1}}
	if got, want := wafEnd.sub(wafBase).Codes, map[string]int64{"WAFOptimisticLockException": 3, "WAFInternalErrorException": 1}; !maps.Equal(got, want) {
		t.Errorf("sub of the error codes = %v, want %v", got, want)
	}
	if d.Agents["a"][412] != 2 || d.Agents["b"][200] != 1 {
		t.Errorf("sub of the agents = %v", d.Agents)
	}
	if (storeStats{Requests: end.Requests}).sub(base).Agents != nil {
		t.Error("sub invented agents for a store that cannot tell its clients apart")
	}
	if got := end.count(412, 409); got != 4 {
		t.Errorf("count(412, 409) = %d, want 4", got)
	}
	if (storeStats{}).known() || !base.known() {
		t.Error("known: want false for the zero value, true once read")
	}
}

func TestStatusLineS3(t *testing.T) {
	st := status{phase: "delete", elapsed: time.Second, done: 1, total: 2, entries: 1, conflicts: 3, label: "412/409s"}
	if got, want := st.line(false), "delete  1/2 IDs off the list | entries left 1 | 412/409s 3 |  1.0s"; got != want {
		t.Errorf("line = %q, want %q", got, want)
	}
}

// TestSamplesPointAtTheDemoList renders config/samples as the demo does and
// checks that the rewrite leaves exactly one list URL: the demo's own. A
// sample that names another server would make the demo fail after
// starting a whole cluster.
func TestSamplesPointAtTheDemoList(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl not installed")
	}
	out, err := exec.Command(kubectl, "kustomize", "../../"+samplesDir).Output()
	if err != nil {
		t.Fatalf("kubectl kustomize %s: %v", samplesDir, err)
	}
	const local = "http://127.0.0.1:41234" + listPath
	got := pointSamplesAt(string(out), local)
	var urls []string
	for _, line := range strings.Split(got, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "url: "); ok {
			urls = append(urls, v)
		}
	}
	if len(urls) != 1 || urls[0] != local {
		t.Fatalf("sample list URLs after the rewrite = %q, want only %q", urls, local)
	}
}
