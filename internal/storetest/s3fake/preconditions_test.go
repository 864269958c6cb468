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

package s3fake

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"
)

func quotedMD5(b []byte) string {
	sum := md5.Sum(b)
	return `"` + hex.EncodeToString(sum[:]) + `"`
}

// TestConditionalPut pins the preconditions of PutObject as S3 answers
// them: the wrapper decides (gofakes3 would answer 412 for If-Match on a
// missing key, see TestGofakes3Preconditions), and the new ETag is the
// quoted MD5 of the body.
func TestConditionalPut(t *testing.T) {
	current := []byte(`["a"]`)
	next := []byte(`["a","b"]`)
	tests := []struct {
		name       string
		seeded     bool
		header     http.Header
		method     string // default PUT
		key        string // default doc.json in testBucket
		url        func(s *Server) string
		wantStatus int
		wantCode   string
	}{
		{name: "If-Match current, quoted", seeded: true, header: http.Header{"If-Match": {quotedMD5(current)}}, wantStatus: http.StatusOK},
		{name: "If-Match current, unquoted", seeded: true, header: http.Header{"If-Match": {quotedMD5(current)[1:33]}}, wantStatus: http.StatusOK},
		{name: "If-Match stale", seeded: true, header: http.Header{"If-Match": {quotedMD5([]byte("old"))}}, wantStatus: http.StatusPreconditionFailed, wantCode: "PreconditionFailed"},
		{name: "If-Match weak form of the current tag", seeded: true, header: http.Header{"If-Match": {"W/" + quotedMD5(current)}}, wantStatus: http.StatusPreconditionFailed, wantCode: "PreconditionFailed"},
		{name: "If-Match empty", seeded: true, header: http.Header{"If-Match": {""}}, wantStatus: http.StatusPreconditionFailed, wantCode: "PreconditionFailed"},
		{name: "If-Match on a missing key", header: http.Header{"If-Match": {quotedMD5(current)}}, wantStatus: http.StatusNotFound, wantCode: "NoSuchKey"},
		{name: "If-Match * on an existing key", seeded: true, header: http.Header{"If-Match": {"*"}}, wantStatus: http.StatusOK},
		{name: "If-Match * on a missing key", header: http.Header{"If-Match": {"*"}}, wantStatus: http.StatusNotFound, wantCode: "NoSuchKey"},
		{name: "If-None-Match * on a missing key", header: http.Header{"If-None-Match": {"*"}}, wantStatus: http.StatusOK},
		{name: "If-None-Match * on an existing key", seeded: true, header: http.Header{"If-None-Match": {"*"}}, wantStatus: http.StatusPreconditionFailed, wantCode: "PreconditionFailed"},
		{name: "If-None-Match with a tag", seeded: true, header: http.Header{"If-None-Match": {quotedMD5([]byte("old"))}}, wantStatus: http.StatusNotImplemented, wantCode: "NotImplemented"},
		{name: "If-Match on DELETE", seeded: true, method: http.MethodDelete, header: http.Header{"If-Match": {quotedMD5(current)}}, wantStatus: http.StatusNotImplemented, wantCode: "NotImplemented"},
		{name: "If-Match on a missing bucket", url: func(s *Server) string { return s.URL() + "/nobucket/doc.json" }, header: http.Header{"If-Match": {quotedMD5(current)}}, wantStatus: http.StatusNotFound, wantCode: "NoSuchBucket"},
		{name: "unconditional PUT", seeded: true, wantStatus: http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := startServer(t)
			if tt.seeded {
				seed(t, s, "doc.json", current)
			}
			method, url, body := tt.method, objectURL(s, "doc.json"), next
			if method == "" {
				method = http.MethodPut
			}
			if method != http.MethodPut {
				body = nil
			}
			if tt.url != nil {
				url = tt.url(s)
			}
			a := do(t, s.Client(), signedRequest(t, method, url, body, tt.header, signing{}))
			if a.status != tt.wantStatus || a.code != tt.wantCode {
				t.Fatalf("got %d %q, want %d %q\n%s", a.status, a.code, tt.wantStatus, tt.wantCode, a.body)
			}
			got := stored(t, s, "doc.json")
			switch {
			case a.status == http.StatusOK && method == http.MethodPut:
				if etag := a.header.Get("ETag"); etag != quotedMD5(next) {
					t.Errorf("ETag = %s, want the quoted MD5 %s", etag, quotedMD5(next))
				}
				if string(got) != string(next) {
					t.Errorf("stored %q, want %q", got, next)
				}
			case tt.seeded && string(got) != string(current):
				t.Errorf("refused write changed the object to %q", got)
			case !tt.seeded && got != nil:
				t.Errorf("refused write created %q", got)
			}
		})
	}
}

// TestConditionalPutOverlap pins what a conditional PUT meets while another
// write to the same key is in flight: 409 ConditionalRequestConflict at
// once by default, as S3 documents, or a wait and then the verdict against
// the key as the other write left it. The first write is held until the
// server reports (OverlapHook) that the second has met it, so each case
// checks a real overlap, never a second PUT that merely came after the
// first.
func TestConditionalPutOverlap(t *testing.T) {
	v1, v2, v3 := []byte("v1"), []byte("v2"), []byte("v3")
	tests := []struct {
		name             string
		conflict         bool
		secondConditions http.Header
		wantStatus       int
		wantCode         string
		wantStored       []byte
	}{
		{name: "conditional PUT conflicts", conflict: true, secondConditions: http.Header{"If-Match": {quotedMD5(v1)}}, wantStatus: http.StatusConflict, wantCode: "ConditionalRequestConflict", wantStored: v2},
		{name: "create-only PUT conflicts", conflict: true, secondConditions: http.Header{"If-None-Match": {"*"}}, wantStatus: http.StatusConflict, wantCode: "ConditionalRequestConflict", wantStored: v2},
		// The second write waited for the first, so it is the one that
		// stays.
		{name: "unconditional PUT waits", conflict: true, wantStatus: http.StatusOK, wantStored: v3},
		// The tag was current when the second PUT arrived; it fails
		// only because it is judged after the first write.
		{name: "without conflicts a stale If-Match waits, then fails", secondConditions: http.Header{"If-Match": {quotedMD5(v1)}}, wantStatus: http.StatusPreconditionFailed, wantCode: "PreconditionFailed", wantStored: v2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inFlight := make(chan struct{})
			release := make(chan struct{})
			overlapped := make(chan struct{})
			var heldOnce, overlapOnce sync.Once
			hold := func(r *http.Request) {
				heldOnce.Do(func() {
					close(inFlight)
					<-release
				})
			}
			overlap := func(r *http.Request) { overlapOnce.Do(func() { close(overlapped) }) }
			s, _ := startServer(t, WithConflictOnOverlap(tt.conflict), WithWriteHook(hold), WithOverlapHook(overlap))
			seed(t, s, "doc.json", v1)
			url := objectURL(s, "doc.json")

			client := s.Client()
			first := make(chan answer, 1)
			go func() {
				a, err := signedDo(client, http.MethodPut, url, v2, http.Header{"If-Match": {quotedMD5(v1)}}, signing{})
				if err != nil {
					t.Error(err)
				}
				first <- a
			}()
			<-inFlight

			second := make(chan answer, 1)
			go func() {
				a, err := signedDo(client, http.MethodPut, url, v3, tt.secondConditions, signing{})
				if err != nil {
					t.Error(err)
				}
				second <- a
			}()
			select {
			case <-overlapped:
			case <-time.After(overlapWait):
				close(release) // so that the server can close
				t.Fatalf("the second PUT did not meet the first in flight within %v", overlapWait)
			}
			if tt.wantStatus == http.StatusConflict {
				// A conflict is answered at once, while the first
				// write is still held.
				if a := <-second; a.status != tt.wantStatus || a.code != tt.wantCode {
					t.Errorf("second PUT = %d %q, want %d %q", a.status, a.code, tt.wantStatus, tt.wantCode)
				}
				close(release)
			} else {
				close(release)
				if a := <-second; a.status != tt.wantStatus || a.code != tt.wantCode {
					t.Errorf("second PUT = %d %q, want %d %q", a.status, a.code, tt.wantStatus, tt.wantCode)
				}
			}
			if a := <-first; a.status != http.StatusOK {
				t.Errorf("first PUT = %d %q, want 200", a.status, a.code)
			}
			if got := stored(t, s, "doc.json"); string(got) != string(tt.wantStored) {
				t.Errorf("stored %q, want %q", got, tt.wantStored)
			}
		})
	}
}

// overlapWait is how long TestConditionalPutOverlap waits for the second
// PUT to meet the first: far more than it needs on a slow, shared machine.
const overlapWait = 30 * time.Second

// TestConditionalPutNoLostUpdate runs writers that each add one item with
// read-modify-write under If-Match, retrying on 409 and 412: every item
// must be in the final document. A lost update means the precondition was
// not checked atomically with the write.
func TestConditionalPutNoLostUpdate(t *testing.T) {
	for _, conflict := range []bool{true, false} {
		t.Run(fmt.Sprintf("conflictOnOverlap=%v", conflict), func(t *testing.T) {
			s, _ := startServer(t, WithConflictOnOverlap(conflict))
			seed(t, s, "counter", []byte("0"))
			url, client := objectURL(s, "counter"), s.Client()
			const writers, increments = 4, 10
			var wg sync.WaitGroup
			for range writers {
				wg.Go(func() {
					for range increments {
						increment(t, client, url)
					}
				})
			}
			wg.Wait()
			if got := string(stored(t, s, "counter")); got != strconv.Itoa(writers*increments) {
				t.Fatalf("counter = %s, want %d: an update was lost", got, writers*increments)
			}
		})
	}
}

// increment adds one to the number at url with GET then PUT If-Match,
// retrying until the PUT is accepted (bounded). It runs on goroutines
// other than the test's, so it reports with t.Errorf.
func increment(t *testing.T, client *http.Client, url string) {
	for range 1000 {
		get, err := signedDo(client, http.MethodGet, url, nil, nil, signing{})
		if err != nil {
			t.Error(err)
			return
		}
		n, err := strconv.Atoi(string(get.body))
		if get.status != http.StatusOK || err != nil {
			t.Errorf("GET = %d %q", get.status, get.body)
			return
		}
		put, err := signedDo(client, http.MethodPut, url, []byte(strconv.Itoa(n+1)),
			http.Header{"If-Match": {get.header.Get("ETag")}}, signing{})
		if err != nil {
			t.Error(err)
			return
		}
		switch put.status {
		case http.StatusOK:
			return
		case http.StatusConflict, http.StatusPreconditionFailed:
		default:
			t.Errorf("PUT = %d %q", put.status, put.code)
			return
		}
	}
	t.Errorf("increment did not succeed in 1000 tries")
}
