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
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// staticGET answers every GET with the given content type, ETag (none when
// "") and body, and every other method with 405: a server the client must
// refuse to write to never sees a PUT succeed.
func staticGET(contentType, etag, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			http.Error(w, "read only", http.StatusMethodNotAllowed)
			return
		}
		if etag != "" {
			w.Header().Set("ETag", etag)
		}
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write([]byte(body))
	}
}

// hugeJSON streams a JSON array of about size bytes that is never held in
// memory whole: one 64 KiB chunk is written again and again. With
// declareLength, it announces the size in Content-Length first.
func hugeJSON(size int64, declareLength bool) http.HandlerFunc {
	chunk := []byte(strings.Repeat(`"xxxxxxxxxxxxxxxxxxxxxxxxxxxxx",`, 2048)) // 64 KiB
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			http.Error(w, "read only", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("ETag", `"huge"`)
		w.Header().Set("Content-Type", "application/json")
		if declareLength {
			w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
		}
		if _, err := w.Write([]byte("[")); err != nil {
			return
		}
		for written := int64(1); written+int64(len(chunk)) < size; written += int64(len(chunk)) {
			if _, err := w.Write(chunk); err != nil {
				return // the client hung up, as it should
			}
		}
	}
}

// drip sends the headers at once and then one byte of a valid document
// every interval, until the client goes away.
func drip(interval time.Duration) http.HandlerFunc {
	body := []byte(`["` + strings.Repeat("d", 200) + `"]`)
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"drip"`)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for _, b := range body {
			if _, err := w.Write([]byte{b}); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
			select {
			case <-tick.C:
			case <-r.Context().Done():
				return
			}
		}
	}
}

// endlessConflict hands out a new ETag on every GET although the document
// never changes, and answers every PUT with 412.
func endlessConflict() http.HandlerFunc {
	var n atomic.Int64
	return func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			w.Header().Set("ETag", fmt.Sprintf(`"g%d"`, n.Add(1)))
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`["a"]`))
		default:
			http.Error(w, "precondition failed", http.StatusPreconditionFailed)
		}
	}
}

// noETagOnPUT is a correct conditional store whose successful PUT answers
// carry no ETag (as some APIs and object stores do).
type noETagOnPUT struct {
	mu      sync.Mutex
	version int
	body    []byte
}

func (s *noETagOnPUT) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	etag := fmt.Sprintf(`"n%d"`, s.version)
	switch r.Method {
	case http.MethodGet:
		w.Header().Set("ETag", etag)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(s.body)
	case http.MethodPut:
		if r.Header.Get("If-Match") != etag {
			http.Error(w, "precondition failed", http.StatusPreconditionFailed)
			return
		}
		var b bytes.Buffer
		if _, err := b.ReadFrom(r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.body, s.version = b.Bytes(), s.version+1
		w.WriteHeader(http.StatusOK)
	default:
		http.Error(w, "no", http.StatusMethodNotAllowed)
	}
}

// redirectTo answers the given method with a redirect to target, and
// serves everything else from next.
func redirectTo(method string, code int, target string, next http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method == method {
			http.Redirect(w, r, target, code)
			return
		}
		next.ServeHTTP(w, r)
	}
}

// otherHost is a second server that must never see a request.
type otherHost struct {
	ts   *httptest.Server
	seen atomic.Int64
	auth atomic.Int64 // requests that carried an Authorization header
}

func startOtherHost(t *testing.T) *otherHost {
	t.Helper()
	o := &otherHost{}
	o.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.seen.Add(1)
		if r.Header.Get("Authorization") != "" {
			o.auth.Add(1)
		}
		w.Header().Set("ETag", `"stolen"`)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`[]`))
	}))
	t.Cleanup(o.ts.Close)
	return o
}

// TestBadServer checks that the client refuses to write to a server that
// misbehaves, with a typed error, without any write, and without leaking
// the secret header or query value into the error.
func TestBadServer(t *testing.T) {
	const initial = `{"items":["a","b"],"v":1.50}`
	type env struct {
		rec   *recorder
		fake  *fakeEnv   // when the case runs on fakeapi
		other *otherHost // when the case needs a second host
		clock *fakeClock
	}
	tests := []struct {
		name string
		// Either fake options (the case runs on fakeapi with the initial
		// document) or a handler built per run.
		fake    []fakeapi.Option
		handler func(t *testing.T, other *otherHost, fake http.Handler) http.Handler
		pointer string
		opts    []etagclient.Option
		wantErr error
		// wantPuts is the number of PUTs that reach the server; a write
		// happens only when the case says so in check.
		wantPuts int
		maxTime  time.Duration
		check    func(t *testing.T, c *etagclient.Client, e env)
	}{
		{
			name: "HTML error page with an ETag",
			handler: func(*testing.T, *otherHost, http.Handler) http.Handler {
				return staticGET("text/html; charset=utf-8", `"h1"`, `<!doctype html><title>Sign in</title>`)
			},
			wantErr: etagclient.ErrNotJSON,
		},
		{
			name: "HTML error page without an ETag",
			handler: func(*testing.T, *otherHost, http.Handler) http.Handler {
				return staticGET("text/html", "", `<html><body>502 Bad Gateway</body></html>`)
			},
			wantErr: etagclient.ErrNotJSON,
		},
		{
			name: "truncated JSON",
			handler: func(*testing.T, *otherHost, http.Handler) http.Handler {
				return staticGET("application/json", `"t1"`, `{"items":["a","b"`)
			},
			pointer: "/items",
			wantErr: etagclient.ErrNotJSON,
		},
		{
			name: "wrong content type: application/xml",
			handler: func(*testing.T, *otherHost, http.Handler) http.Handler {
				return staticGET("application/xml", `"x1"`, `<items><item>a</item></items>`)
			},
			wantErr: etagclient.ErrNotJSON,
		},
		{
			name:    "50 MB body streamed without a length (default 8 MiB limit)",
			handler: func(*testing.T, *otherHost, http.Handler) http.Handler { return hugeJSON(50<<20, false) },
			wantErr: etagclient.ErrTooLarge,
		},
		{
			name:    "50 MB body with Content-Length",
			handler: func(*testing.T, *otherHost, http.Handler) http.Handler { return hugeJSON(50<<20, true) },
			wantErr: etagclient.ErrTooLarge,
		},
		{
			name:    "missing ETag",
			fake:    []fakeapi.Option{fakeapi.WithETagMode(fakeapi.ETagNone)},
			pointer: "/items",
			wantErr: etagclient.ErrMissingETag,
		},
		{
			name:    "weak ETag",
			fake:    []fakeapi.Option{fakeapi.WithETagMode(fakeapi.ETagWeak)},
			pointer: "/items",
			wantErr: etagclient.ErrWeakETag,
		},
		{
			name: "malformed ETag",
			handler: func(*testing.T, *otherHost, http.Handler) http.Handler {
				return staticGET("application/json", `v1-unquoted`, `["a"]`)
			},
			wantErr: etagclient.ErrMalformedETag,
		},
		{
			name:    "pointer to an object",
			pointer: "/items",
			handler: func(*testing.T, *otherHost, http.Handler) http.Handler {
				return staticGET("application/json", `"o1"`, `{"items":{"a":1}}`)
			},
			wantErr: etagclient.ErrNotArray,
		},
		{
			name:    "pointer to a missing member",
			pointer: "/entries",
			fake:    []fakeapi.Option{},
			wantErr: etagclient.ErrNotArray,
		},
		{
			name: "pointer to an array of numbers",
			handler: func(*testing.T, *otherHost, http.Handler) http.Handler {
				return staticGET("application/json", `"o2"`, `[1,2,3]`)
			},
			wantErr: etagclient.ErrNotArray,
		},
		{
			name: "pointer to an array holding null",
			handler: func(*testing.T, *otherHost, http.Handler) http.Handler {
				return staticGET("application/json", `"o3"`, `["a",null]`)
			},
			wantErr: etagclient.ErrNotArray,
		},
		{
			name:    "a new ETag on every GET and 412 on every PUT",
			handler: func(*testing.T, *otherHost, http.Handler) http.Handler { return endlessConflict() },
			opts: []etagclient.Option{etagclient.WithConflictPolicy(etagclient.ConflictPolicy{
				InitialInterval: 10 * time.Millisecond, MaxInterval: time.Second, Multiplier: 2,
				RandomizationFactor: 0.5, MaxAttempts: 5, MaxElapsedTime: time.Hour,
			})},
			wantErr:  etagclient.ErrConflictRetriesExhausted,
			wantPuts: 5,
			check: func(t *testing.T, _ *etagclient.Client, e env) {
				if got := e.rec.sequence(); !slices.Equal(got, []string{
					"GET 200", "PUT 412", "GET 200", "PUT 412", "GET 200", "PUT 412", "GET 200", "PUT 412", "GET 200", "PUT 412",
				}) {
					t.Errorf("requests = %q, want 5 rounds of GET 200, PUT 412", got)
				}
				if w := e.clock.Waits(); len(w) != 4 {
					t.Errorf("backed off %d times (%v), want 4", len(w), w)
				}
			},
		},
		{
			name: "500 on every GET: StatusError after the transport retries",
			handler: func(*testing.T, *otherHost, http.Handler) http.Handler {
				return answerAll(http.StatusInternalServerError)
			},
			wantErr: etagclient.ErrUnreachable,
			check: func(t *testing.T, _ *etagclient.Client, e env) {
				if n := e.rec.count(http.MethodGet); n != etagclient.DefaultTransportRetries+1 {
					t.Errorf("%d GETs, want %d", n, etagclient.DefaultTransportRetries+1)
				}
			},
		},
		{
			name: "200 to a PUT without an ETag: committed, and the next change re-reads",
			handler: func(*testing.T, *otherHost, http.Handler) http.Handler {
				return &noETagOnPUT{body: []byte(initial)}
			},
			pointer:  "/items",
			wantPuts: 2,
			check: func(t *testing.T, c *etagclient.Client, e env) {
				res, err := c.Update(context.Background(), etagclient.Change{Add: []string{"second"}})
				wantErrIs(t, err, nil)
				if !res.Written || res.Items != 4 || res.ETag != "" {
					t.Errorf("second Result = %+v, want Written, 4 items and no ETag", res)
				}
				want := []string{"GET 200", "PUT 200", "GET 200", "PUT 200"}
				if got := e.rec.sequence(); !slices.Equal(got, want) {
					t.Errorf("requests = %q, want %q: a GET must come before the next PUT", got, want)
				}
				for _, r := range e.rec.requests() {
					if r.Method == http.MethodPut && r.Header.Get("If-Match") == "" {
						t.Errorf("a PUT went out without If-Match")
					}
				}
			},
		},
		{
			name:    "a slow drip of bytes: the request timeout fires",
			handler: func(*testing.T, *otherHost, http.Handler) http.Handler { return drip(100 * time.Millisecond) },
			opts:    []etagclient.Option{etagclient.WithRequestTimeout(300 * time.Millisecond)},
			wantErr: etagclient.ErrUnreachable,
			maxTime: 3 * time.Second,
		},
		{
			name: "a GET redirected to another host",
			handler: func(t *testing.T, other *otherHost, _ http.Handler) http.Handler {
				return redirectTo(http.MethodGet, http.StatusFound, other.ts.URL+"/elsewhere?token="+queryToken, nil)
			},
			wantErr: etagclient.ErrRedirect,
		},
		{
			name: "a PUT redirected (307) to another host",
			handler: func(t *testing.T, other *otherHost, fake http.Handler) http.Handler {
				return redirectTo(http.MethodPut, http.StatusTemporaryRedirect, other.ts.URL+listPath+"?token="+queryToken, fake)
			},
			pointer:  "/items",
			wantErr:  etagclient.ErrRedirect,
			wantPuts: 1, // answered by the redirect, never stored
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := env{other: startOtherHost(t), clock: newFakeClock()}
			var url string
			if tt.handler == nil {
				e.fake = startFake(t, tt.fake...)
				e.fake.set(t, initial)
				e.rec, url = e.fake.rec, e.fake.url
			} else {
				// The handler is in front of a strict fake holding the
				// initial document: the cases that redirect PUTs serve
				// GETs from it, the others never reach it, and either way
				// it must end unchanged.
				e.fake = startFake(t)
				e.fake.set(t, initial)
				e.rec = &recorder{next: tt.handler(t, e.other, e.fake.api)}
				ts := httptest.NewServer(e.rec)
				t.Cleanup(ts.Close)
				url = listURL(ts)
			}
			c := newClient(t, url, append([]etagclient.Option{
				etagclient.WithItemsPointer(tt.pointer), etagclient.WithClock(e.clock),
			}, tt.opts...)...)

			start := time.Now()
			_, err := c.Update(context.Background(), etagclient.Change{Add: []string{"new"}})
			elapsed := time.Since(start)
			wantErrIs(t, err, tt.wantErr)
			if err != nil {
				t.Logf("error: %v", err)
			}
			if tt.maxTime > 0 && elapsed > tt.maxTime {
				t.Errorf("Update took %s, want at most %s", elapsed, tt.maxTime)
			}
			if tt.check != nil {
				tt.check(t, c, e)
			}
			if got := e.rec.count(http.MethodPut); got != tt.wantPuts {
				t.Errorf("server saw %d PUTs, want %d", got, tt.wantPuts)
			}
			if tt.wantPuts == 0 || errors.Is(tt.wantErr, etagclient.ErrRedirect) {
				if got := e.fake.body(t); got != initial {
					t.Errorf("document changed to %s", got)
				}
				if n := e.fake.api.Stats().Commits; n != 0 {
					t.Errorf("fake server committed %d writes", n)
				}
			}
			if n := e.other.seen.Load(); n != 0 {
				t.Errorf("the other host saw %d requests (%d with Authorization)", n, e.other.auth.Load())
			}
		})
	}
}

// answerAll answers every request with code.
func answerAll(code int) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, http.StatusText(code), code)
	}
}
