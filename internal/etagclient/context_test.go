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
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// gate holds the first PUT that reaches the fake server until it is
// opened, so a test can queue changes behind a slow cycle.
type gate struct {
	arrived chan struct{} // closed when the first PUT is held
	open    chan struct{}
	once    sync.Once
	taken   atomic.Bool
}

func newGate() *gate {
	return &gate{arrived: make(chan struct{}), open: make(chan struct{})}
}

// hook is the fault hook that holds the first PUT.
func (g *gate) hook(r *http.Request) fakeapi.Fault {
	if r.Method == http.MethodPut && g.taken.CompareAndSwap(false, true) {
		close(g.arrived)
		<-g.open
	}
	return fakeapi.Fault{}
}

func (g *gate) release() { g.once.Do(func() { close(g.open) }) }

// TestContextCancel checks what a caller whose ctx ends while it waits
// gets: an error wrapping context.Canceled and, when its change was
// withdrawn before a cycle took it, a change that is never applied.
func TestContextCancel(t *testing.T) {
	tests := []struct {
		name string
		// cancelFirst cancels the ctx of the change whose PUT is held,
		// instead of one queued behind it.
		cancelFirst bool
		// preCanceled passes an already canceled ctx to the queued change.
		preCanceled bool
		wantItems   []string
	}{
		{name: "canceled while queued behind a slow cycle: withdrawn, never applied", wantItems: []string{"a", "first"}},
		{name: "already canceled when queued: withdrawn, never applied", preCanceled: true, wantItems: []string{"a", "first"}},
		{name: "canceled after its cycle took it: error, but the change is applied", cancelFirst: true, wantItems: []string{"a", "first"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGate()
			e := startFake(t, fakeapi.WithFaultHook(g.hook))
			t.Cleanup(g.release) // before the server closes
			e.set(t, `["a"]`)
			var obs etagclient.Counters
			c := newClient(t, e.url, etagclient.WithObserver(&obs))

			// The first change's cycle reads, then its PUT is held.
			firstCtx, cancelFirst := context.WithCancel(context.Background())
			defer cancelFirst()
			firstErr := make(chan error, 1)
			go func() {
				_, err := c.Update(firstCtx, etagclient.Change{Add: []string{"first"}})
				firstErr <- err
			}()
			select {
			case <-g.arrived:
			case <-time.After(10 * time.Second):
				t.Fatal("the first PUT never arrived")
			}

			if tt.cancelFirst {
				cancelFirst()
				err := <-firstErr
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("first Update: err = %v, want context.Canceled", err)
				}
				checkNoSecrets(t, err)
				g.release()
				// A Read queues behind the cycle in flight, so it returns
				// after the held PUT was answered.
				snap, err := c.Read(context.Background())
				if err != nil {
					t.Fatalf("Read: %v", err)
				}
				if !slices.Equal(snap.Items, tt.wantItems) {
					t.Errorf("Read items = %q, want %q", snap.Items, tt.wantItems)
				}
			} else {
				queuedCtx, cancelQueued := context.WithCancel(context.Background())
				if tt.preCanceled {
					cancelQueued()
				} else {
					time.AfterFunc(20*time.Millisecond, cancelQueued)
				}
				_, err := c.Update(queuedCtx, etagclient.Change{Add: []string{"withdrawn"}})
				cancelQueued()
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("queued Update: err = %v, want context.Canceled", err)
				}
				checkNoSecrets(t, err)
				g.release()
				if err := <-firstErr; err != nil {
					t.Fatalf("first Update: %v", err)
				}
				// Another cycle, to show the withdrawn change is not
				// lingering in the queue either.
				if _, err := c.Update(context.Background(), etagclient.Change{Remove: []string{"absent"}}); err != nil {
					t.Fatalf("later Update: %v", err)
				}
				if obs.BatchedChanges.Load() != 1 {
					t.Errorf("PUTs carried %d changes, want only the first", obs.BatchedChanges.Load())
				}
			}
			if got := e.items(t, ""); !slices.Equal(got, tt.wantItems) {
				t.Errorf("list = %q, want %q", got, tt.wantItems)
			}
			if n := e.api.Stats().Commits; n != 1 {
				t.Errorf("server committed %d writes, want 1", n)
			}
		})
	}
}
