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

package etagclient_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// commitLog is an Observer that keeps every Commit, for the audit tests.
type commitLog struct {
	etagclient.NopObserver
	mu      sync.Mutex
	commits []etagclient.Commit
	latency map[string]int
}

func (l *commitLog) Wrote(c etagclient.Commit) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.commits = append(l.commits, c)
}

func (l *commitLog) Request(method string, _ int, d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.latency == nil {
		l.latency = map[string]int{}
	}
	if d > 0 {
		l.latency[method]++
	}
}

func (l *commitLog) all() []etagclient.Commit {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.commits)
}

// TestCommitRecordsNetEffectAndVersions: every committed write reports the
// IDs it added and removed and the ETags before and after, as the server
// saw them, and nothing is reported for a write that changed nothing.
func TestCommitRecordsNetEffectAndVersions(t *testing.T) {
	env := startFake(t)
	first := env.set(t, `{"name":"fw","items":["a","b","c"]}`)
	log := &commitLog{}
	c := newClient(t, env.url, etagclient.WithItemsPointer("/items"), etagclient.WithObserver(log))
	ctx := context.Background()

	if _, err := c.Update(ctx, etagclient.Change{Add: []string{"d", "a"}, Remove: []string{"b"}}); err != nil {
		t.Fatalf("Update: %v", err)
	}
	if _, err := c.Update(ctx, etagclient.Change{Add: []string{"a"}}); err != nil { // already there
		t.Fatalf("Update: %v", err)
	}
	if _, err := c.Update(ctx, etagclient.Change{RetainOnly: []string{"a"}, Add: []string{"e"}}); err != nil {
		t.Fatalf("Update: %v", err)
	}

	got := log.all()
	if len(got) != 2 {
		t.Fatalf("got %d commits, want 2 (the no-op write is not one): %+v", len(got), got)
	}
	_, second, _ := env.api.Get(listPath)
	want := []etagclient.Commit{
		{Added: []string{"d"}, Removed: []string{"b"}, Changes: 1},
		{Added: []string{"e"}, Removed: []string{"c", "d"}, Changes: 1},
	}
	for i, w := range want {
		g := got[i]
		if !slices.Equal(g.Added, w.Added) || !slices.Equal(g.Removed, w.Removed) || g.Changes != w.Changes || g.Created {
			t.Errorf("commit %d = %+v, want added %v removed %v changes %d", i, g, w.Added, w.Removed, w.Changes)
		}
		if strings.Contains(g.URL, queryToken) {
			t.Errorf("commit %d URL %q carries the query token", i, g.URL)
		}
	}
	if got[0].ETagBefore != first {
		t.Errorf("first commit ETagBefore = %q, want the seeded %q", got[0].ETagBefore, first)
	}
	if got[0].ETagAfter == "" || got[1].ETagBefore != got[0].ETagAfter {
		t.Errorf("ETags do not chain: first after %q, second before %q", got[0].ETagAfter, got[1].ETagBefore)
	}
	if got[1].ETagAfter != second {
		t.Errorf("second commit ETagAfter = %q, want the stored %q", got[1].ETagAfter, second)
	}
	if log.latency["GET"] == 0 || log.latency["PUT"] == 0 {
		t.Errorf("request latencies reported per method = %v, want GET and PUT", log.latency)
	}
}

// TestCommitRecordsCreate: a write that creates the document reports it,
// with no ETag before and every item as added.
func TestCommitRecordsCreate(t *testing.T) {
	env := startFake(t)
	log := &commitLog{}
	c := newClient(t, env.url, etagclient.WithCreateIfMissing(true), etagclient.WithObserver(log))
	if _, err := c.Update(context.Background(), etagclient.Change{Add: []string{"x", "y"}}); err != nil {
		t.Fatalf("Update: %v", err)
	}
	got := log.all()
	if len(got) != 1 || !got[0].Created || got[0].ETagBefore != "" || !slices.Equal(got[0].Added, []string{"x", "y"}) || len(got[0].Removed) != 0 {
		t.Fatalf("commits = %+v, want one create adding [x y]", got)
	}
}

// TestItemDiff pins the ordered walk that computes a write's net effect.
func TestItemDiff(t *testing.T) {
	tests := []struct {
		before, after, added, removed []string
	}{
		{nil, nil, nil, nil},
		{[]string{"a"}, []string{"a"}, nil, nil},
		{[]string{"a", "b", "c"}, []string{"a", "c", "d"}, []string{"d"}, []string{"b"}},
		{[]string{"x", "y"}, []string{"y", "x"}, []string{"x"}, []string{"x"}}, // removed, then added again at the end
		{[]string{"a", "b"}, nil, nil, []string{"a", "b"}},
		{nil, []string{"a", "b"}, []string{"a", "b"}, nil},
	}
	for _, tt := range tests {
		added, removed := etagclient.ItemDiff(tt.before, tt.after)
		if !slices.Equal(added, tt.added) || !slices.Equal(removed, tt.removed) {
			t.Errorf("ItemDiff(%v, %v) = %v, %v; want %v, %v", tt.before, tt.after, added, removed, tt.added, tt.removed)
		}
	}
}

// TestExtraObserver: WithExtraObserver adds an observer beside the one
// WithObserver set; both see every call.
func TestExtraObserver(t *testing.T) {
	env := startFake(t)
	env.set(t, `{"items":[]}`)
	counters, log := &etagclient.Counters{}, &commitLog{}
	c := newClient(t, env.url, etagclient.WithItemsPointer("/items"),
		etagclient.WithObserver(counters), etagclient.WithExtraObserver(log))
	if _, err := c.Update(context.Background(), etagclient.Change{Add: []string{"a"}}); err != nil {
		t.Fatalf("Update: %v", err)
	}
	if got := counters.Written.Load(); got != 1 {
		t.Errorf("the first observer saw %d writes, want 1", got)
	}
	if got := log.all(); len(got) != 1 || !slices.Equal(got[0].Added, []string{"a"}) {
		t.Errorf("the extra observer saw commits %+v, want one adding a", got)
	}
}
