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

package listconfig

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// keyOwner owns exactly the buckets of the keys it was given: each key is
// its own bucket, so a test can say which replica owns what. Its right to
// act on any bucket reaches an hour ahead, as a SoleOwner's.
type keyOwner struct {
	keys  map[string]int
	owned map[int]bool
}

func (o *keyOwner) Bucket(key string) int {
	b, ok := o.keys[key]
	if !ok {
		b = len(o.keys) + 1
		o.keys[key] = b
	}
	return b
}

func (o *keyOwner) Owns(b int) bool { return o.owned[b] }

func (o *keyOwner) ActUntil(int) (time.Time, bool) { return time.Now().Add(time.Hour), true }

func (o *keyOwner) SettleAfter(int) time.Time { return time.Time{} }

// fakeServer is a fake list server of one test.
type fakeServer struct {
	srv *fakeapi.Server
	url string
}

func newFakeServer(t *testing.T) *fakeServer {
	t.Helper()
	srv, err := fakeapi.New()
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return &fakeServer{srv: srv, url: hs.URL}
}

// setDoc stores body at path on srv.
func setDoc(t *testing.T, srv *fakeapi.Server, path string, body any) {
	t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Set(path, raw); err != nil {
		t.Fatalf("set %s: %v", path, err)
	}
}

// eventually polls cond until it returns nil or timeout passes, and then
// fails t with the last error.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s: %v", timeout, what, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSweepClosesClientsOfDocumentsNotOwned: a replica keeps a client, and
// with it a copy of the document, only for the documents it owns; the
// client of a document whose bucket moved away is closed once idle.
func TestSweepClosesClientsOfDocumentsNotOwned(t *testing.T) {
	t.Parallel()
	lists := newFakeServer(t)
	setDoc(t, lists.srv, "/mine", []string{})
	setDoc(t, lists.srv, "/theirs", []string{})
	owner := &keyOwner{keys: map[string]int{}, owned: map[int]bool{}}
	lc := &ListClients{Owner: owner, Resolver: &Resolver{ClusterNamespace: "default"}}
	t.Cleanup(lc.Close)
	clientOf := func(path string) *etagclient.Client {
		t.Helper()
		l := newExternalList("ns", strings.TrimPrefix(path, "/"), lists.url+path)
		cfg, err := lc.Resolve(context.Background(), l)
		if err != nil {
			t.Fatal(err)
		}
		c, err := lc.Client(cfg, RefOf(l))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Read(context.Background()); err != nil {
			t.Fatal(err)
		}
		return c
	}
	mine, theirs := clientOf("/mine"), clientOf("/theirs")
	owner.owned[owner.Bucket(DocumentBucketKey(DocumentIDOfURL(lists.url+"/mine")))] = true
	// A client is closed once idle: its cycle goroutine ends a batch
	// interval after its last read.
	eventually(t, 5*time.Second, "the client of a document another replica owns to be closed", func() error {
		lc.Sweep()
		if !theirs.Idle() {
			return errors.New("not idle yet")
		}
		if _, err := theirs.Read(context.Background()); !errors.Is(err, etagclient.ErrClosed) {
			return fmt.Errorf("read: %w, want ErrClosed", err)
		}
		return nil
	})
	if _, err := mine.Read(context.Background()); err != nil {
		t.Errorf("the client of an owned document was closed: %v", err)
	}
}
