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
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/stores"
)

// TestSignerSignsEveryAttempt: a Signer signs each attempt, retries
// included, with the body it carries, just before it is sent; the server
// refuses anything whose signature does not match the body it received.
func TestSignerSignsEveryAttempt(t *testing.T) {
	var nonce atomic.Int64
	signer := etagclient.SignerFunc(func(req *http.Request, body []byte) error {
		sum := sha256.Sum256(body)
		req.Header.Set("X-Test-Content-Sha256", hex.EncodeToString(sum[:]))
		req.Header.Set("X-Test-Nonce", strconv.FormatInt(nonce.Add(1), 10))
		return nil
	})
	var mu sync.Mutex
	seen := map[string]bool{}
	var puts atomic.Int64
	srv := startListServer(t, `["a"]`, func(s *listServer, w http.ResponseWriter, r *http.Request, nth int) bool {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytesReader(body))
		sum := sha256.Sum256(body)
		mu.Lock()
		replayed := seen[r.Header.Get("X-Test-Nonce")]
		seen[r.Header.Get("X-Test-Nonce")] = true
		mu.Unlock()
		if r.Header.Get("X-Test-Content-Sha256") != hex.EncodeToString(sum[:]) || replayed {
			w.WriteHeader(http.StatusForbidden)
			return true
		}
		if r.Method == http.MethodPut && puts.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable) // a transport retry re-signs
			return true
		}
		return false
	})
	c, _ := ownedClient(t, srv.url(), etagclient.WithSigner(signer),
		etagclient.WithTransportRetries(2, time.Millisecond, time.Millisecond))
	if _, err := c.Update(t.Context(), etagclient.Change{Add: []string{"b"}}); err != nil {
		t.Fatalf("Update: %v", err)
	}
	if got := srv.stored(); got != `["a","b"]` {
		t.Fatalf("stored %s", got)
	}
	if n := puts.Load(); n != 2 {
		t.Fatalf("%d PUT attempts, want 2 (one retried after 503, signed again)", n)
	}
}

func bytesReader(b []byte) io.Reader { return &byteReader{b: b} }

type byteReader struct{ b []byte }

func (r *byteReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}

// TestSignerErrorIsUnauthorized: when credentials cannot be had, nothing is
// sent and the change fails with ErrUnauthorized, without retries.
func TestSignerErrorIsUnauthorized(t *testing.T) {
	srv := startListServer(t, `["a"]`, nil)
	expired := errors.New("the session token expired")
	c, _ := ownedClient(t, srv.url(), etagclient.WithSigner(etagclient.SignerFunc(func(*http.Request, []byte) error { return expired })))
	_, err := c.Update(t.Context(), etagclient.Change{Add: []string{"b"}})
	if !errors.Is(err, etagclient.ErrUnauthorized) || !errors.Is(err, expired) {
		t.Fatalf("err = %v, want ErrUnauthorized wrapping the signer's error", err)
	}
	if n := len(srv.requests()); n != 0 {
		t.Fatalf("%d requests reached the server, want none", n)
	}
}

// generationStore is a list API with Google Cloud Storage's preconditions:
// every version has a generation (x-goog-generation), and a write must
// carry x-goog-if-generation-match with the live generation, or 0 to
// create. Its ETag is weak, so only the generation can make a write safe.
type generationStore struct {
	mu       sync.Mutex
	body     []byte // nil: no object
	gen      int64
	omitGen  bool
	writes   int
	bumpNext bool // another writer commits just before the next PUT
}

func (s *generationStore) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.Method {
	case http.MethodGet:
		if s.body == nil {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		if !s.omitGen {
			w.Header().Set("X-Goog-Generation", strconv.FormatInt(s.gen, 10))
		}
		w.Header().Set("ETag", `W/"weak"`)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(s.body)
	case http.MethodPut:
		if s.bumpNext {
			s.bumpNext = false
			s.gen++
		}
		want := "0"
		if s.body != nil {
			want = strconv.FormatInt(s.gen, 10)
		}
		if r.Header.Get("If-Match") != "" || r.Header.Get("X-Goog-If-Generation-Match") != want {
			w.WriteHeader(http.StatusPreconditionFailed)
			return
		}
		s.body, _ = io.ReadAll(r.Body)
		s.gen++
		s.writes++
		w.Header().Set("X-Goog-Generation", strconv.FormatInt(s.gen, 10))
		w.WriteHeader(http.StatusOK)
	}
}

// TestGenerationPreconditions: against a generation store the client
// writes with x-goog-if-generation-match (0 to create), survives a 412
// when another writer moved the generation, keeps writing from the
// generation a PUT answered with, and refuses to write when a read carries
// no generation.
func TestGenerationPreconditions(t *testing.T) {
	store := &generationStore{}
	ts := httptest.NewServer(store)
	t.Cleanup(ts.Close)
	c, _ := ownedClient(t, ts.URL+"/list", etagclient.WithDialect(stores.GCS), etagclient.WithCreateIfMissing(true),
		etagclient.WithConflictPolicy(tinyPolicy(10)))
	ctx := t.Context()
	if _, err := c.Update(ctx, etagclient.Change{Add: []string{"a"}}); err != nil {
		t.Fatalf("create: %v", err)
	}
	store.mu.Lock()
	store.bumpNext = true
	store.mu.Unlock()
	if _, err := c.Update(ctx, etagclient.Change{Add: []string{"b"}}); err != nil {
		t.Fatalf("add after another writer: %v", err)
	}
	if _, err := c.Update(ctx, etagclient.Change{Add: []string{"c"}}); err != nil {
		t.Fatalf("add from the cached generation: %v", err)
	}
	store.mu.Lock()
	body, writes := string(store.body), store.writes
	store.omitGen = true
	store.mu.Unlock()
	if body != `["a","b","c"]` || writes != 3 {
		t.Fatalf("stored %s after %d writes, want [\"a\",\"b\",\"c\"] after 3", body, writes)
	}

	d, _ := ownedClient(t, ts.URL+"/list", etagclient.WithDialect(stores.GCS))
	_, err := d.Update(ctx, etagclient.Change{Add: []string{"d"}})
	if !errors.Is(err, etagclient.ErrMissingGeneration) || !errors.Is(err, etagclient.ErrUnsafeServer) {
		t.Fatalf("without x-goog-generation: err = %v, want ErrMissingGeneration", err)
	}
	store.mu.Lock()
	defer store.mu.Unlock()
	if store.writes != 3 {
		t.Fatalf("a write happened without a generation to make it conditional")
	}
}
