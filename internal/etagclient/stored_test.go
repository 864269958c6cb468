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
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// stampingServer is a list API that rewrites what it stores: the first write
// gets a "stampedAt" that later writes must keep, and the stored document is
// echoed in the answer, with a Content-Location naming the document when
// contentLocation is set.
type stampingServer struct {
	mu              sync.Mutex
	doc             map[string]any
	version         int
	contentLocation bool
}

func (s *stampingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	etag := fmt.Sprintf(`"v%d"`, s.version)
	switch r.Method {
	case http.MethodGet:
		w.Header().Set("ETag", etag)
		_ = json.NewEncoder(w).Encode(s.doc)
	case http.MethodPut:
		if r.Header.Get("If-Match") != etag {
			w.WriteHeader(http.StatusPreconditionFailed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var doc map[string]any
		if err := json.Unmarshal(body, &doc); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		s.version++
		if _, ok := doc["stampedAt"]; !ok {
			doc["stampedAt"] = fmt.Sprintf("t%d", s.version)
		}
		s.doc = doc
		w.Header().Set("ETag", fmt.Sprintf(`"v%d"`, s.version))
		w.Header().Set("Content-Type", "application/json")
		if s.contentLocation {
			w.Header().Set("Content-Location", r.URL.Path)
		}
		_ = json.NewEncoder(w).Encode(doc)
	}
}

// TestServerRewrittenFieldsSurvive: when the answer to a PUT says (with
// Content-Location) that its body is the stored document, the client caches
// that, not what it sent, so a field the server adds on write is kept by the
// next write made from the cache.
func TestServerRewrittenFieldsSurvive(t *testing.T) {
	srv := &stampingServer{doc: map[string]any{"items": []any{"a"}}, contentLocation: true}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	c, err := etagclient.New(ts.URL, etagclient.WithItemsPointer("/items"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx := context.Background()
	for _, id := range []string{"b", "c"} {
		if _, err := c.Update(ctx, etagclient.Change{Add: []string{id}}); err != nil {
			t.Fatalf("add %s: %v", id, err)
		}
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	got, _ := json.Marshal(srv.doc)
	if srv.doc["stampedAt"] != "t1" || !strings.Contains(string(got), `"items":["a","b","c"]`) {
		t.Fatalf("stored document = %s, want items a,b,c and stampedAt t1", got)
	}
	if srv.version != 2 {
		t.Fatalf("%d writes, want 2 (the second from the cached, server-stamped copy)", srv.version)
	}
}
