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
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// step is one Update of a statusCase.
type step struct {
	// before runs first, for example to change the list behind the
	// client's back.
	before      func(t *testing.T, e *fakeEnv)
	change      etagclient.Change
	wantErr     error
	wantWritten bool
	wantItems   int
	// checkErr inspects a non-nil error further.
	checkErr func(t *testing.T, err error)
}

// onceHook injects f into the first request with method, and nothing
// afterwards.
func onceHook(method string, f fakeapi.Fault) fakeapi.FaultHook {
	var done atomic.Bool
	return func(r *http.Request) fakeapi.Fault {
		if r.Method == method && done.CompareAndSwap(false, true) {
			return f
		}
		return fakeapi.Fault{}
	}
}

// hooks consults each hook in turn and returns the first fault.
func hooks(hs ...fakeapi.FaultHook) fakeapi.FaultHook {
	return func(r *http.Request) fakeapi.Fault {
		for _, h := range hs {
			if f := h(r); f.Kind != fakeapi.FaultNone {
				return f
			}
		}
		return fakeapi.Fault{}
	}
}

// answerPUT answers every PUT with code itself, without passing it on.
func answerPUT(code int) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPut {
				http.Error(w, http.StatusText(code), code)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// TestStatusCodes drives the client through every status code of the list
// contract against the strict fake server, over loopback.
func TestStatusCodes(t *testing.T) {
	add := func(ids ...string) etagclient.Change { return etagclient.Change{Add: ids} }
	remove := func(ids ...string) etagclient.Change { return etagclient.Change{Remove: ids} }
	external := func(body string) func(*testing.T, *fakeEnv) {
		return func(t *testing.T, e *fakeEnv) { e.set(t, body) }
	}

	tests := []struct {
		name       string
		pointer    string
		initial    string // "" for no document
		serverOpts []fakeapi.Option
		clientOpts []etagclient.Option
		wrap       func(http.Handler) http.Handler
		steps      []step
		// wantDoc is the stored document at the end, byte for byte; ""
		// means none.
		wantDoc string
		// wantCodes are counts of "METHOD code" answers the fake server
		// gave (only the listed ones are checked).
		wantCodes map[string]int64
		// wantSeq is the sequence of requests as the client saw them.
		wantSeq []string
		check   func(t *testing.T, e *fakeEnv, obs *etagclient.Counters)
	}{
		{
			name:    "GET 200 with a strong ETag, then PUT If-Match that ETag",
			initial: `["a"]`,
			steps:   []step{{change: add("b"), wantWritten: true, wantItems: 2}},
			wantDoc: `["a","b"]`,
			wantSeq: []string{"GET 200", "PUT 200"},
			check: func(t *testing.T, e *fakeEnv, _ *etagclient.Counters) {
				first := e.api.History(listPath)[0].ETag
				put := e.rec.requests()[1]
				if got := put.Header.Get("If-Match"); got != first {
					t.Errorf("PUT If-Match = %q, want the ETag of the read, %q", got, first)
				}
				if got := e.rec.requests()[0].Header.Get("If-None-Match"); got != "" {
					t.Errorf("first GET sent If-None-Match %q without a cached copy", got)
				}
			},
		},
		{
			name:    "cached ETag: If-None-Match gets 304 and the cached items count",
			initial: `["a","b"]`,
			steps: []step{
				{change: add("c"), wantWritten: true, wantItems: 3},
				{change: remove("x"), wantWritten: false, wantItems: 3},
				{change: add("b"), wantWritten: false, wantItems: 3},
			},
			wantDoc:   `["a","b","c"]`,
			wantCodes: map[string]int64{"GET 200": 1, "GET 304": 2, "PUT 200": 1},
			wantSeq:   []string{"GET 200", "PUT 200", "GET 304", "GET 304"},
			check: func(t *testing.T, e *fakeEnv, _ *etagclient.Counters) {
				_, etag, _ := e.api.Get(listPath)
				if got := e.rec.requests()[2].Header.Get("If-None-Match"); got != etag {
					t.Errorf("revalidating GET sent If-None-Match %q, want the ETag of the PUT's answer %q", got, etag)
				}
			},
		},
		{
			name:      "404 without createIfMissing: an addition fails with ErrNotFound",
			steps:     []step{{change: add("a"), wantErr: etagclient.ErrNotFound}},
			wantCodes: map[string]int64{"GET 404": 1},
			wantSeq:   []string{"GET 404"},
		},
		{
			name:      "404 without createIfMissing: a removal holds without a write",
			steps:     []step{{change: remove("a"), wantItems: 0}},
			wantCodes: map[string]int64{"GET 404": 1},
			wantSeq:   []string{"GET 404"},
		},
		{
			name:       "404 with createIfMissing: If-None-Match: * creates the document",
			pointer:    "/items",
			clientOpts: []etagclient.Option{etagclient.WithCreateIfMissing(true)},
			steps:      []step{{change: add("a", "b"), wantWritten: true, wantItems: 2}},
			wantDoc:    `{"items":["a","b"]}`,
			wantSeq:    []string{"GET 404", "PUT 201"},
			check: func(t *testing.T, e *fakeEnv, _ *etagclient.Counters) {
				h := e.rec.requests()[1].Header
				if h.Get("If-None-Match") != "*" || h.Get("If-Match") != "" {
					t.Errorf("create sent If-None-Match %q, If-Match %q; want * and none", h.Get("If-None-Match"), h.Get("If-Match"))
				}
			},
		},
		{
			name:       "404 with createIfMissing: a removal creates nothing",
			pointer:    "/items",
			clientOpts: []etagclient.Option{etagclient.WithCreateIfMissing(true)},
			steps:      []step{{change: remove("a"), wantItems: 0}},
			wantSeq:    []string{"GET 404"},
		},
		{
			name:       "404 with createIfMissing: someone else creates first, 412, re-read",
			pointer:    "/items",
			clientOpts: []etagclient.Option{etagclient.WithCreateIfMissing(true)},
			steps: []step{
				{change: remove("zz")},
				{before: external(`{"items":["theirs"],"owner":"x"}`), change: add("mine"), wantWritten: true, wantItems: 2},
			},
			wantDoc: `{"items":["theirs","mine"],"owner":"x"}`,
			// The cached 404 is trusted for the second change: the
			// create loses with 412, and the re-read finds the document.
			wantSeq: []string{"GET 404", "PUT 412", "GET 200", "PUT 200"},
		},
		{
			name:    "PUT 412: re-read and re-apply, nothing lost",
			pointer: "/items",
			initial: `{"items":["a"]}`,
			steps: []step{
				{change: add("mine1"), wantWritten: true, wantItems: 2},
				{before: external(`{"items":["a","mine1","theirs"],"by":"other"}`), change: add("mine2"), wantWritten: true, wantItems: 4},
			},
			wantDoc: `{"items":["a","mine1","theirs","mine2"],"by":"other"}`,
			// The stale cache makes the client PUT at once; the 412 sends
			// it back to read.
			wantSeq:   []string{"GET 200", "PUT 200", "PUT 412", "GET 200", "PUT 200"},
			wantCodes: map[string]int64{"PUT 412": 1},
			check: func(t *testing.T, _ *fakeEnv, obs *etagclient.Counters) {
				if obs.Conflicts.Load() != 1 || obs.PreconditionFailed.Load() != 1 {
					t.Errorf("observer counted %d conflicts and %d 412s, want 1 and 1", obs.Conflicts.Load(), obs.PreconditionFailed.Load())
				}
			},
		},
		{
			name:    "PUT 412 on a removal: the other writer's addition survives",
			initial: `["a","b","c"]`,
			steps: []step{
				{change: remove("a"), wantWritten: true, wantItems: 2},
				{before: external(`["b","c","d"]`), change: remove("c"), wantWritten: true, wantItems: 2},
			},
			wantDoc:   `["b","d"]`,
			wantCodes: map[string]int64{"PUT 412": 1, "PUT 200": 2},
		},
		{
			name:    "PUT 412 and the re-read shows the change already holds: no second PUT",
			initial: `["a","b"]`,
			steps: []step{
				{change: add("c"), wantWritten: true, wantItems: 3},
				// The other writer did our removal, and more.
				{before: external(`["c"]`), change: remove("a"), wantWritten: false, wantItems: 1},
			},
			wantDoc: `["c"]`,
			wantSeq: []string{"GET 200", "PUT 200", "PUT 412", "GET 200"},
		},
		{
			name:    "428 to a conditional PUT: ErrUnsafeServer, nothing written",
			initial: `["a"]`,
			wrap:    answerPUT(http.StatusPreconditionRequired),
			steps:   []step{{change: add("b"), wantErr: etagclient.ErrUnsafeServer}},
			wantDoc: `["a"]`,
			wantSeq: []string{"GET 200", "PUT 428"},
			check: func(t *testing.T, e *fakeEnv, _ *etagclient.Counters) {
				if n := e.api.Stats().Commits; n != 0 {
					t.Errorf("fake server committed %d writes, want 0", n)
				}
			},
		},
		{
			name:    "429 and 503 with Retry-After are retried and the change succeeds",
			initial: `["a"]`,
			serverOpts: []fakeapi.Option{fakeapi.WithFaultHook(hooks(
				onceHook(http.MethodGet, fakeapi.Fault{Kind: fakeapi.FaultServiceUnavailable, RetryAfter: 2 * time.Second}),
				onceHook(http.MethodPut, fakeapi.Fault{Kind: fakeapi.FaultTooManyRequests, RetryAfter: 3 * time.Second}),
			))},
			steps:   []step{{change: add("b"), wantWritten: true, wantItems: 2}},
			wantDoc: `["a","b"]`,
			wantSeq: []string{"GET 503", "GET 200", "PUT 429", "PUT 200"},
			check: func(t *testing.T, e *fakeEnv, _ *etagclient.Counters) {
				// The retried PUT carries the same precondition.
				if a, b := e.rec.requests()[2].Header.Get("If-Match"), e.rec.requests()[3].Header.Get("If-Match"); a == "" || a != b {
					t.Errorf("retried PUT sent If-Match %q after %q", b, a)
				}
			},
		},
		{
			name:       "413 from the server on PUT: ErrRejected, nothing written",
			initial:    `["aaaa","bbbb"]`,
			serverOpts: []fakeapi.Option{fakeapi.WithMaxBodyBytes(16)},
			steps:      []step{{change: add("cccc"), wantErr: etagclient.ErrRejected}},
			wantDoc:    `["aaaa","bbbb"]`,
			wantSeq:    []string{"GET 200", "PUT 413"},
		},
		{
			name:       "a new document over the client's own limit: ErrTooLarge, no PUT",
			initial:    `["aaaa","bbbb"]`,
			clientOpts: []etagclient.Option{etagclient.WithMaxBodyBytes(16)},
			steps:      []step{{change: add("cccc"), wantErr: etagclient.ErrTooLarge}},
			wantDoc:    `["aaaa","bbbb"]`,
			wantSeq:    []string{"GET 200"},
		},
		{
			name:       "a new document over the client's item limit: ErrTooManyItems, no PUT",
			initial:    `["aaaa","bbbb"]`,
			clientOpts: []etagclient.Option{etagclient.WithMaxItems(2)},
			steps: []step{
				{change: add("cccc"), wantErr: etagclient.ErrTooManyItems},
				// Replacing one keeps the list at the limit.
				{change: etagclient.Change{Remove: []string{"aaaa"}, Add: []string{"cccc"}}, wantWritten: true, wantItems: 2},
			},
			wantDoc: `["bbbb","cccc"]`,
			wantSeq: []string{"GET 200", "PUT 200"},
		},
		{
			name:    "removing an absent ID costs one GET and no PUT",
			initial: `["a","b"]`,
			steps:   []step{{change: remove("x"), wantItems: 2}},
			wantDoc: `["a","b"]`,
			wantSeq: []string{"GET 200"},
			check: func(t *testing.T, e *fakeEnv, obs *etagclient.Counters) {
				if e.gets() != 1 || e.puts() != 0 {
					t.Errorf("fake server saw %d GETs and %d PUTs, want 1 and 0", e.gets(), e.puts())
				}
				if obs.Gets.Load() != 1 || obs.Puts.Load() != 0 || obs.Unchanged.Load() != 1 || obs.Written.Load() != 0 || obs.Commits.Load() != 1 {
					t.Errorf("observer: %d GETs, %d PUTs, %d unchanged, %d written, %d commits; want 1, 0, 1, 0, 1",
						obs.Gets.Load(), obs.Puts.Load(), obs.Unchanged.Load(), obs.Written.Load(), obs.Commits.Load())
				}
			},
		},
		{
			name:    "adding a present ID costs one GET and no PUT",
			initial: `["a","b"]`,
			steps:   []step{{change: add("b", "a"), wantItems: 2}},
			wantDoc: `["a","b"]`,
			wantSeq: []string{"GET 200"},
			check: func(t *testing.T, e *fakeEnv, obs *etagclient.Counters) {
				if e.gets() != 1 || e.puts() != 0 {
					t.Errorf("fake server saw %d GETs and %d PUTs, want 1 and 0", e.gets(), e.puts())
				}
				if obs.Puts.Load() != 0 || obs.Batches.Load() != 0 {
					t.Errorf("observer: %d PUTs, %d batches; want none", obs.Puts.Load(), obs.Batches.Load())
				}
			},
		},
		{
			name:       "401 for a wrong token: a StatusError of class ErrUnauthorized, no retry, no write",
			initial:    `["a"]`,
			clientOpts: []etagclient.Option{etagclient.WithHeaders(http.Header{"Authorization": {"Bearer wrong-" + secretToken}})},
			steps: []step{{change: add("b"), wantErr: etagclient.ErrUnauthorized, checkErr: func(t *testing.T, err error) {
				var se *etagclient.StatusError
				if !errors.As(err, &se) || se.Code != http.StatusUnauthorized || se.Method != http.MethodGet {
					t.Errorf("err = %v, want a StatusError for GET 401", err)
				}
			}}},
			wantDoc: `["a"]`,
			wantSeq: []string{"GET 401"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := startFakeWrapped(t, tt.wrap, append([]fakeapi.Option{fakeapi.WithHistory(true)}, tt.serverOpts...)...)
			if tt.initial != "" {
				e.set(t, tt.initial)
			}
			var obs etagclient.Counters
			c := newClient(t, e.url, append([]etagclient.Option{
				etagclient.WithItemsPointer(tt.pointer), etagclient.WithObserver(&obs),
			}, tt.clientOpts...)...)
			start := time.Now()
			for i, st := range tt.steps {
				if st.before != nil {
					st.before(t, e)
				}
				res, err := c.Update(context.Background(), st.change)
				checkNoSecrets(t, err)
				if st.wantErr != nil {
					if !errors.Is(err, st.wantErr) {
						t.Fatalf("step %d: err = %v, want one wrapping %v", i, err, st.wantErr)
					}
					if st.checkErr != nil {
						st.checkErr(t, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if res.Written != st.wantWritten || res.Items != st.wantItems {
					t.Errorf("step %d: Result = %+v, want Written %v, Items %d", i, res, st.wantWritten, st.wantItems)
				}
				if _, etag, ok := e.api.Get(listPath); ok && res.ETag != etag {
					t.Errorf("step %d: Result.ETag = %q, want the list's current ETag %q", i, res.ETag, etag)
				}
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %s: something slept (Retry-After or backoff)", d)
			}
			if got := e.body(t); got != tt.wantDoc {
				t.Errorf("document = %q, want %q", got, tt.wantDoc)
			}
			st := e.api.Stats()
			for key, want := range tt.wantCodes {
				var method string
				var code int
				if _, err := fmt.Sscan(key, &method, &code); err != nil {
					t.Fatalf("bad wantCodes key %q", key)
				}
				if got := st.Count(method, code); got != want {
					t.Errorf("server answered %q %d times, want %d (all: %v)", key, got, want, st.Requests)
				}
			}
			if tt.wantSeq != nil && !slices.Equal(e.rec.sequence(), tt.wantSeq) {
				t.Errorf("requests = %q, want %q", e.rec.sequence(), tt.wantSeq)
			}
			if tt.wantDoc == "" && len(e.api.Paths()) != 0 {
				t.Errorf("documents %v exist, want none", e.api.Paths())
			}
			if tt.check != nil {
				tt.check(t, e, &obs)
			}
		})
	}
}
