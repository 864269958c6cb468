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
	"math"
	"strings"
	"testing"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// sub is a change of ID x by replica 0 with submission sequence seq. An
// ambiguous change's ret is when its caller gave up.
func sub(seq int64, kind OpKind, o Outcome, call, ret int64) Record {
	return Record{Kind: kind, ID: "x", Seq: seq, Outcome: o, Call: call, Return: ret, Submitted: true}
}

// timeline builds a presence timeline that starts absent and flips at each
// of the given times.
func timeline(flips ...int64) []flip {
	tl := []flip{{at: math.MinInt64}}
	for _, t := range flips {
		tl = append(tl, flip{at: t, present: !tl[len(tl)-1].present})
	}
	return tl
}

func TestOrderProblems(t *testing.T) {
	const ok, amb, failed = OutcomeOK, OutcomeAmbiguous, OutcomeFailed
	add, rm := OpAdd, OpRemove
	tests := []struct {
		name     string
		ops      []Record
		timeline []flip
		// want is a fragment of the only problem expected; "" means none.
		want string
	}{
		{
			name:     "add then remove in one write: nothing shows",
			ops:      []Record{sub(1, add, ok, 0, 20), sub(2, rm, ok, 5, 20)},
			timeline: timeline(),
		},
		{
			name:     "add then remove in two writes",
			ops:      []Record{sub(1, add, ok, 0, 10), sub(2, rm, ok, 5, 20)},
			timeline: timeline(8, 15),
		},
		{
			// Bug (a): the removal holds on the read and is settled at
			// once; the addition is written after it.
			name:     "add then remove in one cycle ends present",
			ops:      []Record{sub(1, add, ok, 0, 30), sub(2, rm, ok, 5, 12)},
			timeline: timeline(25),
			want:     "the ID ends present, but the last change acknowledged ok is #2 (remove)",
		},
		{
			// Bug (b): the addition holds on the read and is settled at
			// once; the removal is written after it.
			name:     "remove then add ends absent though the add returned ok",
			ops:      []Record{sub(1, add, ok, 0, 10), sub(2, rm, ok, 20, 50), sub(3, add, ok, 25, 30)},
			timeline: timeline(5, 45),
			want:     "the ID ends absent, but the last change acknowledged ok is #3 (add)",
		},
		{
			name:     "remove then add in one write",
			ops:      []Record{sub(1, add, ok, 0, 10), sub(2, rm, ok, 20, 50), sub(3, add, ok, 25, 50)},
			timeline: timeline(5),
		},
		{
			// Bug (c): an addition whose caller gave up during a backoff
			// stays in the cycle and lands after a later removal returned.
			name:     "abandoned add lands after a later acknowledged removal",
			ops:      []Record{sub(1, add, amb, 0, 3), sub(2, rm, ok, 10, 20)},
			timeline: timeline(30),
			want:     "the ID ends present, but the last change acknowledged ok is #2 (remove)",
		},
		{
			name:     "abandoned add lands before the later removal",
			ops:      []Record{sub(1, add, amb, 0, 3), sub(2, rm, ok, 10, 20)},
			timeline: timeline(12, 15),
		},
		{
			name:     "abandoned add never lands",
			ops:      []Record{sub(1, add, amb, 0, 3), sub(2, rm, ok, 10, 20)},
			timeline: timeline(),
		},
		{
			name:     "ambiguous removal after the last ok change may land",
			ops:      []Record{sub(1, add, ok, 0, 10), sub(2, rm, amb, 20, 25)},
			timeline: timeline(5, 40),
		},
		{
			name:     "ambiguous removal after the last ok change may not land",
			ops:      []Record{sub(1, add, ok, 0, 10), sub(2, rm, amb, 20, 25)},
			timeline: timeline(5),
		},
		{
			name:     "nothing ok, ambiguous add lands",
			ops:      []Record{sub(1, rm, amb, 0, 3), sub(2, add, amb, 5, 8)},
			timeline: timeline(20),
		},
		{
			name:     "nothing ok, present without an add",
			ops:      []Record{sub(1, rm, amb, 0, 3)},
			timeline: timeline(20),
			want:     "no change of it was acknowledged ok and no ambiguous one would leave it so",
		},
		{
			name:     "failed add lands",
			ops:      []Record{sub(1, add, failed, 0, 1)},
			timeline: timeline(5),
			want:     "no change of it was acknowledged ok",
		},
		{
			name:     "acknowledged add not visible when it returned",
			ops:      []Record{sub(1, add, ok, 0, 10), sub(2, add, ok, 11, 20)},
			timeline: timeline(12),
			want:     "#1 (add) returned ok at 10ns, when the ID was absent",
		},
		{
			name:     "acknowledged add superseded by a removal submitted before it returned",
			ops:      []Record{sub(1, add, ok, 0, 10), sub(2, rm, ok, 8, 12)},
			timeline: timeline(),
		},
		{
			name:     "acknowledged add overturned by an abandoned later removal",
			ops:      []Record{sub(1, add, ok, 0, 10), sub(2, rm, amb, 4, 6)},
			timeline: timeline(5, 7),
		},
		{
			// The end and every acknowledgement look right; only the
			// history shows the abandoned add landing after the removal
			// that came after it.
			name:     "reordering masked by a later add",
			ops:      []Record{sub(1, add, amb, 0, 3), sub(2, rm, ok, 10, 20), sub(3, add, ok, 40, 50)},
			timeline: timeline(30),
			want:     "cannot come from its changes taking effect in submission order",
		},
		{
			name:     "the later add lands in its own window",
			ops:      []Record{sub(1, add, amb, 0, 3), sub(2, rm, ok, 10, 20), sub(3, add, ok, 40, 50)},
			timeline: timeline(45),
		},
		{
			name:     "a flip nobody was changing",
			ops:      []Record{sub(1, add, ok, 0, 10), sub(2, rm, ok, 20, 30)},
			timeline: timeline(5, 25, 35, 36),
			want:     "cannot come from its changes taking effect in submission order",
		},
		{
			// The removal returned ok while the ID was present, which the
			// abandoned add after it would explain, but then the add must
			// have followed the removal, and nothing removed the ID later.
			name:     "acknowledged removal that never took effect",
			ops:      []Record{sub(1, add, ok, 0, 10), sub(2, rm, ok, 5, 30), sub(3, add, amb, 8, 9)},
			timeline: timeline(3, 40),
			want:     "cannot come from its changes taking effect in submission order",
		},
		{
			name:     "order is by sequence, not by record",
			ops:      []Record{sub(2, rm, ok, 5, 20), sub(1, add, ok, 0, 20)},
			timeline: timeline(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems := orderProblems(tt.ops, tt.timeline)
			switch {
			case tt.want == "" && len(problems) > 0:
				t.Fatalf("want no problem, got %q", problems)
			case tt.want == "":
			case len(problems) != 1:
				t.Fatalf("want one problem with %q, got %q", tt.want, problems)
			case !strings.Contains(problems[0], tt.want) || !strings.Contains(problems[0], "changes in submission order: #1 seq="):
				t.Fatalf("want a problem with %q and the changes in order, got %q", tt.want, problems[0])
			}
		})
	}
}

func TestTimelineOf(t *testing.T) {
	v := func(at int64, items ...string) version { return version{at: at, items: items} }
	tests := []struct {
		name string
		vs   []version
		want []flip
	}{
		{"never there", []version{v(-5), v(1, "y"), v(2)}, timeline()},
		{"there from the start", []version{v(-5, "x"), v(1, "x", "y")}, []flip{{math.MinInt64, true}}},
		{"flips", []version{v(-5), v(1, "x"), v(2, "x", "y"), v(3, "y"), v(4, "x")}, timeline(1, 3, 4)},
		{"two versions at one instant: the last counts", []version{v(-5), v(1, "x"), v(2, "x"), v(2)}, timeline(1, 2)},
		{"two flips at one instant cancel", []version{v(-5), v(1, "x"), v(2), v(2, "x"), v(3)}, timeline(1, 3)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := timelineOf(tt.vs, "x")
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("got %v, want %v", got, tt.want)
				}
			}
		})
	}
}

// TestCheckOrder runs the check on a round's analysis: it checks only IDs
// that carry sequence numbers, and refuses IDs that more than one replica
// changed rather than checking them against the wrong order.
func TestCheckOrder(t *testing.T) {
	a := synthetic(t, nil)
	records := []Record{
		{Kind: OpAdd, ID: "x", Seq: 1, Outcome: OutcomeOK, Call: 0, Return: 30},
		{Kind: OpRemove, ID: "x", Seq: 2, Outcome: OutcomeOK, Call: 5, Return: 12},
		{Kind: OpAdd, ID: "y", Seq: 3, Outcome: OutcomeOK, Call: 0, Return: 30},
		{Kind: OpRemove, ID: "y", Seq: 4, Outcome: OutcomeOK, Call: 5, Return: 12, Replica: 1},
		{Kind: OpAdd, ID: "z", Outcome: OutcomeOK, Call: 0, Return: 30},
		{Kind: OpRemove, ID: "z", Outcome: OutcomeOK, Call: 5, Return: 12},
	}
	a = newAnalysis(a.cfg, a.lists, records, a.report)
	by := a.lists[0].bystanders
	items := func(ids ...string) []string { return append(append([]string{}, by...), ids...) }
	a.versions = [][]version{{
		{Version: fakeapi.Version{ETag: `"1"`}, at: -1, items: items()},
		{Version: fakeapi.Version{ETag: `"2"`}, at: 25, items: items("x", "y", "z")},
	}}
	a.checkOrder()
	all := strings.Join(a.report.Problems, "\n")
	if a.report.Totals.OrderChecked != 1 || len(a.report.Problems) != 2 ||
		!strings.Contains(all, "submission order of x on /lists/l0 (replica 0): the ID ends present") ||
		!strings.Contains(all, "/lists/l0 y: cannot check the submission order: changed by replicas 0 and 1") {
		t.Fatalf("checked %d, problems:\n%s", a.report.Totals.OrderChecked, all)
	}
}
