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
	"slices"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// t0 is the start of a phase in the tests below.
var t0 = time.Date(2026, 12, 2, 14, 0, 0, 0, time.UTC)

// at is t0 plus ms milliseconds.
func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

func TestIDLatencies(t *testing.T) {
	versions := []version{
		{at(-500), []string{"by"}},                // before the phase: never counts
		{at(-100), []string{"by", "a"}},           // before the phase, holds a
		{at(100), []string{"by", "a"}},            // a is on the list
		{at(300), []string{"by", "a", "b"}},       // b joins
		{at(900), []string{"by", "a", "b", "c"}},  // c joins
		{at(1200), []string{"by", "b", "c"}},      // a leaves
		{at(1500), []string{"by", "c"}},           // b leaves
		{at(1600), []string{"by", "c", "a", "b"}}, // back again: not first
	}
	tests := []struct {
		name          string
		since         time.Time
		calls         map[string]time.Time
		adding        bool
		want          []time.Duration // sorted
		wantUnsettled []string
	}{
		{
			name:   "create",
			since:  t0,
			calls:  map[string]time.Time{"a": at(20), "b": at(40), "c": at(100), "d": at(100)},
			adding: true,
			// a: 100-20, b: 300-40, c: 900-100; d never appears.
			want: []time.Duration{80 * time.Millisecond, 260 * time.Millisecond, 800 * time.Millisecond}, wantUnsettled: []string{"d"},
		},
		{
			name:   "a commit before the call returned counts as 0",
			since:  t0,
			calls:  map[string]time.Time{"b": at(350)},
			adding: true,
			want:   []time.Duration{0},
		},
		{
			name:  "delete",
			since: at(1000),
			calls: map[string]time.Time{"a": at(1000), "b": at(1000), "c": at(1000), "by": at(1000)},
			// Only versions from 1000 on count: a: 1200-1000, b:
			// 1500-1000; c and "by" stay.
			want: []time.Duration{200 * time.Millisecond, 500 * time.Millisecond}, wantUnsettled: []string{"by", "c"},
		},
		{name: "no calls", since: t0, adding: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, unsettled := idLatencies(versions, tt.since, tt.calls, tt.adding)
			slices.Sort(got)
			if !slices.Equal(got, tt.want) || !slices.Equal(unsettled, tt.wantUnsettled) {
				t.Errorf("idLatencies = %v, unsettled %v; want %v, %v", got, unsettled, tt.want, tt.wantUnsettled)
			}
		})
	}
}

func TestPercentile(t *testing.T) {
	var hundred []time.Duration
	for i := 1; i <= 100; i++ {
		hundred = append(hundred, time.Duration(i)*time.Millisecond)
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"one value", []time.Duration{7}, 50, 7},
		{"one value p99", []time.Duration{7}, 99, 7},
		{"p50 of two", []time.Duration{1, 2}, 50, 1},
		{"p99 of two", []time.Duration{1, 2}, 99, 2},
		{"p50 of 100", hundred, 50, 50 * time.Millisecond},
		{"p99 of 100", hundred, 99, 99 * time.Millisecond},
		{"p100", hundred, 100, 100 * time.Millisecond},
		{"p0 is the least", hundred, 0, time.Millisecond},
		{"p99 of 1000 ignores the worst ten", append(slices.Repeat([]time.Duration{time.Second}, 990), slices.Repeat([]time.Duration{time.Hour}, 10)...), 99, time.Second},
	}
	for _, tt := range tests {
		if got := percentile(tt.sorted, tt.p); got != tt.want {
			t.Errorf("%s: percentile(p%v) = %v, want %v", tt.name, tt.p, got, tt.want)
		}
	}
}

func TestLatencyOf(t *testing.T) {
	f := latencyOf([]time.Duration{3 * time.Second, time.Second, 2 * time.Second}, 1)
	if f != (latencyFigures{IDs: 3, Unsettled: 1, P50: 2, P99: 3, Max: 3}) {
		t.Errorf("latencyOf = %+v", f)
	}
	if f := latencyOf(nil, 2); f != (latencyFigures{Unsettled: 2}) {
		t.Errorf("latencyOf(nil) = %+v", f)
	}
}

func TestVersionsAndFirstDone(t *testing.T) {
	h := []fakeapi.Version{
		{Time: at(-10), Body: []byte(`{"items":["by"]}`)},
		{Time: at(10), Body: []byte(`{"owner":"x","items":["by","a"]}`)},
		{Time: at(20), Deleted: true},
		{Time: at(30), Body: []byte(`not json`)},
		{Time: at(40), Body: []byte(`{"items":["by","a","b"]}`)},
	}
	vs := versionsOf(h)
	if len(vs) != 3 || !slices.Equal(vs[2].items, []string{"by", "a", "b"}) || !vs[1].at.Equal(at(10)) {
		t.Fatalf("versionsOf = %+v", vs)
	}
	holds := func(id string) func([]string) bool {
		return func(items []string) bool { return slices.Contains(items, id) }
	}
	if got, ok := firstDone(vs, t0, holds("b")); !ok || !got.Equal(at(40)) {
		t.Errorf("firstDone(b) = %v, %v", got, ok)
	}
	if _, ok := firstDone(vs, t0, holds("by")); !ok {
		t.Error("firstDone(by) found nothing")
	}
	if got, _ := firstDone(vs, t0, holds("by")); !got.Equal(at(10)) {
		t.Errorf("firstDone(by) = %v, want the first version after the start", got)
	}
	if _, ok := firstDone(vs, t0, holds("z")); ok {
		t.Error("firstDone(z) found a version")
	}
}

func TestListsAndSpread(t *testing.T) {
	names, paths := listNames(1)
	if !slices.Equal(names, []string{"bench"}) || !slices.Equal(paths, []string{"/lists/bench"}) {
		t.Errorf("listNames(1) = %v, %v", names, paths)
	}
	names, paths = listNames(3)
	if !slices.Equal(names, []string{"bench-1", "bench-2", "bench-3"}) || paths[2] != "/lists/bench-3" {
		t.Errorf("listNames(3) = %v, %v", names, paths)
	}
	got := spread([]string{"e0", "e1", "e2", "e3", "e4"}, 3)
	if want := [][]string{{"e0", "e3"}, {"e1", "e4"}, {"e2"}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("spread = %v, want %v", got, want)
	}
}
