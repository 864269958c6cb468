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

package harness

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

func TestDiffItems(t *testing.T) {
	tests := []struct {
		name              string
		want, items       []string
		missing, leftover []string
	}{
		{name: "equal in another order", want: []string{"a", "b"}, items: []string{"b", "a"}},
		{name: "missing", want: []string{"a", "b", "c"}, items: []string{"a"}, missing: []string{"b", "c"}},
		{name: "left over", want: []string{"a"}, items: []string{"a", "x"}, leftover: []string{"x"}},
		{name: "duplicate", want: []string{"a"}, items: []string{"a", "a"}, leftover: []string{"a"}},
		{name: "empty list", want: []string{"a"}, missing: []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			missing, leftover := DiffItems(tt.want, tt.items)
			if !slices.Equal(missing, tt.missing) || !slices.Equal(leftover, tt.leftover) {
				t.Errorf("DiffItems = %v, %v; want %v, %v", missing, leftover, tt.missing, tt.leftover)
			}
		})
	}
}

func TestKeepsOrder(t *testing.T) {
	want := []string{"a", "b", "c"}
	tests := []struct {
		items []string
		ok    bool
	}{
		{[]string{"a", "b", "c"}, true},
		{[]string{"a", "x", "b", "y", "c"}, true},
		{[]string{"a", "c"}, true},
		{nil, true},
		{[]string{"b", "a", "c"}, false},
		{[]string{"a", "b", "b", "c"}, false},
	}
	for _, tt := range tests {
		if got := KeepsOrder(want, tt.items); got != tt.ok {
			t.Errorf("KeepsOrder(%v, %v) = %v, want %v", want, tt.items, got, tt.ok)
		}
	}
}

func TestCountAndIDList(t *testing.T) {
	if n := Count([]string{"a", "b", "z"}, []string{"b", "a", "c"}); n != 2 {
		t.Errorf("Count = %d, want 2", n)
	}
	for _, tt := range []struct {
		ids  []string
		want string
	}{
		{nil, ""},
		{[]string{"a"}, " (a)"},
		{[]string{"a", "b", "c", "d", "e", "f"}, " (a, b, c, d, e, ...)"},
	} {
		if got := IDList(tt.ids); got != tt.want {
			t.Errorf("IDList(%v) = %q, want %q", tt.ids, got, tt.want)
		}
	}
}

func TestNames(t *testing.T) {
	if got := EntryNames("demo", 3); !slices.Equal(got, []string{"demo-0000", "demo-0001", "demo-0002"}) {
		t.Errorf("EntryNames(demo, 3) = %v", got)
	}
	if got := BystanderIDs(2); !slices.Equal(got, []string{"bystander-00", "bystander-01"}) {
		t.Errorf("BystanderIDs(2) = %v", got)
	}
}

func TestForEach(t *testing.T) {
	names := EntryNames("x", 100)
	var calls atomic.Int64
	err := ForEach(context.Background(), 16, names, func(context.Context, string) error {
		calls.Add(1)
		return nil
	})
	if err != nil || calls.Load() != 100 {
		t.Fatalf("ForEach = %v after %d calls, want nil after 100", err, calls.Load())
	}

	boom := errors.New("boom")
	calls.Store(0)
	err = ForEach(context.Background(), 0, names, func(_ context.Context, name string) error {
		calls.Add(1)
		if name == "x-0003" {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) {
		t.Errorf("ForEach = %v, want %v", err, boom)
	}
	if n := calls.Load(); n > 5 { // the feeder may hand out one more name as the error arrives
		t.Errorf("ForEach with one worker made %d calls, want at most 5 (none after the error)", n)
	}
}

func TestDocument(t *testing.T) {
	var d Document
	if err := json.Unmarshal([]byte(`{"owner":"demo","items":["a","b"],"n":1}`), &d); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Items, []string{"a", "b"}) || d.Field("owner") != "demo" || d.Field("n") != "" || d.Field("none") != "" {
		t.Errorf("Document = %+v", d)
	}
	if _, ok := d.Fields["items"]; ok {
		t.Errorf("Fields hold items: %v", d.Fields)
	}
	for _, bad := range []string{`[]`, `{"items":"a"}`, `{"items":[1]}`} {
		if err := json.Unmarshal([]byte(bad), &d); err == nil {
			t.Errorf("Unmarshal(%s) succeeded", bad)
		}
	}
}

func TestAddSubStats(t *testing.T) {
	a := fakeapi.Stats{
		Requests: map[string]map[int]int64{"GET": {200: 10, 304: 2}, "PUT": {200: 5, 412: 3}},
		Total:    20, Commits: 5, Faults: map[fakeapi.FaultKind]int64{fakeapi.FaultServiceUnavailable: 1},
		Agents: map[string]map[int]int64{"listkeeper-etagclient": {200: 15, 412: 3}, "Go-http-client": {304: 2}},
	}
	b := fakeapi.Stats{Requests: map[string]map[int]int64{"PUT": {412: 1}, "DELETE": {204: 1}}, Total: 2, Commits: 1,
		Agents: map[string]map[int]int64{"outside-writer": {412: 1, 204: 1}}}
	sum := AddStats(a, b)
	if sum.Total != 22 || sum.Commits != 6 || sum.CountCode(412) != 4 || sum.Count("DELETE", 204) != 1 || sum.Faults[fakeapi.FaultServiceUnavailable] != 1 ||
		sum.CountAgent("listkeeper-etagclient", 412) != 3 || sum.CountAgent("outside-writer", 412) != 1 {
		t.Errorf("AddStats = %+v", sum)
	}
	back := SubStats(sum, b)
	if back.Total != a.Total || back.Commits != a.Commits || back.CountCode(412) != 3 || back.Count("GET", 200) != 10 ||
		back.Count("DELETE", 204) != 0 || back.Faults[fakeapi.FaultServiceUnavailable] != 1 ||
		back.CountAgent("listkeeper-etagclient", 200) != 15 || back.CountAgent("outside-writer", 412) != 0 {
		t.Errorf("SubStats(AddStats(a, b), b) = %+v, want the counts of %+v", back, a)
	}
	if a.Requests["PUT"][412] != 3 {
		t.Errorf("AddStats changed its argument: %v", a.Requests)
	}
}
