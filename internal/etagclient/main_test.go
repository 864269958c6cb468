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
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// TestMain fails the package when a test leaves a goroutine behind: a cycle
// goroutine of a Client that was not closed, a handler still running, or a
// connection that nobody closed.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// The secrets every test client carries. No error may ever contain them.
const (
	secretToken = "s3cr3t-bearer-5d1f0c"
	queryToken  = "q-s3cr3t-token-8e2a"
	listPath    = "/lists/a"
)

// authHeader is the header set that carries secretToken.
func authHeader() http.Header {
	return http.Header{"Authorization": {"Bearer " + secretToken}}
}

// fakeEnv is a fakeapi.Server served on 127.0.0.1 behind a recorder.
type fakeEnv struct {
	api *fakeapi.Server
	ts  *httptest.Server
	rec *recorder
	// url is the list's URL, with a query token that must never leak.
	url string
}

// startFake builds a fakeapi.Server that requires secretToken, serves it for
// the duration of the test and returns it. opts come after the token, so a
// test may override it.
func startFake(t *testing.T, opts ...fakeapi.Option) *fakeEnv {
	t.Helper()
	return startFakeWrapped(t, nil, opts...)
}

// startFakeWrapped is startFake with the fake server behind wrap, when not
// nil, so a test can change how it answers; the recorder sees what the
// client sees.
func startFakeWrapped(t *testing.T, wrap func(http.Handler) http.Handler, opts ...fakeapi.Option) *fakeEnv {
	t.Helper()
	api, err := fakeapi.New(append([]fakeapi.Option{fakeapi.WithToken(secretToken)}, opts...)...)
	if err != nil {
		t.Fatalf("fakeapi.New: %v", err)
	}
	var h http.Handler = api
	if wrap != nil {
		h = wrap(api)
	}
	rec := &recorder{next: h}
	ts := httptest.NewServer(rec)
	t.Cleanup(ts.Close)
	return &fakeEnv{api: api, ts: ts, rec: rec, url: listURL(ts)}
}

// listURL is the URL of listPath on ts, with a secret query value.
func listURL(ts *httptest.Server) string {
	return ts.URL + listPath + "?token=" + queryToken
}

// set stores body as the document and returns its ETag.
func (e *fakeEnv) set(t *testing.T, body string) string {
	t.Helper()
	etag, err := e.api.Set(listPath, []byte(body))
	if err != nil {
		t.Fatalf("Set: %v", err)
	}
	return etag
}

// body returns the stored document, "" when there is none.
func (e *fakeEnv) body(t *testing.T) string {
	t.Helper()
	b, _, ok := e.api.Get(listPath)
	if !ok {
		return ""
	}
	return string(b)
}

// items decodes the items array at pointer of the stored document.
func (e *fakeEnv) items(t *testing.T, pointer string) []string {
	t.Helper()
	return itemsOf(t, []byte(e.body(t)), pointer)
}

// itemsOf decodes the items array at pointer of doc.
func itemsOf(t *testing.T, doc []byte, pointer string) []string {
	t.Helper()
	p, err := etagclient.ParsePointer(pointer)
	if err != nil {
		t.Fatalf("ParsePointer(%q): %v", pointer, err)
	}
	d, err := etagclient.ParseDocument(doc, p)
	if err != nil {
		t.Fatalf("ParseDocument(%s): %v", doc, err)
	}
	return d.Items()
}

// puts returns how many PUTs the fake server saw, whatever their answer.
func (e *fakeEnv) puts() int64 { return sumCodes(e.api.Stats(), http.MethodPut) }

// gets returns how many GETs the fake server saw, whatever their answer.
func (e *fakeEnv) gets() int64 { return sumCodes(e.api.Stats(), http.MethodGet) }

func sumCodes(st fakeapi.Stats, method string) int64 {
	var n int64
	for _, c := range st.Requests[method] {
		n += c
	}
	return n
}

// testOptions are the options every test client starts with: the secret
// header, a fake clock so conflict backoff never sleeps, and short transport
// waits so Retry-After never parks a test.
func testOptions(clock etagclient.Clock) []etagclient.Option {
	return []etagclient.Option{
		etagclient.WithHeaders(authHeader()),
		etagclient.WithClock(clock),
		etagclient.WithBatchInterval(0),
		etagclient.WithMaxRetryAfter(10 * time.Millisecond),
		etagclient.WithTransportRetries(etagclient.DefaultTransportRetries, time.Millisecond, 10*time.Millisecond),
	}
}

// newClient builds a Client with testOptions followed by opts, and closes it
// when the test ends (before the servers the test started earlier).
func newClient(t *testing.T, rawURL string, opts ...etagclient.Option) *etagclient.Client {
	t.Helper()
	c, err := etagclient.New(rawURL, append(testOptions(newFakeClock()), opts...)...)
	if err != nil {
		t.Fatalf("etagclient.New: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

// checkNoSecrets fails the test when err's message carries a secret.
func checkNoSecrets(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	for _, s := range []string{secretToken, queryToken} {
		if strings.Contains(err.Error(), s) {
			t.Errorf("error leaks a secret: %v", err)
		}
	}
}

// wantErrIs fails the test unless errors.Is(err, want) (or err is nil when
// want is nil); it also checks that err leaks no secret.
func wantErrIs(t *testing.T, err, want error) {
	t.Helper()
	checkNoSecrets(t, err)
	switch {
	case want == nil && err != nil:
		t.Fatalf("err = %v, want nil", err)
	case want != nil && !errors.Is(err, want):
		t.Fatalf("err = %v, want one wrapping %v", err, want)
	}
}

// ids returns prefix followed by 0..n-1, zero-padded to width.
func ids(prefix string, n, width int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%0*d", prefix, width, i)
	}
	return out
}

// jsonArray encodes items compactly, as the client does.
func jsonArray(items []string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if items == nil {
		items = []string{}
	}
	if err := enc.Encode(items); err != nil {
		panic(err)
	}
	return strings.TrimRight(b.String(), "\n")
}

// recorder is an http.Handler that remembers every request it passes on, in
// the order they arrive, with the status code it was answered with (0 when
// the connection was dropped without an answer). The code is recorded
// before the client can see the answer (or the dropped connection), so once
// a client call has returned, what the recorder shows of it is final.
type recorder struct {
	next http.Handler

	mu   sync.Mutex
	reqs []*recorded
}

// recorded is one request seen by a recorder.
type recorded struct {
	Method string
	Code   int
	Header http.Header
}

// String renders the request as "METHOD code", as sequence assertions use.
func (r recorded) String() string { return fmt.Sprintf("%s %d", r.Method, r.Code) }

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	entry := &recorded{Method: r.Method, Header: r.Header.Clone()}
	rc.mu.Lock()
	rc.reqs = append(rc.reqs, entry)
	rc.mu.Unlock()
	rc.next.ServeHTTP(&recordingWriter{ResponseWriter: w, rc: rc, entry: entry}, r)
}

// requests returns what the recorder saw so far.
func (rc *recorder) requests() []recorded {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := make([]recorded, len(rc.reqs))
	for i, r := range rc.reqs {
		out[i] = *r
	}
	return out
}

// sequence returns the requests as "METHOD code" strings.
func (rc *recorder) sequence() []string {
	reqs := rc.requests()
	out := make([]string, len(reqs))
	for i, r := range reqs {
		out[i] = r.String()
	}
	return out
}

// count returns how many requests with method the recorder saw.
func (rc *recorder) count(method string) int {
	n := 0
	for _, r := range rc.requests() {
		if r.Method == method {
			n++
		}
	}
	return n
}

// recordingWriter records the status code in its entry. Hijack records a
// dropped connection; Unwrap lets http.ResponseController reach the Flusher
// underneath.
type recordingWriter struct {
	http.ResponseWriter
	rc    *recorder
	entry *recorded
	wrote bool
}

func (w *recordingWriter) setCode(code int) {
	if w.wrote {
		return
	}
	w.wrote = true
	w.rc.mu.Lock()
	w.entry.Code = code
	w.rc.mu.Unlock()
}

func (w *recordingWriter) WriteHeader(code int) {
	w.setCode(code)
	w.ResponseWriter.WriteHeader(code)
}

func (w *recordingWriter) Write(b []byte) (int, error) {
	w.setCode(http.StatusOK)
	return w.ResponseWriter.Write(b)
}

// Hijack marks the request as dropped (code 0) and hands over the
// connection.
func (w *recordingWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.setCode(0)
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
