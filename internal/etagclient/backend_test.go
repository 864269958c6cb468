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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// memoryBackend keeps a list in memory behind the Backend seam, with a
// version that every write bumps, and refuses IDs that start with "bad"
// (ItemChecker). It loses the first lostWrites writes as if another writer
// had won, so the engine's retry through the seam is exercised.
type memoryBackend struct {
	mu         sync.Mutex
	items      []string
	version    int
	lostWrites int
	reads      int
	writes     int
}

func (m *memoryBackend) Read(_ context.Context, have etagclient.Version) (etagclient.ReadAnswer, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reads++
	tag := fmt.Sprintf("v%d", m.version)
	if have.Tag == tag {
		return etagclient.ReadAnswer{NotModified: true}, nil
	}
	doc, err := etagclient.NewDocument(nil)
	if err != nil {
		return etagclient.ReadAnswer{}, err
	}
	if doc, err = doc.WithItems(append([]string(nil), m.items...)); err != nil {
		return etagclient.ReadAnswer{}, err
	}
	return etagclient.ReadAnswer{Doc: doc, Version: etagclient.Version{Tag: tag}}, nil
}

func (m *memoryBackend) Write(_ context.Context, next *etagclient.Document, create bool, base etagclient.Version) (etagclient.WriteAnswer, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.writes++
	if create {
		return etagclient.WriteAnswer{}, fmt.Errorf("%w: cannot create", etagclient.ErrRejected)
	}
	if m.lostWrites > 0 {
		m.lostWrites--
		m.version++ // another writer won
		return etagclient.WriteAnswer{Outcome: etagclient.WriteLost}, nil
	}
	if base.Tag != fmt.Sprintf("v%d", m.version) {
		return etagclient.WriteAnswer{Outcome: etagclient.WriteLost}, nil
	}
	m.items = append([]string(nil), next.Items()...)
	m.version++
	return etagclient.WriteAnswer{Outcome: etagclient.WriteCommitted, Version: etagclient.Version{Tag: fmt.Sprintf("v%d", m.version)}}, nil
}

func (m *memoryBackend) Close() {}

// NormalizeItem spells IDs in lower case, as the store keeps them.
func (m *memoryBackend) NormalizeItem(id string) string { return strings.ToLower(id) }

func (m *memoryBackend) CheckItem(id string) error {
	if strings.HasPrefix(id, "bad") {
		return fmt.Errorf("%w: ID %q is not allowed here", etagclient.ErrRejected, id)
	}
	return nil
}

// TestBackendSeam: a backend brought with WithBackend is read and written
// through the seam like the HTTP one: a lost write is retried from a fresh
// read, the version it returns is what the next write is conditional on
// and what callers see, IDs are spelled as the backend keeps them
// (ItemNormalizer), and an ID its ItemChecker refuses fails its own change
// alone while the others commit.
func TestBackendSeam(t *testing.T) {
	m := &memoryBackend{items: []string{"foreign"}, lostWrites: 2}
	c, err := etagclient.New("memory://list/1",
		etagclient.WithBackend(func(env etagclient.BackendEnv) (etagclient.Backend, error) {
			if env.HTTPClient == nil || env.ShownURL != "memory://list/1" {
				return nil, errors.New("the engine lent no HTTP client or the wrong shown URL")
			}
			return m, nil
		}),
		etagclient.WithBatchInterval(0), etagclient.WithConflictPolicy(tinyPolicy(10)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)

	res, err := c.Update(t.Context(), etagclient.Change{Add: []string{"a"}})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if !res.Written || res.Items != 2 || res.ETag != "v3" {
		t.Fatalf("result = %+v, want written, 2 items, version v3 (two lost writes, then the commit)", res)
	}

	bad, err := c.Submit(etagclient.Change{Add: []string{"bad-id"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	good, err := c.Submit(etagclient.Change{Add: []string{"b"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	<-bad.Done()
	<-good.Done()
	if _, err := bad.Result(); !errors.Is(err, etagclient.ErrRejected) || !strings.Contains(err.Error(), "bad-id") {
		t.Errorf("refused ID: err = %v, want ErrRejected naming it", err)
	}
	if _, err := good.Result(); err != nil {
		t.Errorf("the other change of the batch: %v", err)
	}
	// Another spelling of an ID on the list is that ID: nothing to write,
	// and removing it in yet another spelling takes it off.
	if res, err := c.Update(t.Context(), etagclient.Change{Add: []string{"A"}}); err != nil || res.Written {
		t.Errorf("adding A beside a: written=%v err=%v, want nothing written", res.Written, err)
	}
	if _, err := c.Update(t.Context(), etagclient.Change{Add: []string{"C"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Update(t.Context(), etagclient.Change{Remove: []string{"c"}}); err != nil {
		t.Fatal(err)
	}
	snap, err := c.Read(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(snap.Items, ","); got != "foreign,a,b" {
		t.Errorf("items = %s, want foreign,a,b", got)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.writes != 6 {
		t.Errorf("backend writes = %d, want 6 (two lost, four committed)", m.writes)
	}
}

// TestBackendURLMustParse: with a backend, any absolute URL names the list;
// without one, only http and https do.
func TestBackendURLMustParse(t *testing.T) {
	if _, err := etagclient.New("memory://list/1"); err == nil {
		t.Error("a non-http URL without a backend was accepted")
	}
	f := func(etagclient.BackendEnv) (etagclient.Backend, error) { return &memoryBackend{}, nil }
	if _, err := etagclient.New("not a url", etagclient.WithBackend(f)); err == nil {
		t.Error("an unparsable URL with a backend was accepted")
	}
	wantErr := errors.New("factory refused")
	if _, err := etagclient.New("memory://x/y", etagclient.WithBackend(func(etagclient.BackendEnv) (etagclient.Backend, error) { return nil, wantErr })); !errors.Is(err, wantErr) {
		t.Errorf("factory error: got %v", err)
	}
}

// TestBackendSpellingBeforeSettling: a fresh client's first change is
// spelled as the backend keeps IDs before its first read may settle it, so
// a removal in another spelling takes the ID off instead of "already
// holding"; and a change's RetainOnly is spelled too, not dropped.
func TestBackendSpellingBeforeSettling(t *testing.T) {
	m := &memoryBackend{items: []string{"foreign", "x", "y"}}
	c, err := etagclient.New("memory://list/2",
		etagclient.WithBackend(func(etagclient.BackendEnv) (etagclient.Backend, error) { return m, nil }),
		etagclient.WithBatchInterval(0), etagclient.WithConflictPolicy(tinyPolicy(10)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	res, err := c.Update(t.Context(), etagclient.Change{Remove: []string{"X"}})
	if err != nil || !res.Written {
		t.Fatalf("removing X from a list holding x: written=%v err=%v, want a write", res.Written, err)
	}
	if _, err := c.Update(t.Context(), etagclient.Change{RetainOnly: []string{"FOREIGN"}}); err != nil {
		t.Fatal(err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if got := strings.Join(m.items, ","); got != "foreign" {
		t.Errorf("items = %s, want foreign (x removed, y dropped by RetainOnly)", got)
	}
}

// requestCounter counts the HTTP attempts an observer is told of.
type requestCounter struct {
	etagclient.NopObserver
	mu sync.Mutex
	n  int
}

func (r *requestCounter) Request(string, int, time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
}

func (r *requestCounter) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// TestReconfigureKeepsTheObserver: the observer stays the one given to New
// however the Client is reconfigured, so the requests of the new
// configuration, sent by the HTTP client the engine lends its backend, are
// still counted where the Client's were (per list, in the operator).
func TestReconfigureKeepsTheObserver(t *testing.T) {
	env := startFake(t)
	env.set(t, `["a"]`)
	obs := &requestCounter{}
	c := newClient(t, env.url, etagclient.WithObserver(obs))
	if _, err := c.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	if obs.count() == 0 {
		t.Fatal("the observer saw no request")
	}
	if err := c.Reconfigure(env.url, testOptions(newFakeClock())...); err != nil {
		t.Fatal(err)
	}
	before := obs.count()
	if _, err := c.Update(context.Background(), etagclient.Change{Add: []string{"b"}}); err != nil {
		t.Fatal(err)
	}
	if obs.count() == before {
		t.Errorf("after Reconfigure the observer saw none of the requests")
	}
}
