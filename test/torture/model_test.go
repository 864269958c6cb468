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

package torture

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// synthetic builds an analysis of hand-written records on one list with
// three bystanders. Reads list only the non-bystander IDs; the bystanders
// are prepended.
func synthetic(t *testing.T, records []Record) *analysis {
	t.Helper()
	cfg := DefaultConfig(0)
	cfg.Lists, cfg.Bystanders, cfg.Replicas, cfg.WorkersPerReplica = 1, 3, 2, 2
	cfg.ArtifactDir = t.TempDir()
	doc, ids := seedDocument(0, cfg.Bystanders)
	lists := []*list{{idx: 0, path: "/lists/l0", seed: doc, bystanders: ids}}
	records = append([]Record(nil), records...)
	for i := range records {
		if records[i].Kind == OpRead {
			records[i].Items = append(append([]string{}, ids...), records[i].Items...)
		}
	}
	return newAnalysis(cfg, lists, records, &Report{})
}

func add(id string, call, ret int64, o Outcome) Record {
	return Record{Kind: OpAdd, ID: id, Call: call, Return: ret, Outcome: o}
}

func remove(id string, call, ret int64, o Outcome) Record {
	return Record{Kind: OpRemove, ID: id, Call: call, Return: ret, Outcome: o, Replica: 1, Worker: 2}
}

func read(call, ret int64, quiescent bool, ids ...string) Record {
	return Record{Kind: OpRead, Call: call, Return: ret, Quiescent: quiescent, Items: ids, Worker: -1}
}

func TestCheckers(t *testing.T) {
	const ok, amb = OutcomeOK, OutcomeAmbiguous
	tests := []struct {
		name    string
		records []Record
		// wantSet and wantPerID: whether the check must find a violation.
		wantSet, wantPerID bool
	}{
		{
			name:    "add then read",
			records: []Record{add("x", 0, 10, ok), read(20, 30, true, "x")},
		},
		{
			name:    "lost update: acknowledged add missing later",
			records: []Record{add("x", 0, 10, ok), read(20, 30, true)},
			wantSet: true, wantPerID: true,
		},
		{
			name:    "resurrection: removed ID back",
			records: []Record{add("x", 0, 10, ok), remove("x", 20, 30, ok), read(40, 50, true, "x")},
			wantSet: true, wantPerID: true,
		},
		{
			name:    "concurrent read may miss an add in flight",
			records: []Record{add("x", 0, 100, ok), read(10, 20, false), read(30, 40, false, "x"), read(200, 210, true, "x")},
		},
		{
			name:      "concurrent read may not go back",
			records:   []Record{add("x", 0, 100, ok), read(10, 20, false, "x"), read(30, 40, false), read(200, 210, true, "x")},
			wantPerID: true,
		},
		{
			name:    "ambiguous add may never land",
			records: []Record{add("x", 0, 10, amb), read(20, 30, true)},
		},
		{
			name:    "ambiguous add may land late",
			records: []Record{add("x", 0, 10, amb), read(20, 30, true), add("y", 35, 40, ok), read(50, 60, true, "y", "x")},
		},
		{
			name:    "ambiguous add may land after a removal",
			records: []Record{add("x", 0, 10, amb), remove("x", 20, 30, ok), read(40, 50, true, "x")},
		},
		{
			name:    "ambiguous add lands once",
			records: []Record{add("x", 0, 10, amb), read(20, 30, true, "x"), remove("x", 40, 50, ok), read(60, 70, true, "x")},
			wantSet: true, wantPerID: true,
		},
		{
			name:    "ambiguous removal may land late",
			records: []Record{add("x", 0, 10, ok), remove("x", 20, 30, amb), read(40, 50, true, "x"), read(60, 70, true)},
		},
		{
			name:    "failed add never lands",
			records: []Record{add("x", 0, 10, OutcomeFailed), read(20, 30, true, "x")},
			wantSet: true, wantPerID: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := synthetic(t, tt.records)
			a.checkSetModel()
			if got := a.report.Totals.Violations > 0; got != tt.wantSet {
				t.Errorf("set check: violation = %v, want %v; problems: %v", got, tt.wantSet, a.report.Problems)
			}
			b := synthetic(t, tt.records)
			b.checkPerID()
			if got := b.report.Totals.Violations > 0; got != tt.wantPerID {
				t.Errorf("per-ID check: violation = %v, want %v; problems: %v", got, tt.wantPerID, b.report.Problems)
			}
			if a.report.Totals.Unknown+b.report.Totals.Unknown > 0 {
				t.Errorf("unknown results: %v %v", a.report.Problems, b.report.Problems)
			}
		})
	}
}

// TestCheckerSavesVisualisation checks that a violation names a porcupine
// visualisation that exists.
func TestCheckerSavesVisualisation(t *testing.T) {
	a := synthetic(t, []Record{add("x", 0, 10, OutcomeOK), read(20, 30, true)})
	a.checkSetModel()
	a.checkPerID()
	a.saveHistory()
	if a.report.Totals.Violations == 0 {
		t.Fatal("no violation found")
	}
	var html string
	for _, p := range a.report.Artifacts {
		if strings.HasSuffix(p, ".html") {
			html = p
		}
	}
	if html == "" || !strings.Contains(strings.Join(a.report.Problems, "\n"), html) {
		t.Fatalf("no visualisation named in the problems: %v, artifacts %v", a.report.Problems, a.report.Artifacts)
	}
	if fi, err := os.Stat(html); err != nil || fi.Size() == 0 {
		t.Fatalf("visualisation %s: %v", html, err)
	}
}

// TestCheckerCountsUnknown checks that a porcupine check that times out is
// counted as Unknown and reported, never passed.
func TestCheckerCountsUnknown(t *testing.T) {
	a := synthetic(t, []Record{add("x", 0, 10, OutcomeOK), read(20, 30, true, "x")})
	a.cfg.CheckTimeout = 20 * time.Millisecond
	slow := porcupine.Model{
		Init: func() interface{} { return 0 },
		StepContext: func(ctx context.Context, s, _, _ interface{}) (bool, interface{}) {
			<-ctx.Done() // never decides before the timeout
			return false, s
		},
	}
	ops := []porcupine.Operation{{Input: opInput{}, Call: 0, Output: opOutput{}, Return: 1}}
	a.porcupine("slow", slow, ops, func(int) string { return "p" })
	if a.report.Totals.Unknown != 1 || a.report.Passed() {
		t.Fatalf("unknown = %d, passed = %v, want 1 and false; problems %v", a.report.Totals.Unknown, a.report.Passed(), a.report.Problems)
	}
}

func hot(rec Record) Record {
	rec.Hot = true
	return rec
}

// TestSetCheckSplitsHotIDs checks that the set check puts a list's hot IDs
// in a partition of their own, projects the quiescent reads on both, and
// still finds a violation in either.
func TestSetCheckSplitsHotIDs(t *testing.T) {
	const ok = OutcomeOK
	tests := []struct {
		name    string
		records []Record
		// want is a fragment of the only problem expected; "" means none.
		want string
	}{
		{
			name:    "both partitions agree",
			records: []Record{hot(add("h", 0, 10, ok)), add("y", 0, 10, ok), read(20, 30, true, "y", "h"), hot(remove("h", 40, 50, ok)), read(60, 70, true, "y")},
		},
		{
			name:    "hot ID lost",
			records: []Record{hot(add("h", 0, 10, ok)), add("y", 0, 10, ok), read(20, 30, true, "y")},
			want:    "1 partition(s): list /lists/l0, hot IDs (visualisation",
		},
		{
			name:    "other ID lost",
			records: []Record{hot(add("h", 0, 10, ok)), add("y", 0, 10, ok), read(20, 30, true, "h")},
			want:    "1 partition(s): list /lists/l0 (visualisation",
		},
		{
			name:    "unknown ID",
			records: []Record{hot(add("h", 0, 10, ok)), add("y", 0, 10, ok), read(20, 30, true, "y", "h", "nobody")},
			want:    "2 partition(s): list /lists/l0, hot IDs (visualisation",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := synthetic(t, tt.records)
			a.checkSetModel()
			problems := a.report.Problems
			switch {
			case tt.want == "" && len(problems) > 0:
				t.Fatalf("want no problem, got %q", problems)
			case tt.want == "":
			case len(problems) != 1 || !strings.Contains(problems[0], tt.want):
				t.Fatalf("want one problem with %q, got %q", tt.want, problems)
			}
			if us, parts := a.setUniverses(); len(us) != 2 || len(parts[0]) != 2 {
				t.Fatalf("%d partitions (%v), want 2", len(us), parts)
			}
		})
	}
}

// TestCheckQuiescence checks that what splitting the set check relies on
// is checked: quiescent reads of a list that overlap each other or a
// change are violations.
func TestCheckQuiescence(t *testing.T) {
	const ok = OutcomeOK
	tests := []struct {
		name    string
		records []Record
		want    string
	}{
		{"one after another", []Record{add("x", 0, 10, ok), read(20, 30, true, "x"), read(31, 40, true, "x")}, ""},
		{"reads overlap", []Record{add("x", 0, 10, ok), read(20, 30, true, "x"), read(25, 40, true, "x")}, "the quiescent reads by replicas 0 and 0 overlap"},
		{"a change overlaps", []Record{add("x", 0, 25, ok), read(20, 30, true, "x")}, "overlaps add(x)"},
		{"concurrent reads are not quiescent", []Record{add("x", 0, 25, ok), read(20, 30, false, "x"), read(21, 29, false)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := synthetic(t, tt.records)
			a.checkQuiescence()
			all := strings.Join(a.report.Problems, "\n")
			if (tt.want == "") != (all == "") || !strings.Contains(all, tt.want) {
				t.Fatalf("want a problem with %q, got %q", tt.want, all)
			}
		})
	}
}
