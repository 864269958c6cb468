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
	"net/http"
	"slices"
	"testing"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// TestAmbiguousWrite drops the connection of the first PUT, after or before
// it commits. Update may report success only after a read has shown that
// the change holds, and the change must be on the list exactly once.
func TestAmbiguousWrite(t *testing.T) {
	tests := []struct {
		name    string
		fault   fakeapi.FaultKind
		initial string
		change  etagclient.Change
		wantDoc string
		// wantSeq is what the client sent and got; 0 is a dropped
		// connection.
		wantSeq []string
	}{
		{
			name:    "addition committed, answer lost: the re-read shows it holds, no second PUT",
			fault:   fakeapi.FaultCommitThenDrop,
			initial: `{"items":["a"],"n":1.50}`,
			change:  etagclient.Change{Add: []string{"x"}},
			wantDoc: `{"items":["a","x"],"n":1.50}`,
			wantSeq: []string{"GET 200", "PUT 0", "GET 200"},
		},
		{
			name:    "removal committed, answer lost",
			fault:   fakeapi.FaultCommitThenDrop,
			initial: `{"items":["a","x","b"],"n":1.50}`,
			change:  etagclient.Change{Remove: []string{"x"}},
			wantDoc: `{"items":["a","b"],"n":1.50}`,
			wantSeq: []string{"GET 200", "PUT 0", "GET 200"},
		},
		{
			name:    "reset before commit: the re-read (304) shows it does not hold, PUT again",
			fault:   fakeapi.FaultResetBeforeCommit,
			initial: `{"items":["a"],"n":1.50}`,
			change:  etagclient.Change{Add: []string{"x"}},
			wantDoc: `{"items":["a","x"],"n":1.50}`,
			wantSeq: []string{"GET 200", "PUT 0", "GET 304", "PUT 200"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := startFake(t, fakeapi.WithFaultHook(onceHook(http.MethodPut, fakeapi.Fault{Kind: tt.fault})))
			e.set(t, tt.initial)
			var obs etagclient.Counters
			clock := newFakeClock()
			c := newClient(t, e.url, etagclient.WithItemsPointer("/items"), etagclient.WithObserver(&obs), etagclient.WithClock(clock))

			res, err := c.Update(context.Background(), tt.change)
			if err != nil {
				t.Fatalf("Update: %v", err)
			}
			if got := e.rec.sequence(); !slices.Equal(got, tt.wantSeq) {
				t.Errorf("requests = %q, want %q", got, tt.wantSeq)
			}
			if got := e.body(t); got != tt.wantDoc {
				t.Errorf("document = %s, want %s", got, tt.wantDoc)
			}
			for _, id := range tt.change.Add {
				if n := countOf(e.items(t, "/items"), id); n != 1 {
					t.Errorf("%s is on the list %d times, want once", id, n)
				}
			}
			_, etag, _ := e.api.Get(listPath)
			if res.ETag != etag || res.Items != len(e.items(t, "/items")) {
				t.Errorf("Result = %+v, want the list's ETag %s and %d items", res, etag, len(e.items(t, "/items")))
			}
			if obs.Ambiguous.Load() != 1 || len(clock.Waits()) != 1 {
				t.Errorf("observer counted %d ambiguous writes, clock %d backoffs; want 1 and 1", obs.Ambiguous.Load(), len(clock.Waits()))
			}
			if n := e.api.Stats().Commits; n != 1 {
				t.Errorf("server committed %d writes, want 1", n)
			}
		})
	}
}

func countOf(items []string, id string) int {
	n := 0
	for _, it := range items {
		if it == id {
			n++
		}
	}
	return n
}
