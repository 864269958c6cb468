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

package etagclient

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
)

// TestSettled checks which changes of a batch are done on a read: those
// that hold and whose IDs no other change names.
func TestSettled(t *testing.T) {
	add := func(ids ...string) Change { return Change{Add: ids} }
	rm := func(ids ...string) Change { return Change{Remove: ids} }
	tests := []struct {
		name    string
		items   []string
		changes []Change
		want    []bool
	}{
		{name: "nothing to settle", items: []string{"a"}, want: []bool{}},
		{name: "an add of a present ID settles", items: []string{"a"}, changes: []Change{add("a")}, want: []bool{true}},
		{name: "an add of an absent ID does not", items: []string{"a"}, changes: []Change{add("b")}, want: []bool{false}},
		{name: "a removal of an absent ID settles", items: []string{"a"}, changes: []Change{rm("b")}, want: []bool{true}},
		{name: "a removal of a present ID does not", items: []string{"a"}, changes: []Change{rm("a")}, want: []bool{false}},
		{
			name:  "add X then remove X: the removal holds but another change names X",
			items: []string{"a"}, changes: []Change{add("x"), rm("x")}, want: []bool{false, false},
		},
		{
			name:  "remove X then add X: the add holds but another change names X",
			items: []string{"x"}, changes: []Change{rm("x"), add("x")}, want: []bool{false, false},
		},
		{
			name:  "two adds of one present ID both hold, but each names what the other does",
			items: []string{"x"}, changes: []Change{add("x"), add("x")}, want: []bool{false, false},
		},
		{
			name:  "a change that names an ID twice is still alone",
			items: []string{"x"}, changes: []Change{add("x", "x"), rm("y")}, want: []bool{true, true},
		},
		{
			name:  "one shared ID blocks the whole change",
			items: []string{"a", "b"}, changes: []Change{add("a", "b"), rm("b")}, want: []bool{false, false},
		},
		{
			name:  "unrelated changes settle independently",
			items: []string{"a", "b"}, changes: []Change{add("a"), rm("z"), add("c"), rm("b")}, want: []bool{true, true, false, false},
		},
		{
			name:  "RetainOnly: a batch that holds as a whole settles",
			items: []string{"a", "b"}, changes: []Change{{RetainOnly: []string{"a", "b"}}, add("a")}, want: []bool{true, true},
		},
		{
			name:  "RetainOnly: otherwise nothing settles, not even an unrelated change that holds",
			items: []string{"a", "b", "c"}, changes: []Change{{RetainOnly: []string{"a", "b"}}, add("a")}, want: []bool{false, false},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Settled(tt.items, tt.changes); !slices.Equal(got, tt.want) {
				t.Errorf("Settled(%q, %+v) = %v, want %v", tt.items, tt.changes, got, tt.want)
			}
		})
	}
}

// settleShape is a cycle as an operator makes one: 64 single-ID changes,
// half additions of new IDs and half removals of present ones, on a list of
// 100,000 IDs.
func settleShape() ([]string, []Change) {
	items := make([]string, 100_000)
	for i := range items {
		items[i] = fmt.Sprintf("id-%07d", i)
	}
	chs := make([]Change, 64)
	for i := range chs {
		if i%2 == 0 {
			chs[i] = Change{Add: []string{fmt.Sprintf("new-%03d", i)}}
		} else {
			chs[i] = Change{Remove: []string{items[i*1000]}}
		}
	}
	return items, chs
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestSettleCostsOnePass checks that deciding which changes of a cycle hold
// costs one pass over the items, not one per change: Settled allocates no
// more than one Apply of every change, and its cost grows with the number
// of changes, not with the number of changes times the items. Bytes
// allocated do not depend on the machine's speed. (The client used to
// check each change with its own Apply: 103 MB per cycle at this shape.)
func TestSettleCostsOnePass(t *testing.T) {
	items, chs := settleShape()
	apply := allocated(func() { Apply(items, chs...) })
	settleAll := allocated(func() { Settled(items, chs) })
	settleOne := allocated(func() { Settled(items, chs[:1]) })
	t.Logf("allocated: Settled of %d changes %d B, of one %d B; one Apply of all %d B", len(chs), settleAll, settleOne, apply)
	if settleAll > 2*apply {
		t.Errorf("Settled allocated %d bytes, more than twice one Apply (%d)", settleAll, apply)
	}
	if perChange := (settleAll - min(settleAll, settleOne)) / uint64(len(chs)-1); perChange > 1024 {
		t.Errorf("each further change costs Settled %d bytes on a list of %d IDs; want a cost independent of the list", perChange, len(items))
	}
}

// BenchmarkSettle100kx64 is the settle step of a cycle: see settleShape.
func BenchmarkSettle100kx64(b *testing.B) {
	items, chs := settleShape()
	b.ReportAllocs()
	for b.Loop() {
		Settled(items, chs)
	}
}

// BenchmarkApply100kx64 is one Apply of the same changes, the reference.
func BenchmarkApply100kx64(b *testing.B) {
	items, chs := settleShape()
	b.ReportAllocs()
	for b.Loop() {
		Apply(items, chs...)
	}
}
