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

package fakeapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// onceHook injects f into the first request with the given method, and
// nothing afterwards.
func onceHook(method string, f fakeapi.Fault) fakeapi.FaultHook {
	var done atomic.Bool
	return func(r *http.Request) fakeapi.Fault {
		if r.Method == method && done.CompareAndSwap(false, true) {
			return f
		}
		return fakeapi.Fault{}
	}
}

// TestFaultKinds injects each fault once, through the hook, and checks what
// a real client sees and what the server did.
func TestFaultKinds(t *testing.T) {
	tests := []struct {
		name           string
		method         string
		fault          fakeapi.Fault
		faults         fakeapi.Faults // rate config, for its RetryAfter
		wantErr        bool           // the client sees a transport error
		wantCode       int
		wantRetryAfter string
		wantDoc        string
	}{
		{name: "503", method: "GET", fault: fakeapi.Fault{Kind: fakeapi.FaultServiceUnavailable}, wantCode: 503, wantRetryAfter: "1", wantDoc: docA},
		{name: "503 retry after from Faults", method: "PUT", fault: fakeapi.Fault{Kind: fakeapi.FaultServiceUnavailable}, faults: fakeapi.Faults{RetryAfter: 1500 * time.Millisecond}, wantCode: 503, wantRetryAfter: "2", wantDoc: docA},
		{name: "429 retry after from Fault", method: "PUT", fault: fakeapi.Fault{Kind: fakeapi.FaultTooManyRequests, RetryAfter: 3 * time.Second}, wantCode: 429, wantRetryAfter: "3", wantDoc: docA},
		{name: "reset before commit on PUT", method: "PUT", fault: fakeapi.Fault{Kind: fakeapi.FaultResetBeforeCommit}, wantErr: true, wantDoc: docA},
		{name: "reset on GET", method: "GET", fault: fakeapi.Fault{Kind: fakeapi.FaultResetBeforeCommit}, wantErr: true, wantDoc: docA},
		{name: "commit then drop", method: "PUT", fault: fakeapi.Fault{Kind: fakeapi.FaultCommitThenDrop}, wantErr: true, wantDoc: docB},
		{name: "commit then drop on DELETE", method: "DELETE", fault: fakeapi.Fault{Kind: fakeapi.FaultCommitThenDrop}, wantErr: true, wantDoc: ""},
		{name: "unknown kind", method: "GET", fault: fakeapi.Fault{Kind: "typo"}, wantCode: 500, wantDoc: docA},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ts := start(t, fakeapi.WithFaultHook(onceHook(tt.method, tt.fault)), fakeapi.WithFaults(tt.faults))
			etag := mustSet(t, s, listA, docA)
			c := freshClient(t)
			var body string
			if tt.method == "PUT" {
				body = docB
			}
			res, err := call(c, tt.method, ts.URL+listA, body, map[string]string{"If-Match": etag})
			switch {
			case tt.wantErr && err == nil:
				t.Fatalf("got %d, want a transport error", res.code)
			case tt.wantErr:
				t.Logf("client error: %v", err)
			case err != nil:
				t.Fatalf("%s: %v", tt.method, err)
			case res.code != tt.wantCode:
				t.Fatalf("status = %d, want %d", res.code, tt.wantCode)
			case res.header.Get("Retry-After") != tt.wantRetryAfter:
				t.Errorf("Retry-After = %q, want %q", res.header.Get("Retry-After"), tt.wantRetryAfter)
			}
			if !docEquals(s, listA, tt.wantDoc) {
				got, _, _ := s.Get(listA)
				t.Errorf("document = %q, want %q", got, tt.wantDoc)
			}
			st := s.Stats()
			if st.Faults[tt.fault.Kind] != 1 {
				t.Errorf("Stats.Faults = %v, want 1 %q", st.Faults, tt.fault.Kind)
			}
			if tt.wantErr && st.Count(tt.method, 0) != 1 {
				t.Errorf("Stats.Requests = %v, want one %s with code 0", st.Requests, tt.method)
			}
			// The hook injects only once: the next request goes through.
			if res := mustCall(t, c, "GET", ts.URL+"/lists/other", "", nil); res.code != 404 {
				t.Errorf("request after the fault = %d, want 404", res.code)
			}
		})
	}
}

// faultPattern sends n sequential requests to a fresh server built with
// opts and returns the status codes, 0 for a transport error.
func faultPattern(t *testing.T, n int, opts ...fakeapi.Option) []int {
	t.Helper()
	s, ts := start(t, opts...)
	mustSet(t, s, listA, docA)
	c := freshClient(t)
	codes := make([]int, n)
	for i := range codes {
		method, body := "GET", ""
		if i%2 == 1 {
			method, body = "PUT", docB
		}
		res, err := call(c, method, ts.URL+listA, body, map[string]string{"If-Match": "*"})
		if err == nil {
			codes[i] = res.code
		}
	}
	return codes
}

func TestRateFaultsReproducibleBySeed(t *testing.T) {
	faults := fakeapi.WithFaults(fakeapi.Faults{Rate503: 0.2, Rate429: 0.1, RateResetBeforeCommit: 0.1, RateCommitThenDrop: 0.2})
	const n = 80
	a := faultPattern(t, n, faults, fakeapi.WithSeed(42))
	b := faultPattern(t, n, faults, fakeapi.WithSeed(42))
	c := faultPattern(t, n, faults, fakeapi.WithSeed(43))
	if !slices.Equal(a, b) {
		t.Fatalf("same seed, different patterns:\n%v\n%v", a, b)
	}
	if slices.Equal(a, c) {
		t.Fatalf("different seeds, same pattern %v", a)
	}
	for _, code := range []int{0, 200, 429, 503} {
		if !slices.Contains(a, code) {
			t.Errorf("pattern %v has no %d", a, code)
		}
	}
}

// TestRateFaultsOnWrites checks that commit-then-drop commits and reset
// does not, by accounting every PUT against the history.
func TestRateFaultsOnWrites(t *testing.T) {
	s, ts := start(t, fakeapi.WithHistory(true), fakeapi.WithSeed(7),
		fakeapi.WithFaults(fakeapi.Faults{RateResetBeforeCommit: 0.25, RateCommitThenDrop: 0.25}))
	mustSet(t, s, listA, docA)
	c := freshClient(t)
	const n = 60
	var ok, failed int64
	for range n {
		if _, err := call(c, "PUT", ts.URL+listA, docB, map[string]string{"If-Match": "*"}); err != nil {
			failed++
		} else {
			ok++
		}
	}
	st := s.Stats()
	resets, drops := st.Faults[fakeapi.FaultResetBeforeCommit], st.Faults[fakeapi.FaultCommitThenDrop]
	if resets == 0 || drops == 0 || failed != resets+drops || ok+failed != n {
		t.Fatalf("ok %d failed %d, faults %v", ok, failed, st.Faults)
	}
	if want := ok + drops; st.Commits != want {
		t.Errorf("Commits = %d, want %d answered + %d dropped", st.Commits, ok, drops)
	}
	if got := int64(len(s.History(listA))) - 1; got != st.Commits {
		t.Errorf("history has %d PUT versions, Stats.Commits %d", got, st.Commits)
	}
}

func TestFaultsNeverOnAdminRoutes(t *testing.T) {
	s, ts := start(t, fakeapi.WithFaults(fakeapi.Faults{Rate503: 1}), fakeapi.WithLatency(time.Hour, 0),
		fakeapi.WithFaultHook(func(*http.Request) fakeapi.Fault {
			return fakeapi.Fault{Kind: fakeapi.FaultResetBeforeCommit}
		}))
	for _, p := range []string{"/_fakeapi/healthz", "/_fakeapi/stats", "/_fakeapi/faults"} {
		if res := mustCall(t, ts.Client(), "GET", ts.URL+p, "", nil); res.code != 200 {
			t.Errorf("GET %s = %d, want 200", p, res.code)
		}
	}
	// Switch everything off at run time, as tests do before a final read.
	if err := s.SetLatency(0, 0); err != nil {
		t.Fatal(err)
	}
	s.SetFaultHook(nil)
	if res := mustCall(t, ts.Client(), "GET", ts.URL+listA, "", nil); res.code != 503 {
		t.Fatalf("GET with Rate503 1 = %d, want 503", res.code)
	}
	if err := s.SetFaults(fakeapi.Faults{}); err != nil {
		t.Fatal(err)
	}
	if res := mustCall(t, ts.Client(), "GET", ts.URL+listA, "", nil); res.code != 404 {
		t.Fatalf("GET with faults off = %d, want 404", res.code)
	}
	if err := s.SetFaults(fakeapi.Faults{Rate429: 2}); err == nil {
		t.Error("SetFaults accepted a rate of 2")
	}
}

func TestLatency(t *testing.T) {
	const base = 40 * time.Millisecond
	s, ts := start(t, fakeapi.WithLatency(base, 10*time.Millisecond))
	begin := time.Now()
	if res := mustCall(t, ts.Client(), "GET", ts.URL+listA, "", nil); res.code != 404 {
		t.Fatalf("GET = %d", res.code)
	}
	if d := time.Since(begin); d < base {
		t.Errorf("request took %s, want at least %s", d, base)
	}

	// A client that gives up during the delay gets no answer, counted as 0.
	if err := s.SetLatency(5*time.Second, 0); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+listA, nil)
	if resp, err := ts.Client().Do(req); err == nil {
		_ = resp.Body.Close()
		t.Fatal("request succeeded, want a timeout")
	}
	deadline := time.Now().Add(2 * time.Second)
	for s.Stats().Count("GET", 0) != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("abandoned request not counted: %v", s.Stats().Requests)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestAdminFaultControl(t *testing.T) {
	s, ts := start(t)
	c := ts.Client()
	tests := []struct {
		name, path, body string
		wantCode         int
	}{
		{"faults", "/_fakeapi/faults", `{"rate503":0.5,"retryAfter":"3s","rateCommitThenDrop":0.25}`, 204},
		{"faults invalid rate", "/_fakeapi/faults", `{"rate503":1.5}`, 400},
		{"faults unknown field", "/_fakeapi/faults", `{"rate500":0.5}`, 400},
		{"faults bad duration", "/_fakeapi/faults", `{"retryAfter":"soon"}`, 400},
		{"latency", "/_fakeapi/latency", `{"base":"5ms","jitter":"1ms"}`, 204},
		{"latency negative", "/_fakeapi/latency", `{"base":"-5ms"}`, 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if res := mustCall(t, c, "PUT", ts.URL+tt.path, tt.body, nil); res.code != tt.wantCode {
				t.Fatalf("PUT %s = %d %s, want %d", tt.path, res.code, res.body, tt.wantCode)
			}
		})
	}
	want := fakeapi.Faults{Rate503: 0.5, RetryAfter: 3 * time.Second, RateCommitThenDrop: 0.25}
	if got := s.Faults(); got != want {
		t.Errorf("Faults = %+v, want %+v", got, want)
	}
	if base, jitter := s.Latency(); base != 5*time.Millisecond || jitter != time.Millisecond {
		t.Errorf("Latency = %s %s", base, jitter)
	}
}

// TestDropOnReusedConnection checks that the ambiguous case stays visible
// to a keep-alive client: net/http does not retry a PUT whose connection
// was dropped, even on a reused connection.
func TestDropOnReusedConnection(t *testing.T) {
	s, ts := start(t, fakeapi.WithFaultHook(onceHook("PUT", fakeapi.Fault{Kind: fakeapi.FaultCommitThenDrop})))
	etag := mustSet(t, s, listA, docA)
	c := ts.Client()
	mustCall(t, c, "GET", ts.URL+listA, "", nil) // leaves an idle connection
	if res, err := call(c, "PUT", ts.URL+listA, docB, map[string]string{"If-Match": etag}); err == nil {
		t.Fatalf("PUT = %d, want a transport error", res.code)
	}
	if !docEquals(s, listA, docB) {
		t.Fatal("commit-then-drop did not commit")
	}
	if st := s.Stats(); st.Count("PUT", 0) != 1 || st.Total != 2 {
		t.Fatalf("stats %v, want one GET 200 and one dropped PUT", st.Requests)
	}
}

// TestDropOverHTTP2 checks the fallback when the connection cannot be
// hijacked: the handler aborts and the stream is reset.
func TestDropOverHTTP2(t *testing.T) {
	s, err := fakeapi.New(fakeapi.WithFaultHook(onceHook("PUT", fakeapi.Fault{Kind: fakeapi.FaultCommitThenDrop})))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(s)
	ts.EnableHTTP2 = true
	ts.StartTLS()
	defer ts.Close()
	etag := mustSet(t, s, listA, docA)
	c := ts.Client()
	res, err := call(c, "GET", ts.URL+listA, "", nil)
	if err != nil || res.code != 200 {
		t.Fatalf("GET = %d, %v", res.code, err)
	}
	if res, err := call(c, "PUT", ts.URL+listA, docB, map[string]string{"If-Match": etag}); err == nil {
		t.Fatalf("PUT = %d, want a transport error", res.code)
	} else {
		t.Logf("client error: %v", err)
	}
	if !docEquals(s, listA, docB) {
		t.Fatal("commit-then-drop did not commit")
	}
}
