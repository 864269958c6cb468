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
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// orderFixture is a fake server with one list and one client whose waits
// (the batch interval, the conflict backoff) the test releases by hand.
type orderFixture struct {
	api    *fakeapi.Server
	client *etagclient.Client
	clock  *stepClock
	ctx    context.Context
}

const orderPath = "/l"

func newOrderFixture(t *testing.T, doc string, opts ...etagclient.Option) *orderFixture {
	t.Helper()
	api, err := fakeapi.New()
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(api)
	t.Cleanup(ts.Close)
	if _, err := api.Set(orderPath, []byte(doc)); err != nil {
		t.Fatal(err)
	}
	f := &orderFixture{api: api, clock: &stepClock{waits: make(chan chan time.Time, 8)}}
	f.client, err = etagclient.New(ts.URL+orderPath, append([]etagclient.Option{
		etagclient.WithItemsPointer("/items"),
		etagclient.WithClock(f.clock),
		etagclient.WithBatchInterval(0),
	}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.client.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	f.ctx = ctx
	return f
}

// release lets the client's next wait end.
func (f *orderFixture) release(t *testing.T, what string) {
	t.Helper()
	select {
	case w := <-f.clock.waits:
		w <- time.Now()
	case <-f.ctx.Done():
		t.Fatalf("the client never waited %s", what)
	}
}

func (f *orderFixture) items(t *testing.T) []string {
	t.Helper()
	body, _, _ := f.api.Get(orderPath)
	items, err := parseItemsAt(body, "/items")
	if err != nil {
		t.Fatal(err)
	}
	return items
}

func wantDone(ctx context.Context, t *testing.T, p *etagclient.Pending, what string) {
	t.Helper()
	select {
	case <-p.Done():
	case <-ctx.Done():
		t.Fatalf("%s never completed", what)
	}
	if _, err := p.Result(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// TestRegressionSameIDOneCycle shows what the hot-ID workload found: two
// changes of the same ID submitted to one client back to back, which a
// batch interval puts into one cycle, must take effect in the order they
// were submitted, and both return ok only when they did.
//
// The client settles on its first read every change that already holds,
// even when a later change of the same ID in the same cycle undoes it, so
// "add x, remove x" on a list without x ends with x (the removal returned
// ok first), and "remove x, add x" on a list with x ends without it (the
// addition returned ok first). And etagclient.Apply, folding "remove x,
// add x" over a list without x, never appends x: a removal named x first,
// and only the first naming of an ID puts it in the order of additions;
// that shows when the cycle writes from its cache without reading first
// (settling on a read would take the removal out of the fold).
func TestRegressionSameIDOneCycle(t *testing.T) {
	add, rm := etagclient.Change{Add: []string{"x"}}, etagclient.Change{Remove: []string{"x"}}
	tests := []struct {
		name          string
		doc           string
		first, second etagclient.Change
		// cached: a read before fills the client's cache, so the cycle
		// writes (another change, add(y), comes with it) without reading.
		cached bool
		wantX  bool
	}{
		{"add then remove, x absent", `{"items":["keep"]}`, add, rm, false, false},
		{"add then remove, x present", `{"items":["keep","x"]}`, add, rm, false, false},
		{"remove then add, x absent", `{"items":["keep"]}`, rm, add, false, true},
		{"remove then add, x present", `{"items":["keep","x"]}`, rm, add, false, true},
		{"remove then add, x absent, from the cache", `{"items":["keep"]}`, rm, add, true, true},
		{"add then remove, x present, from the cache", `{"items":["keep","x"]}`, add, rm, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newOrderFixture(t, tt.doc, etagclient.WithBatchInterval(time.Second))
			changes := []etagclient.Change{tt.first, tt.second}
			if tt.cached {
				read := make(chan error, 1)
				go func() {
					_, err := f.client.Read(f.ctx)
					read <- err
				}()
				f.release(t, "for the batch interval before the read")
				if err := <-read; err != nil {
					t.Fatal(err)
				}
				changes = append(changes, etagclient.Change{Add: []string{"y"}})
			}
			var ps []*etagclient.Pending
			for _, ch := range changes {
				p, err := f.client.Submit(ch, nil)
				if err != nil {
					t.Fatal(err)
				}
				ps = append(ps, p)
			}
			f.release(t, "for the batch interval") // all are pending now: one cycle takes them
			for _, p := range ps {
				wantDone(f.ctx, t, p, "a change")
			}
			if items := f.items(t); slices.Contains(items, "x") != tt.wantX {
				t.Errorf("every change returned ok, but the list is %q: x %s, want it %s", items, presence(!tt.wantX), presence(tt.wantX))
			}
		})
	}
}

// TestRegressionApplyRemoveThenAdd is the fold of
// TestRegressionSameIDOneCycle's last cases alone: applied in order, a
// removal and then an addition of x leave x on the list.
func TestRegressionApplyRemoveThenAdd(t *testing.T) {
	rm, add := etagclient.Change{Remove: []string{"x"}}, etagclient.Change{Add: []string{"x"}}
	for _, items := range [][]string{{"keep"}, {"keep", "x"}} {
		got, _ := etagclient.Apply(items, rm, add)
		if !slices.Equal(got, []string{"keep", "x"}) {
			t.Errorf("Apply(%q, remove x, add x) = %q, want [keep x]", items, got)
		}
		got, _ = etagclient.Apply(items, add, rm)
		if !slices.Equal(got, []string{"keep"}) {
			t.Errorf("Apply(%q, add x, remove x) = %q, want [keep]", items, got)
		}
	}
}

// TestRegressionAbandonedChangeLandsLate shows the same on the conflict
// path: an addition whose caller gave up while its cycle was backing off
// after a 412 stays in the cycle; a removal of the same ID submitted after
// that joins the cycle, holds on its re-read and is settled ok at once;
// then the cycle writes the abandoned addition, after the removal that
// followed it.
func TestRegressionAbandonedChangeLandsLate(t *testing.T) {
	var puts atomic.Int64
	f := newOrderFixture(t, `{"items":["keep"]}`)
	f.api.SetFaultHook(func(r *http.Request) fakeapi.Fault {
		if r.Method == http.MethodPut && puts.Add(1) == 1 {
			// Another writer commits first: the client's write gets 412.
			if _, err := f.api.Set(orderPath, []byte(`{"items":["keep","other"]}`)); err != nil {
				t.Error(err)
			}
		}
		return fakeapi.Fault{}
	})
	addCtx, giveUp := context.WithCancel(f.ctx)
	added := make(chan error, 1)
	go func() {
		_, err := f.client.Update(addCtx, etagclient.Change{Add: []string{"x"}})
		added <- err
	}()
	// The first write lost to the other writer: the cycle backs off.
	select {
	case w := <-f.clock.waits:
		giveUp()
		if err := <-added; !errors.Is(err, context.Canceled) {
			t.Fatalf("add(x) after its caller gave up: %v, want context.Canceled", err)
		}
		removed, err := f.client.Submit(etagclient.Change{Remove: []string{"x"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		w <- time.Now()
		wantDone(f.ctx, t, removed, "remove(x)")
	case <-f.ctx.Done():
		t.Fatal("the client never backed off after its write lost")
	}
	// A later change completes only after the cycle that held the
	// abandoned addition ended.
	later, err := f.client.Submit(etagclient.Change{Add: []string{"z"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantDone(f.ctx, t, later, "add(z)")
	if items := f.items(t); slices.Contains(items, "x") {
		t.Errorf("x is on the list %q: remove(x), submitted after add(x), returned ok, and then add(x) took effect", items)
	}
}
