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
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// The tests in this file pin promises of the client that real servers put
// to the test (issue 9). Each runs its own small list server (listServer),
// not fakeapi, so that the server does exactly what the test says and
// nothing more.

// listServer is a list API on 127.0.0.1: one JSON document at listPath
// with strong ETags "v1", "v2", ..., GET with If-None-Match (304), PUT with
// If-Match (204 and the new ETag; 412 when stale; 428 without If-Match).
// A hook may answer any request instead. It records every request. It is
// safe for concurrent use.
type listServer struct {
	ts   *httptest.Server
	hook listHook

	mu      sync.Mutex
	body    []byte
	version int
	commits int // writes committed through commitIfMatch
	seen    []seenRequest
}

// listHook answers r itself and returns true, or returns false to leave r
// to the default handling. nth counts the requests of r's method so far,
// r included. It runs without the server's lock, so it may block.
type listHook func(s *listServer, w http.ResponseWriter, r *http.Request, nth int) bool

// seenRequest is one request a listServer received.
type seenRequest struct {
	Method string
	Path   string
	Header http.Header
}

// startListServer serves initial at listPath until the test ends.
func startListServer(t *testing.T, initial string, hook listHook) *listServer {
	t.Helper()
	return startListServerWith(t, initial, hook, nil)
}

// startListServerWith is startListServer with a chance to configure the
// httptest.Server before it starts.
func startListServerWith(t *testing.T, initial string, hook listHook, configure func(*httptest.Server)) *listServer {
	t.Helper()
	s := &listServer{hook: hook, body: []byte(initial), version: 1}
	s.ts = httptest.NewUnstartedServer(s)
	if configure != nil {
		configure(s.ts)
	}
	s.ts.Start()
	t.Cleanup(s.ts.Close)
	return s
}

// url is the list's URL, with a query token that must never leak.
func (s *listServer) url() string { return listURL(s.ts) }

func (s *listServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.seen = append(s.seen, seenRequest{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone()})
	nth := 0
	for _, q := range s.seen {
		if q.Method == r.Method {
			nth++
		}
	}
	s.mu.Unlock()
	if s.hook != nil && s.hook(s, w, r, nth) {
		return
	}
	if r.URL.Path != listPath {
		http.NotFound(w, r)
		return
	}
	switch r.Method {
	case http.MethodGet:
		s.serveGET(w, r)
	case http.MethodPut:
		tag, _, code := s.commitIfMatch(r, nil)
		if code != http.StatusOK {
			http.Error(w, http.StatusText(code), code)
			return
		}
		w.Header().Set("ETag", tag)
		w.WriteHeader(http.StatusNoContent)
	default:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// tagLocked is the current strong ETag; s.mu must be held.
func (s *listServer) tagLocked() string { return fmt.Sprintf(`"v%d"`, s.version) }

func (s *listServer) serveGET(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tag := s.tagLocked()
	w.Header().Set("ETag", tag)
	if r.Header.Get("If-None-Match") == tag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(s.body)
}

// commitIfMatch stores r's body, passed through transform when not nil,
// if r's If-Match is the current ETag. It returns the new ETag, what was
// stored and 200, or the status that refuses the write.
func (s *listServer) commitIfMatch(r *http.Request, transform func([]byte) []byte) (string, []byte, int) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return "", nil, http.StatusBadRequest
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.Header.Get("If-Match") {
	case "":
		return "", nil, http.StatusPreconditionRequired
	case s.tagLocked():
	default:
		return "", nil, http.StatusPreconditionFailed
	}
	if transform != nil {
		body = transform(body)
	}
	s.body, s.version, s.commits = body, s.version+1, s.commits+1
	return s.tagLocked(), body, http.StatusOK
}

// otherWriter commits body (the current one when nil) as another writer
// would: a new version that the client has not seen.
func (s *listServer) otherWriter(body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if body != nil {
		s.body = body
	}
	s.version++
}

// stored returns the document as stored now.
func (s *listServer) stored() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.body)
}

// committed returns how many client writes were committed.
func (s *listServer) committed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.commits
}

// requests returns the requests seen so far, in order of arrival.
func (s *listServer) requests() []seenRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.seen)
}

// count returns how many requests with method reached the server, on any
// path.
func (s *listServer) count(method string) int {
	n := 0
	for _, r := range s.requests() {
		if r.Method == method {
			n++
		}
	}
	return n
}

// tinyPolicy is a conflict policy of at most maxAttempts PUTs whose waits
// are a millisecond (and, with the fake clock of newClient, never slept).
func tinyPolicy(maxAttempts int) etagclient.ConflictPolicy {
	return etagclient.ConflictPolicy{
		InitialInterval: time.Millisecond,
		MaxInterval:     time.Millisecond,
		Multiplier:      1,
		MaxAttempts:     maxAttempts,
		MaxElapsedTime:  time.Minute,
	}
}

// noTransportRetries makes every HTTP request a single attempt.
var noTransportRetries = etagclient.WithTransportRetries(0, time.Millisecond, time.Millisecond)

// ownedClient builds a Client with testOptions followed by opts, for a
// test that closes it itself: the returned function closes it once, and
// the test's cleanup calls it too.
func ownedClient(t *testing.T, rawURL string, opts ...etagclient.Option) (*etagclient.Client, func()) {
	t.Helper()
	c, err := etagclient.New(rawURL, append(testOptions(newFakeClock()), opts...)...)
	if err != nil {
		t.Fatalf("etagclient.New: %v", err)
	}
	var once sync.Once
	closeOnce := func() { once.Do(c.Close) }
	t.Cleanup(closeOnce)
	return c, closeOnce
}

// waitDone waits for p to complete and returns its outcome; the test fails
// when that takes more than 5 seconds.
func waitDone(t *testing.T, what string, p *etagclient.Pending) (etagclient.Result, error) {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: not complete after 5s", what)
	}
	return p.Result()
}

// waitFor waits for ch to be closed; the test fails after 5 seconds.
func waitFor(t *testing.T, what string, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s did not happen within 5s", what)
	}
}

// expectErrIs is wantErrIs that lets the test go on, so that its later
// checks report too.
func expectErrIs(t *testing.T, err, want error) {
	t.Helper()
	checkNoSecrets(t, err)
	switch {
	case want == nil && err != nil:
		t.Errorf("err = %v, want nil", err)
	case want != nil && !errors.Is(err, want):
		t.Errorf("err = %v, want one wrapping %v", err, want)
	}
}

// submit queues ch on c and fails the test when Submit refuses it.
func submit(t *testing.T, c *etagclient.Client, ch etagclient.Change) *etagclient.Pending {
	t.Helper()
	p, err := c.Submit(ch, nil)
	if err != nil {
		t.Fatalf("Submit(%+v): %v", ch, err)
	}
	return p
}

// TestPutRedirectIsNeverFollowed: a redirect answering a PUT is reported
// as ErrWriteRedirected (an ErrRejected), naming the Location so that the
// user can point spec.url at it; it is never followed. Following it would
// turn the PUT into a GET (301, 302, 303), whose 200 looks like the commit
// of a write that was never stored, or re-send the PUT to a document that
// spec.url does not name (307, 308). GETs may still follow redirects
// within the origin.
func TestPutRedirectIsNeverFollowed(t *testing.T) {
	const (
		initial   = `["a"]`
		elsewhere = "/elsewhere/list"
	)
	for _, code := range []int{
		http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect,
	} {
		t.Run(fmt.Sprintf("PUT answered %d", code), func(t *testing.T) {
			s := startListServer(t, initial, func(_ *listServer, w http.ResponseWriter, r *http.Request, _ int) bool {
				switch {
				case r.URL.Path == elsewhere:
					// Answers every method with a document that shows
					// the change: what a client that followed the
					// redirect would take for a commit.
					_, _ = io.Copy(io.Discard, r.Body)
					w.Header().Set("ETag", `"elsewhere-1"`)
					w.Header().Set("Content-Type", "application/json")
					_, _ = w.Write([]byte(`["a","x"]`))
					return true
				case r.Method == http.MethodPut:
					_, _ = io.Copy(io.Discard, r.Body)
					http.Redirect(w, r, elsewhere+"?token="+queryToken, code)
					return true
				}
				return false
			})
			c := newClient(t, s.url(), noTransportRetries, etagclient.WithConflictPolicy(tinyPolicy(5)))

			res, err := c.Update(context.Background(), etagclient.Change{Add: []string{"x"}})
			checkNoSecrets(t, err)
			if !errors.Is(err, etagclient.ErrWriteRedirected) || !errors.Is(err, etagclient.ErrRejected) {
				t.Errorf("err = %v (Result %+v), want one wrapping ErrWriteRedirected and ErrRejected", err, res)
			} else if msg := err.Error(); !strings.Contains(msg, elsewhere) || !strings.Contains(msg, "spec.url") {
				t.Errorf("err = %q, want it to name the Location %s and spec.url", msg, elsewhere)
			}
			if res.Written {
				t.Errorf("Result = %+v, want Written false", res)
			}
			if n := s.count(http.MethodPut); n != 1 {
				t.Errorf("%d PUTs reached the server, want 1", n)
			}
			for _, r := range s.requests() {
				if r.Path == elsewhere {
					t.Errorf("%s %s (If-Match %q) reached the Location; a redirected PUT must not be followed",
						r.Method, r.Path, r.Header.Get("If-Match"))
				}
			}
			if got := s.stored(); got != initial || s.committed() != 0 {
				t.Errorf("stored %s after %d commits, want %s unchanged", got, s.committed(), initial)
			}
		})
	}

	t.Run("GET redirected within the origin is followed", func(t *testing.T) {
		s := startListServer(t, `["a"]`, func(_ *listServer, w http.ResponseWriter, r *http.Request, _ int) bool {
			switch {
			case r.Method != http.MethodGet:
				return false
			case r.URL.Path == listPath:
				http.Redirect(w, r, "/lists/b?token="+queryToken, http.StatusFound)
			case r.URL.Path == "/lists/b":
				w.Header().Set("ETag", `"b1"`)
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`["b1","b2"]`))
			default:
				http.NotFound(w, r)
			}
			return true
		})
		c := newClient(t, s.url(), noTransportRetries)
		snap, err := c.Read(context.Background())
		wantErrIs(t, err, nil)
		if want := []string{"b1", "b2"}; !slices.Equal(snap.Items, want) || snap.ETag != `"b1"` {
			t.Errorf("Read = %+v, want items %q with ETag \"b1\"", snap, want)
		}
	})
}

// TestSameIDChangesSettleInSubmissionOrder: changes of one ID settle in
// the order they were submitted, even when they share a cycle. Settling
// each change on its own against the read ("does it hold?") would complete
// a later change that holds while an earlier one that does not is still
// written, and the earlier one would win.
func TestSameIDChangesSettleInSubmissionOrder(t *testing.T) {
	tests := []struct {
		name          string
		initial       string
		first, second etagclient.Change
		wantX         bool
	}{
		{
			name:    "add then remove in one cycle: x is not on the list",
			initial: `["a"]`,
			first:   etagclient.Change{Add: []string{"x"}},
			second:  etagclient.Change{Remove: []string{"x"}},
			wantX:   false,
		},
		{
			name:    "remove then add in one cycle: x is on the list",
			initial: `["a","x"]`,
			first:   etagclient.Change{Remove: []string{"x"}},
			second:  etagclient.Change{Add: []string{"x"}},
			wantX:   true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			arrived, release := make(chan struct{}), make(chan struct{})
			var releaseOnce sync.Once
			s := startListServer(t, tt.initial, func(_ *listServer, _ http.ResponseWriter, r *http.Request, nth int) bool {
				if r.Method == http.MethodGet && nth == 1 {
					close(arrived)
					select {
					case <-release:
					case <-r.Context().Done():
					}
				}
				return false
			})
			t.Cleanup(func() { releaseOnce.Do(func() { close(release) }) }) // before the server closes
			c := newClient(t, s.url())

			// An unrelated change starts a cycle whose GET is held, so
			// that the two changes of x queue up for the next cycle.
			unrelated := submit(t, c, etagclient.Change{Add: []string{"unrelated"}})
			waitFor(t, "the first GET", arrived)
			first := submit(t, c, tt.first)
			second := submit(t, c, tt.second)
			releaseOnce.Do(func() { close(release) })

			for _, p := range []struct {
				name string
				p    *etagclient.Pending
			}{{"unrelated", unrelated}, {"first", first}, {"second", second}} {
				_, err := waitDone(t, p.name, p.p)
				if err != nil {
					t.Errorf("%s change: %v", p.name, err)
				}
			}
			items := itemsOf(t, []byte(s.stored()), "")
			if got := slices.Contains(items, "x"); got != tt.wantX {
				t.Errorf("stored %s: x present = %v, want %v (%+v then %+v)", s.stored(), got, tt.wantX, tt.first, tt.second)
			}
			if !slices.Contains(items, "unrelated") || !slices.Contains(items, "a") {
				t.Errorf("stored %s, want a and unrelated on it", s.stored())
			}
		})
	}

	t.Run("an add given up during a 412 backoff, then a remove: x is not on the list", func(t *testing.T) {
		s := startListServer(t, `["a"]`, func(s *listServer, w http.ResponseWriter, r *http.Request, nth int) bool {
			if r.Method == http.MethodPut && nth == 1 {
				s.otherWriter(nil) // another writer won
				http.Error(w, "precondition failed", http.StatusPreconditionFailed)
				return true
			}
			return false
		})
		clock := newHoldClock()
		t.Cleanup(clock.release)
		c := newClient(t, s.url(), etagclient.WithClock(clock), etagclient.WithConflictPolicy(tinyPolicy(10)))

		addCtx, giveUp := context.WithCancel(context.Background())
		defer giveUp()
		addErr := make(chan error, 1)
		go func() {
			_, err := c.Update(addCtx, etagclient.Change{Add: []string{"x"}})
			addErr <- err
		}()
		waitFor(t, "the backoff after the 412", clock.held)
		giveUp() // the add's caller stops waiting while its cycle backs off
		select {
		case err := <-addErr:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("add: err = %v, want context.Canceled", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the add's Update did not return after its ctx ended")
		}
		remove := submit(t, c, etagclient.Change{Remove: []string{"x"}})
		clock.release()
		if _, err := waitDone(t, "remove", remove); err != nil {
			t.Fatalf("remove: %v", err)
		}
		// A Read queues behind whatever the client still has in flight.
		snap, err := c.Read(context.Background())
		wantErrIs(t, err, nil)
		if slices.Contains(itemsOf(t, []byte(s.stored()), ""), "x") || slices.Contains(snap.Items, "x") {
			t.Errorf("stored %s (Read %q): x is on the list after a remove submitted later returned OK", s.stored(), snap.Items)
		}
	})
}

// holdClock is an etagclient.Clock whose first wait longer than zero lasts
// until release is called; every other wait fires at once. held is closed
// when that first wait begins. It is safe for concurrent use.
type holdClock struct {
	held    chan struct{}
	fire    chan time.Time // closed by release
	once    sync.Once
	mu      sync.Mutex
	now     time.Time
	holding bool
}

var _ etagclient.Clock = (*holdClock)(nil)

func newHoldClock() *holdClock {
	return &holdClock{held: make(chan struct{}), fire: make(chan time.Time), now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

// Now returns the fake time.
func (c *holdClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After holds the first wait longer than zero, and fires every other one
// at once.
func (c *holdClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	if d > 0 && !c.holding {
		c.holding = true
		close(c.held)
		return c.fire
	}
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

// release ends the held wait (now or, when it has not begun, at once when
// it does).
func (c *holdClock) release() { c.once.Do(func() { close(c.fire) }) }

// TestPutAnswerBodyIsNotCachedAsDocument: the body of a PUT answer reports
// the outcome; it is not the stored document, unless Content-Location says
// it is the representation of the list's URL. Caching a report such as []
// made the next change, computed from the cache, wipe the list.
func TestPutAnswerBodyIsNotCachedAsDocument(t *testing.T) {
	t.Run("a report body is not the document", func(t *testing.T) {
		s := startListServer(t, `["a","b","c","d"]`, func(s *listServer, w http.ResponseWriter, r *http.Request, _ int) bool {
			if r.Method != http.MethodPut {
				return false
			}
			tag, _, code := s.commitIfMatch(r, nil)
			if code != http.StatusOK {
				http.Error(w, http.StatusText(code), code)
				return true
			}
			w.Header().Set("ETag", tag)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`[]`)) // a report: "no errors"
			return true
		})
		c := newClient(t, s.url())
		for _, id := range []string{"e", "f"} {
			if _, err := c.Update(context.Background(), etagclient.Change{Add: []string{id}}); err != nil {
				t.Fatalf("add %s: %v", id, err)
			}
		}
		want := []string{"a", "b", "c", "d", "e", "f"}
		if got := itemsOf(t, []byte(s.stored()), ""); !slices.Equal(got, want) {
			t.Errorf("stored %s, want items %q", s.stored(), want)
		}
		if n := s.count(http.MethodPut); n != 2 || s.committed() != 2 {
			t.Errorf("%d PUTs, %d commits; want 2 and 2", n, s.committed())
		}
	})

	t.Run("with Content-Location of the list the body is the stored document", func(t *testing.T) {
		// The server stamps the first write with "rev":1 and answers with
		// the stored document; a later write that lacks the stamp would
		// store a document without it.
		s := startListServer(t, `{"items":["a"]}`, func(s *listServer, w http.ResponseWriter, r *http.Request, _ int) bool {
			if r.Method != http.MethodPut {
				return false
			}
			tag, stored, code := s.commitIfMatch(r, func(b []byte) []byte {
				if bytes.Contains(b, []byte(`"rev":`)) {
					return b
				}
				return append([]byte(`{"rev":1,`), bytes.TrimPrefix(b, []byte(`{`))...)
			})
			if code != http.StatusOK {
				http.Error(w, http.StatusText(code), code)
				return true
			}
			w.Header().Set("ETag", tag)
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Location", "http://"+r.Host+r.URL.RequestURI())
			_, _ = w.Write(stored)
			return true
		})
		c := newClient(t, s.url(), etagclient.WithItemsPointer("/items"))
		for _, id := range []string{"b", "c"} {
			if _, err := c.Update(context.Background(), etagclient.Change{Add: []string{id}}); err != nil {
				t.Fatalf("add %s: %v", id, err)
			}
		}
		if want := `{"rev":1,"items":["a","b","c"]}`; s.stored() != want {
			t.Errorf("stored %s, want %s", s.stored(), want)
		}
		if n := s.count(http.MethodPut); n != 2 {
			t.Errorf("%d PUTs, want 2", n)
		}
	})
}

// TestContentCodingETagsDoNotLivelock: content coding must not change the
// ETag the client writes with. Apache's mod_deflate appends "-gzip" to the
// ETag of a compressed answer, matches it for If-None-Match but not for
// If-Match, so every PUT lost with 412 and every re-read said 304; nginx
// weakens the ETag of a compressed answer. The client asks for identity.
// Also: the re-read after a 412 is unconditional, and a 304 that carries
// an ETag replaces the cached one.
func TestContentCodingETagsDoNotLivelock(t *testing.T) {
	gzipped := func(b []byte) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write(b)
		_ = zw.Close()
		return buf.Bytes()
	}
	// codingServer answers GETs with getTag(strong ETag, gzip accepted),
	// compressing when gzip is accepted; notModified compares an
	// If-None-Match with the strong ETag. PUTs compare If-Match strictly.
	codingServer := func(getTag func(strong string, gz bool) string, notModified func(inm, strong string) bool) listHook {
		return func(s *listServer, w http.ResponseWriter, r *http.Request, _ int) bool {
			if r.Method != http.MethodGet {
				return false
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			strong := s.tagLocked()
			gz := strings.Contains(r.Header.Get("Accept-Encoding"), "gzip")
			w.Header().Set("ETag", getTag(strong, gz))
			if inm := r.Header.Get("If-None-Match"); inm != "" && notModified(inm, strong) {
				w.WriteHeader(http.StatusNotModified)
				return true
			}
			w.Header().Set("Content-Type", "application/json")
			if gz {
				w.Header().Set("Content-Encoding", "gzip")
				_, _ = w.Write(gzipped(s.body))
			} else {
				_, _ = w.Write(s.body)
			}
			return true
		}
	}
	tests := []struct {
		name        string
		getTag      func(strong string, gz bool) string
		notModified func(inm, strong string) bool
	}{
		{
			name: "Apache mod_deflate: -gzip suffix",
			getTag: func(strong string, gz bool) string {
				if gz {
					return strings.TrimSuffix(strong, `"`) + `-gzip"`
				}
				return strong
			},
			notModified: func(inm, strong string) bool { return strings.Replace(inm, `-gzip"`, `"`, 1) == strong },
		},
		{
			name: "nginx: weakened when compressed",
			getTag: func(strong string, gz bool) string {
				if gz {
					return "W/" + strong
				}
				return strong
			},
			notModified: func(inm, strong string) bool { return strings.TrimPrefix(inm, "W/") == strong },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startListServer(t, `["a"]`, codingServer(tt.getTag, tt.notModified))
			c := newClient(t, s.url(), etagclient.WithConflictPolicy(tinyPolicy(10)))
			_, err := c.Update(context.Background(), etagclient.Change{Add: []string{"x"}})
			expectErrIs(t, err, nil)
			if n := s.count(http.MethodPut); n > 4 {
				t.Errorf("%d PUTs, want at most 4", n)
			}
			for i, r := range s.requests() {
				if r.Method == http.MethodGet && r.Header.Get("Accept-Encoding") != "identity" {
					t.Errorf("request %d: GET with Accept-Encoding %q, want identity", i, r.Header.Get("Accept-Encoding"))
					break
				}
			}
			if want := `["a","x"]`; s.stored() != want {
				t.Errorf("stored %s, want %s", s.stored(), want)
			}
		})
	}

	t.Run("the re-read after a 412 carries no If-None-Match", func(t *testing.T) {
		// A 412 the client cannot explain from its copy: revalidating that
		// copy would only confirm it.
		s := startListServer(t, `["a"]`, func(_ *listServer, w http.ResponseWriter, r *http.Request, nth int) bool {
			if r.Method == http.MethodPut && nth == 1 {
				_, _ = io.Copy(io.Discard, r.Body)
				http.Error(w, "precondition failed", http.StatusPreconditionFailed)
				return true
			}
			return false
		})
		c := newClient(t, s.url(), etagclient.WithConflictPolicy(tinyPolicy(10)))
		_, err := c.Update(context.Background(), etagclient.Change{Add: []string{"x"}})
		expectErrIs(t, err, nil)
		afterPUT := false
		for i, r := range s.requests() {
			switch {
			case r.Method == http.MethodPut:
				afterPUT = true
			case afterPUT && r.Method == http.MethodGet && r.Header.Get("If-None-Match") != "":
				t.Errorf("request %d: the re-read after the 412 sent If-None-Match %q", i, r.Header.Get("If-None-Match"))
			}
		}
		if want := `["a","x"]`; s.stored() != want {
			t.Errorf("stored %s, want %s", s.stored(), want)
		}
	})

	t.Run("a 304 with an ETag replaces the cached ETag", func(t *testing.T) {
		// The server changes how it spells the ETag of the same version
		// (as after an upgrade): If-None-Match accepts either spelling and
		// the 304 carries the new one; If-Match accepts only the new one.
		var spelling atomic.Value
		spelling.Store("r")
		s := startListServer(t, `["a"]`, func(s *listServer, w http.ResponseWriter, r *http.Request, _ int) bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			cur := fmt.Sprintf(`"%s%d"`, spelling.Load(), s.version)
			switch r.Method {
			case http.MethodGet:
				w.Header().Set("ETag", cur)
				inm := r.Header.Get("If-None-Match")
				if inm == fmt.Sprintf(`"r%d"`, s.version) || inm == fmt.Sprintf(`"s%d"`, s.version) {
					w.WriteHeader(http.StatusNotModified)
					return true
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(s.body)
			case http.MethodPut:
				body, _ := io.ReadAll(r.Body)
				if r.Header.Get("If-Match") != cur {
					http.Error(w, "precondition failed", http.StatusPreconditionFailed)
					return true
				}
				s.body, s.version, s.commits = body, s.version+1, s.commits+1
				w.Header().Set("ETag", fmt.Sprintf(`"%s%d"`, spelling.Load(), s.version))
				w.WriteHeader(http.StatusNoContent)
			}
			return true
		})
		c := newClient(t, s.url(), etagclient.WithConflictPolicy(tinyPolicy(10)))
		ctx := context.Background()
		if snap, err := c.Read(ctx); err != nil || snap.ETag != `"r1"` {
			t.Fatalf("first Read = %+v, %v; want ETag \"r1\"", snap, err)
		}
		spelling.Store("s")
		snap, err := c.Read(ctx)
		expectErrIs(t, err, nil)
		if snap.ETag != `"s1"` {
			t.Errorf("Read after a 304 carrying \"s1\": ETag = %s, want \"s1\"", snap.ETag)
		}
		_, err = c.Update(ctx, etagclient.Change{Add: []string{"x"}})
		expectErrIs(t, err, nil)
		var ifMatch []string
		for _, r := range s.requests() {
			if r.Method == http.MethodPut {
				ifMatch = append(ifMatch, r.Header.Get("If-Match"))
			}
		}
		if want := []string{`"s1"`}; !slices.Equal(ifMatch, want) {
			t.Errorf("PUTs sent If-Match %q, want %q", ifMatch, want)
		}
	})
}

// TestPutStatusesAreClassified: a PUT answered with a status that is not
// a lost race ends the cycle at once with the class that status means.
// A 404 is not a conflict to retry until the policy's limit; 401, 403 and
// the refusals are not ErrUnreachable; 409 is a conflict only where the
// server is known to mean it so (S3, Azure: a Dialect whose ConflictStatuses hold 409).
func TestPutStatusesAreClassified(t *testing.T) {
	const maxAttempts = 5
	tests := []struct {
		code     int
		opts     []etagclient.Option
		want     error
		conflict bool // retried as a lost race until the policy's limit
	}{
		{code: http.StatusNotFound, want: etagclient.ErrNotFound},
		{code: http.StatusUnauthorized, want: etagclient.ErrUnauthorized},
		{code: http.StatusForbidden, want: etagclient.ErrUnauthorized},
		{code: http.StatusBadRequest, want: etagclient.ErrRejected},
		{code: http.StatusMethodNotAllowed, want: etagclient.ErrRejected},
		{code: http.StatusLengthRequired, want: etagclient.ErrRejected},
		{code: http.StatusRequestEntityTooLarge, want: etagclient.ErrRejected},
		{code: http.StatusUnsupportedMediaType, want: etagclient.ErrRejected},
		{code: http.StatusUnprocessableEntity, want: etagclient.ErrRejected},
		{code: http.StatusConflict, want: etagclient.ErrRejected},
		{code: http.StatusServiceUnavailable, want: etagclient.ErrUnreachable},
		{
			code:     http.StatusConflict,
			opts:     []etagclient.Option{etagclient.WithDialect(etagclient.Dialect{ConflictStatuses: []int{http.StatusConflict}})},
			want:     etagclient.ErrConflictRetriesExhausted,
			conflict: true,
		},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("%d", tt.code)
		if tt.conflict {
			name += " with a dialect whose conflict is 409"
		}
		t.Run(name, func(t *testing.T) {
			const initial = `["a"]`
			s := startListServer(t, initial, func(_ *listServer, w http.ResponseWriter, r *http.Request, _ int) bool {
				if r.Method != http.MethodPut {
					return false
				}
				_, _ = io.Copy(io.Discard, r.Body)
				http.Error(w, http.StatusText(tt.code), tt.code)
				return true
			})
			opts := append([]etagclient.Option{noTransportRetries, etagclient.WithConflictPolicy(tinyPolicy(maxAttempts))}, tt.opts...)
			c := newClient(t, s.url(), opts...)

			_, err := c.Update(context.Background(), etagclient.Change{Add: []string{"x"}})
			checkNoSecrets(t, err)
			if !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want one wrapping %v", err, tt.want)
			}
			wantPuts := 1
			if tt.conflict {
				wantPuts = maxAttempts
			} else {
				if errors.Is(err, etagclient.ErrConflictRetriesExhausted) {
					t.Errorf("err = %v: a %d is not a lost race", err, tt.code)
				}
				if !errors.Is(tt.want, etagclient.ErrUnreachable) && errors.Is(err, etagclient.ErrUnreachable) {
					t.Errorf("err = %v: a %d answer is not ErrUnreachable", err, tt.code)
				}
			}
			if n := s.count(http.MethodPut); n != wantPuts {
				t.Errorf("%d PUTs, want %d", n, wantPuts)
			}
			if got := s.stored(); got != initial {
				t.Errorf("stored %s, want %s", got, initial)
			}
		})
	}
}

// TestLateJoinerGetsItsOwnRetryBudget: a change that joins a cycle late
// gets the conflict policy's whole budget, counted from its submission,
// rather than the rest of the budget of the cycle it joined (here one
// attempt or two).
func TestLateJoinerGetsItsOwnRetryBudget(t *testing.T) {
	const (
		maxAttempts = 10
		lostPuts    = 12 // PUTs 1..12 lose to another writer; 13 commits
		joinAt      = 8  // B is submitted while the server answers PUT 8
	)
	var (
		client  atomic.Pointer[etagclient.Client]
		joined  = make(chan *etagclient.Pending, 1)
		joinErr = make(chan error, 1)
	)
	s := startListServer(t, `["a"]`, func(s *listServer, w http.ResponseWriter, r *http.Request, nth int) bool {
		if r.Method != http.MethodPut || nth > lostPuts {
			return false
		}
		_, _ = io.Copy(io.Discard, r.Body)
		if nth == joinAt {
			p, err := client.Load().Submit(etagclient.Change{Add: []string{"B"}}, nil)
			if err != nil {
				joinErr <- err
			} else {
				joined <- p
			}
		}
		s.otherWriter(nil)
		http.Error(w, "precondition failed", http.StatusPreconditionFailed)
		return true
	})
	c := newClient(t, s.url(), noTransportRetries, etagclient.WithConflictPolicy(tinyPolicy(maxAttempts)))
	client.Store(c)

	_, errA := c.Update(context.Background(), etagclient.Change{Add: []string{"A"}})
	checkNoSecrets(t, errA)
	if !errors.Is(errA, etagclient.ErrConflictRetriesExhausted) {
		t.Errorf("A: err = %v, want ErrConflictRetriesExhausted after its %d attempts", errA, maxAttempts)
	}
	var pb *etagclient.Pending
	select {
	case pb = <-joined:
	case err := <-joinErr:
		t.Fatalf("Submit B: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("B was never submitted")
	}
	if _, err := waitDone(t, "B", pb); err != nil {
		t.Errorf("B (joined at PUT %d): err = %v, want success within its own %d attempts", joinAt+1, err, maxAttempts)
	}
	items := itemsOf(t, []byte(s.stored()), "")
	if !slices.Contains(items, "B") || slices.Contains(items, "A") {
		t.Errorf("stored %s, want B committed and A (failed) not", s.stored())
	}
	if n, commits := s.count(http.MethodPut), s.committed(); n != lostPuts+1 || commits != 1 {
		t.Errorf("%d PUTs and %d commits, want %d and 1", n, commits, lostPuts+1)
	}
}

// TestUntouchedItemsKeepTheirBytes: a write re-encodes only what it
// changes. Items it does not touch keep their bytes, escapes included:
// decoding and re-encoding them would turn a lone surrogate escape into
// U+FFFD and \u00e9 into a raw é.
func TestUntouchedItemsKeepTheirBytes(t *testing.T) {
	s := startListServer(t, `{"items":["\ud800x","a","caf\u00e9"],"n":1}`, nil)
	c := newClient(t, s.url(), etagclient.WithItemsPointer("/items"))
	ctx := context.Background()
	if _, err := c.Update(ctx, etagclient.Change{Add: []string{"b"}}); err != nil {
		t.Fatalf("add b: %v", err)
	}
	if _, err := c.Update(ctx, etagclient.Change{Remove: []string{"a"}}); err != nil {
		t.Fatalf("remove a: %v", err)
	}
	got := s.stored()
	for _, raw := range []string{`"\ud800x"`, `"caf\u00e9"`} {
		if !strings.Contains(got, raw) {
			t.Errorf("stored %s: %s lost its bytes", got, raw)
		}
	}
	if want := `{"items":["\ud800x","caf\u00e9","b"],"n":1}`; got != want {
		t.Errorf("stored %s, want %s", got, want)
	}
}

// TestDuplicateKeysOnPointerPathAreRefused: when an object on the items
// pointer's path has the key twice, parsers disagree on which one counts
// (most take the last), so the client cannot know which array the server
// reads; it refuses with ErrInvalidDocument and writes nothing. Duplicate
// keys elsewhere are kept as they are.
func TestDuplicateKeysOnPointerPathAreRefused(t *testing.T) {
	tests := []struct {
		name    string
		pointer string
		doc     string
		want    string // the stored document after the write; "" = refused
	}{
		{name: "the array's key twice", pointer: "/items", doc: `{"items":["a"],"items":["b"]}`},
		{name: "a parent's key twice", pointer: "/spec/items", doc: `{"spec":{"items":["a"]},"spec":{"items":["b"]}}`},
		{name: "the array's key twice, once escaped", pointer: "/items", doc: `{"items":["a"],"\u0069tems":["b"]}`},
		{
			name:    "duplicate keys off the path are kept",
			pointer: "/items",
			doc:     `{"items":["a"],"meta":{"x":1,"x":2}}`,
			want:    `{"items":["a","new"],"meta":{"x":1,"x":2}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startListServer(t, tt.doc, nil)
			c := newClient(t, s.url(), etagclient.WithItemsPointer(tt.pointer))
			_, err := c.Update(context.Background(), etagclient.Change{Add: []string{"new"}})
			if tt.want == "" {
				expectErrIs(t, err, etagclient.ErrInvalidDocument)
				if n := s.count(http.MethodPut); n != 0 {
					t.Errorf("%d PUTs, want none; stored %s", n, s.stored())
				}
				return
			}
			wantErrIs(t, err, nil)
			if got := s.stored(); got != tt.want {
				t.Errorf("stored %s, want %s", got, tt.want)
			}
		})
	}
}

// TestGatewayErrorOnPutIsAmbiguous: a 502 or 504 to a PUT comes from a
// proxy that may have passed the write on, so it is an ambiguous outcome:
// the client re-reads and succeeds when the change holds (re-applying it
// when it does not), with one committed version, instead of failing with
// ErrUnreachable a change that was committed.
func TestGatewayErrorOnPutIsAmbiguous(t *testing.T) {
	tests := []struct {
		name     string
		code     int
		commit   bool // the write reached the origin before the error
		wantPuts int
	}{
		{name: "502 after the commit", code: http.StatusBadGateway, commit: true, wantPuts: 1},
		{name: "504 after the commit", code: http.StatusGatewayTimeout, commit: true, wantPuts: 1},
		{name: "502 without a commit", code: http.StatusBadGateway, commit: false, wantPuts: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startListServer(t, `["a"]`, func(s *listServer, w http.ResponseWriter, r *http.Request, nth int) bool {
				if r.Method != http.MethodPut || nth != 1 {
					return false
				}
				if tt.commit {
					if _, _, code := s.commitIfMatch(r, nil); code != http.StatusOK {
						http.Error(w, http.StatusText(code), code)
						return true
					}
				} else {
					_, _ = io.Copy(io.Discard, r.Body)
				}
				http.Error(w, http.StatusText(tt.code), tt.code)
				return true
			})
			c := newClient(t, s.url(), noTransportRetries, etagclient.WithConflictPolicy(tinyPolicy(5)))
			_, err := c.Update(context.Background(), etagclient.Change{Add: []string{"x"}})
			expectErrIs(t, err, nil)
			if got, want := s.stored(), `["a","x"]`; got != want {
				t.Errorf("stored %s, want %s", got, want)
			}
			if n := s.committed(); n != 1 {
				t.Errorf("%d committed versions, want 1", n)
			}
			if n := s.count(http.MethodPut); n != tt.wantPuts {
				t.Errorf("%d PUTs, want %d", n, tt.wantPuts)
			}
			reqs := s.requests()
			if last := reqs[len(reqs)-1]; tt.commit && last.Method != http.MethodGet {
				t.Errorf("last request was %s, want the GET that resolves the ambiguity", last.Method)
			}
		})
	}
}

// TestCloseFailsPendingWithErrClosed: Close fails the change in flight and
// the changes still waiting with ErrClosed, so a caller can tell a client
// being replaced from a server that cannot be reached (ErrUnreachable).
func TestCloseFailsPendingWithErrClosed(t *testing.T) {
	arrived, stop := make(chan struct{}), make(chan struct{})
	var arrivedOnce, stopOnce sync.Once
	s := startListServer(t, `["a"]`, func(_ *listServer, w http.ResponseWriter, r *http.Request, _ int) bool {
		if r.Method != http.MethodGet {
			return false
		}
		arrivedOnce.Do(func() { close(arrived) })
		select { // a server that never answers
		case <-r.Context().Done():
		case <-stop:
		}
		http.Error(w, "gone", http.StatusServiceUnavailable)
		return true
	})
	t.Cleanup(func() { stopOnce.Do(func() { close(stop) }) }) // before the server closes
	c, closeClient := ownedClient(t, s.url())

	inFlight := make(chan error, 1)
	go func() {
		_, err := c.Update(context.Background(), etagclient.Change{Add: []string{"x"}})
		inFlight <- err
	}()
	waitFor(t, "the GET", arrived)
	queued := submit(t, c, etagclient.Change{Add: []string{"y"}})

	start := time.Now()
	closeClient()
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Close took %s", d)
	}
	select {
	case err := <-inFlight:
		checkNoSecrets(t, err)
		if !errors.Is(err, etagclient.ErrClosed) {
			t.Errorf("change in flight: err = %v, want ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the Update in flight did not return after Close")
	}
	_, err := waitDone(t, "queued change", queued)
	checkNoSecrets(t, err)
	if !errors.Is(err, etagclient.ErrClosed) {
		t.Errorf("queued change: err = %v, want ErrClosed", err)
	}
	if n := s.count(http.MethodPut); n != 0 {
		t.Errorf("%d PUTs after Close, want none", n)
	}
}

// TestGatherGoesAtOnceAfterQuietSpell: with a batch interval, a change
// after a quiet spell goes out at once, as WithBatchInterval's doc says.
// That includes the first change of a new client: it must not wait a
// random part of the interval (here up to an hour).
func TestGatherGoesAtOnceAfterQuietSpell(t *testing.T) {
	s := startListServer(t, `["a"]`, nil)
	c := newClient(t, s.url(), etagclient.WithBatchInterval(time.Hour), etagclient.WithClock(realClock{}))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	start := time.Now()
	_, err := c.Update(ctx, etagclient.Change{Add: []string{"x"}})
	elapsed := time.Since(start)
	expectErrIs(t, err, nil)
	if elapsed > 2*time.Second {
		t.Errorf("the first change took %s, want it to go out at once", elapsed)
	}
	if got, want := s.stored(), `["a","x"]`; got != want {
		t.Errorf("stored %s, want %s", got, want)
	}
}

// TestCloseKeepsOtherListsConnections: Close of one Client leaves the
// connections of the shared transport that other Clients use alone. It
// must not close every idle connection of the shared transport, which
// makes every other list's next request dial again.
func TestCloseKeepsOtherListsConnections(t *testing.T) {
	var dialed atomic.Int64
	s := startListServerWith(t, `["a"]`, nil, func(ts *httptest.Server) {
		ts.Config.ConnState = func(_ net.Conn, st http.ConnState) {
			if st == http.StateNew {
				dialed.Add(1)
			}
		}
	})
	a, closeA := ownedClient(t, s.url())
	b, _ := ownedClient(t, s.url())
	ctx := context.Background()
	if _, err := a.Update(ctx, etagclient.Change{Add: []string{"from-a"}}); err != nil {
		t.Fatalf("A: %v", err)
	}
	if _, err := b.Update(ctx, etagclient.Change{Add: []string{"from-b"}}); err != nil {
		t.Fatalf("B: %v", err)
	}
	before := dialed.Load()
	closeA()
	if _, err := b.Update(ctx, etagclient.Change{Add: []string{"from-b-again"}}); err != nil {
		t.Fatalf("B after A's Close: %v", err)
	}
	if after := dialed.Load(); after != before {
		t.Errorf("B's Update after A's Close opened %d new connections (%d before), want none", after-before, before)
	}
}
