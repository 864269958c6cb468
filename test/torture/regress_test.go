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
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// TestRegressionInvalidUTF8ID shows a bug found by FuzzDocumentEdit (seed
// internal/etagclient/testdata/fuzz/FuzzDocumentEdit/regress-invalid-utf8-id):
// Change.Validate accepts an ID that is not valid UTF-8, and
// Document.WithItems writes it as U+FFFD (encoding/json replaces invalid
// bytes). The ID stored is then not the ID asked for, so a second replica
// adding it appends a duplicate, and removing it returns ok while the
// stored ID stays on the list for good. Validate should refuse such IDs (or
// WithItems fail); nothing should be written silently.
func TestRegressionInvalidUTF8ID(t *testing.T) {
	api, err := fakeapi.New()
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(api)
	defer ts.Close()
	if _, err := api.Set("/l", []byte(`{"items":["keep"]}`)); err != nil {
		t.Fatal(err)
	}
	newClient := func() *etagclient.Client {
		c, err := etagclient.New(ts.URL+"/l", etagclient.WithItemsPointer("/items"), etagclient.WithBatchInterval(0))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		return c
	}
	a, b := newClient(), newClient() // two replicas
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const id = "id-\xff" // not valid UTF-8

	_, addErr := a.Update(ctx, etagclient.Change{Add: []string{id}})
	_, add2Err := b.Update(ctx, etagclient.Change{Add: []string{id}})
	_, rmErr := b.Update(ctx, etagclient.Change{Remove: []string{id}})
	body, _, _ := api.Get("/l")
	items, err := parseItemsAt(body, "/items")
	if err != nil {
		t.Fatal(err)
	}
	if addErr == nil && add2Err == nil && rmErr == nil {
		if !slices.Equal(items, []string{"keep"}) {
			t.Errorf("adding %q from two replicas, then removing it, all returned ok, but the list is %q (want [keep])", id, items)
		}
	}
	// Either the client refuses the ID, or the list must come out right.
	if addErr == nil && len(items) != 1 {
		t.Errorf("the client accepted the invalid UTF-8 ID %q and the stored list is %q", id, items)
	}
}

func parseItemsAt(body []byte, pointer string) ([]string, error) {
	p, err := etagclient.ParsePointer(pointer)
	if err != nil {
		return nil, err
	}
	d, err := etagclient.ParseDocument(body, p)
	if err != nil {
		return nil, err
	}
	return d.Items(), nil
}

// stepClock is an etagclient.Clock whose waits the test releases one by
// one: every After call is handed to the test on waits.
type stepClock struct{ waits chan chan time.Time }

func (c *stepClock) Now() time.Time { return time.Now() }

func (c *stepClock) After(time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	c.waits <- ch
	return ch
}

// TestRegressionCommittedChangeReapplied shows a lost update found by the
// soak (seeds 1031 and 1021, about one round in 35): a change whose write
// committed without an answer stays in its cycle after a fresh read shows
// that it holds, when other changes joined the cycle during the backoff;
// every later attempt re-applies it, so a removal that another client made
// in between, and that was acknowledged, is silently undone.
//
// Replica A adds x; the PUT commits and the connection drops (ambiguous).
// During A's backoff another change (add y) joins A's cycle. A re-reads: x
// holds. Its next PUT (x, y) loses to replica B, which had read x and then
// removed it, ok. A re-reads, re-applies add(x) and add(y), and writes x back.
// No linearization exists: B's read saw x, so add(x) took effect before
// it; B's removal came after and returned ok; no other add(x) exists, yet x
// ends on the list.
func TestRegressionCommittedChangeReapplied(t *testing.T) {
	const path = "/l"
	var (
		putsA     atomic.Int64
		bMu       sync.Mutex
		bSawX     bool
		bRemoveOK bool
		bErr      error
		b         *etagclient.Client
	)
	hook := func(r *http.Request) fakeapi.Fault {
		if r.Header.Get("X-Replica") != "a" || r.Method != http.MethodPut {
			return fakeapi.Fault{}
		}
		switch putsA.Add(1) {
		case 1: // A's first write commits, its answer is lost
			return fakeapi.Fault{Kind: fakeapi.FaultCommitThenDrop}
		case 2: // before A's second write: B sees x and removes it
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			bMu.Lock()
			defer bMu.Unlock()
			snap, err := b.Read(ctx)
			if err == nil {
				bSawX = slices.Contains(snap.Items, "x")
				_, err = b.Update(ctx, etagclient.Change{Remove: []string{"x"}})
				bRemoveOK = err == nil
			}
			bErr = err
		}
		return fakeapi.Fault{}
	}
	api, err := fakeapi.New(fakeapi.WithFaultHook(hook))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(api)
	defer ts.Close()
	if _, err := api.Set(path, []byte(`{"items":["keep"]}`)); err != nil {
		t.Fatal(err)
	}
	clock := &stepClock{waits: make(chan chan time.Time, 8)}
	newClient := func(name string, opts ...etagclient.Option) *etagclient.Client {
		c, err := etagclient.New(ts.URL+path, append([]etagclient.Option{
			etagclient.WithBatchInterval(0),
			etagclient.WithItemsPointer("/items"),
			etagclient.WithHeaders(http.Header{"X-Replica": {name}}),
		}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		return c
	}
	a := newClient("a", etagclient.WithClock(clock))
	b = newClient("b")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	addX := make(chan error, 1)
	go func() {
		_, err := a.Update(ctx, etagclient.Change{Add: []string{"x"}})
		addX <- err
	}()
	nextWait := func(what string) chan time.Time {
		t.Helper()
		select {
		case ch := <-clock.waits:
			return ch
		case <-ctx.Done():
			t.Fatalf("A never backed off %s", what)
			return nil
		}
	}
	// A's first PUT committed x and got no answer: A backs off.
	w := nextWait("after its first write")
	if body, _, _ := api.Get(path); !strings.Contains(string(body), `"x"`) {
		t.Fatalf("A's first write did not commit x: %s", body)
	}
	// Another change joins A's cycle during the backoff.
	pendingY, err := a.Submit(etagclient.Change{Add: []string{"y"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	w <- time.Now()
	// A re-read (x held), wrote (x, y), lost to B's removal: A backs off
	// again, then re-reads and writes.
	w = nextWait("after losing to B")
	w <- time.Now()
	if err := <-addX; err != nil {
		t.Fatalf("add(x): %v", err)
	}
	select {
	case <-pendingY.Done():
	case <-ctx.Done():
		t.Fatal("add(y) never completed")
	}
	bMu.Lock()
	defer bMu.Unlock()
	if bErr != nil || !bSawX || !bRemoveOK {
		t.Fatalf("B did not see x and remove it: saw %v, removed %v, %v", bSawX, bRemoveOK, bErr)
	}
	body, _, _ := api.Get(path)
	items, err := parseItemsAt(body, "/items")
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(items, "x") {
		t.Errorf("x is on the list %q: B read x, then removed it (ok), but A's cycle re-applied its add(x), which had already taken effect", items)
	}
	if !slices.Contains(items, "y") {
		t.Errorf("y is missing from %q", items)
	}
}
