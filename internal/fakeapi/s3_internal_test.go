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

package fakeapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestS3WriteMarker checks the write marker step by step: a conditional
// PUT holds it during its latency; a second one gets 409 at once; an
// unconditional PUT and a GET pass; a writer that gives up releases the
// marker without committing.
func TestS3WriteMarker(t *testing.T) {
	s, err := New(WithProfile(ProfileS3), WithLatency(time.Hour, 0))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	etag, err := s.Set("/l", []byte(`["a"]`))
	if err != nil {
		t.Fatal(err)
	}
	put := func(ctx context.Context, body string, h map[string]string) (int, error) {
		req, _ := http.NewRequestWithContext(ctx, "PUT", ts.URL+"/l", strings.NewReader(body))
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			return 0, err
		}
		_ = resp.Body.Close()
		return resp.StatusCode, nil
	}
	marked := func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.writing["/l"]
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // before ts.Close, which waits for the first PUT
	first := make(chan error, 1)
	go func() {
		_, err := put(ctx, `["first"]`, map[string]string{"If-Match": etag})
		first <- err
	}()
	for deadline := time.Now().Add(10 * time.Second); !marked(); {
		if time.Now().After(deadline) {
			t.Fatal("the first PUT never held the marker")
		}
		time.Sleep(time.Millisecond)
	}
	if err := s.SetLatency(0, 0); err != nil {
		t.Fatal(err)
	}
	if code, err := put(context.Background(), `["second"]`, map[string]string{"If-Match": etag}); err != nil || code != http.StatusConflict {
		t.Fatalf("overlapping conditional PUT = %d, %v; want 409", code, err)
	}
	if code, err := put(context.Background(), `["third"]`, map[string]string{"If-None-Match": "*"}); err != nil || code != http.StatusConflict {
		t.Fatalf("overlapping create = %d, %v; want 409", code, err)
	}
	if !marked() {
		t.Fatal("a 409 removed the marker it did not hold")
	}
	if body, _, _ := s.Get("/l"); string(body) != `["a"]` {
		t.Fatalf("document = %s before anything committed", body)
	}

	cancel()
	if err := <-first; err == nil {
		t.Fatal("the cancelled PUT got an answer")
	}
	for deadline := time.Now().Add(10 * time.Second); marked(); {
		if time.Now().After(deadline) {
			t.Fatal("the cancelled PUT kept the marker")
		}
		time.Sleep(time.Millisecond)
	}
	if body, _, _ := s.Get("/l"); string(body) != `["a"]` {
		t.Fatalf("the cancelled PUT committed %s", body)
	}
	if code, err := put(context.Background(), `["fourth"]`, map[string]string{"If-Match": etag}); err != nil || code != http.StatusOK {
		t.Fatalf("PUT after the marker went = %d, %v; want 200", code, err)
	}
	if st := s.Stats(); st.Count("PUT", 0) != 1 || st.Count("PUT", 409) != 2 || st.Commits != 1 {
		t.Errorf("stats %v, commits %d", st.Requests, st.Commits)
	}
}
