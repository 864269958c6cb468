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
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

const docC = `{"items":["a","c"]}`

// waitFor polls cond every 5ms until it holds or two seconds pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestHeldWriteMeetsNewerVersion holds one writer's PUT while another
// writer's PUT with the same tag commits: the held PUT is evaluated after
// its hold, against the newer ETag, and gets 412. The other writer is not
// held up, so the hold does not keep the Server's lock.
func TestHeldWriteMeetsNewerVersion(t *testing.T) {
	const hold = 500 * time.Millisecond
	s, ts := start(t, fakeapi.WithHistory(true),
		fakeapi.WithFaultHook(onceHook("PUT", fakeapi.Fault{Kind: fakeapi.FaultHoldWrite, Hold: hold})))
	etag := mustSet(t, s, listA, docA)

	type outcome struct {
		res  result
		err  error
		took time.Duration
	}
	held := make(chan outcome, 1)
	go func() {
		begin := time.Now()
		res, err := call(freshClient(t), "PUT", ts.URL+listA, docB, map[string]string{"If-Match": etag, "User-Agent": "held-writer/1"})
		held <- outcome{res, err, time.Since(begin)}
	}()
	waitFor(t, "the first PUT to be held", func() bool { return s.Stats().Faults[fakeapi.FaultHoldWrite] == 1 })

	begin := time.Now()
	res := mustCall(t, freshClient(t), "PUT", ts.URL+listA, docC, map[string]string{"If-Match": etag, "User-Agent": "other-writer/2"})
	if res.code != http.StatusOK {
		t.Fatalf("the other writer's PUT = %d %s, want 200", res.code, res.body)
	}
	if took := time.Since(begin); took >= hold {
		t.Errorf("the other writer's PUT took %v: it waited for the held one", took)
	}
	newer := res.header.Get("ETag")

	o := <-held
	if o.err != nil {
		t.Fatalf("held PUT: %v", o.err)
	}
	if o.res.code != http.StatusPreconditionFailed {
		t.Errorf("held PUT = %d %s, want 412: it was sent with the tag before %s", o.res.code, o.res.body, newer)
	}
	if o.took < hold {
		t.Errorf("held PUT answered after %v, want at least %v", o.took, hold)
	}
	if !docEquals(s, listA, docC) {
		got, _, _ := s.Get(listA)
		t.Errorf("document = %s, want the other writer's %s", got, docC)
	}
	st := s.Stats()
	if st.Commits != 1 || st.Count("PUT", 200) != 1 || st.Count("PUT", 412) != 1 {
		t.Errorf("stats = %+v, want one commit, one PUT 200 and one PUT 412", st)
	}
	if st.CountAgent("held-writer", 412) != 1 || st.CountAgent("other-writer", 200) != 1 {
		t.Errorf("Stats.Agents = %v, want the 412 to the held writer and the 200 to the other", st.Agents)
	}
}

// TestHeldWriteLandsAfterClientGaveUp holds a PUT longer than its client
// waits: the client sees a timeout, and the PUT, whose If-Match still
// holds when it is evaluated, commits all the same, as a late write does.
// Under s3, where a conditional PUT takes its latency while it marks its
// key, the latency is still taken and the PUT still commits.
func TestHeldWriteLandsAfterClientGaveUp(t *testing.T) {
	for _, p := range []fakeapi.Profile{fakeapi.ProfileStrict, fakeapi.ProfileS3} {
		t.Run(string(p), func(t *testing.T) {
			const hold = 300 * time.Millisecond
			s, ts := start(t, fakeapi.WithProfile(p), fakeapi.WithLatency(20*time.Millisecond, 0),
				fakeapi.WithFaults(fakeapi.Faults{RateHoldWrites: 1, HoldWrites: hold}))
			etag := mustSet(t, s, listA, docA)

			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, "PUT", ts.URL+listA, strings.NewReader(docB))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("If-Match", etag)
			if resp, err := freshClient(t).Do(req); err == nil {
				_ = resp.Body.Close()
				t.Fatalf("PUT = %d before the hold ended, want the client to time out", resp.StatusCode)
			}
			if docEquals(s, listA, docB) {
				t.Fatal("the held PUT committed before its hold ended")
			}
			waitFor(t, "the held PUT to commit", func() bool { return s.Stats().Commits == 1 })
			if !docEquals(s, listA, docB) {
				got, _, _ := s.Get(listA)
				t.Errorf("document = %s, want the late write's %s", got, docB)
			}
			waitFor(t, "the held PUT to be counted", func() bool { return s.Stats().Count("PUT", 200) == 1 })
			if st := s.Stats(); st.Faults[fakeapi.FaultHoldWrite] != 1 {
				t.Errorf("Stats.Faults = %v, want one %s", st.Faults, fakeapi.FaultHoldWrite)
			}
		})
	}
}

// TestRateHoldWrites holds every write and nothing else when
// RateHoldWrites is 1, and holds nothing once it is switched off at run
// time through the admin route.
func TestRateHoldWrites(t *testing.T) {
	const hold = 150 * time.Millisecond
	s, ts := start(t, fakeapi.WithFaults(fakeapi.Faults{RateHoldWrites: 1, HoldWrites: hold}))
	etag := mustSet(t, s, listA, docA)
	c := ts.Client()
	timed := func(method, body string, header map[string]string) (result, time.Duration) {
		begin := time.Now()
		res := mustCall(t, c, method, ts.URL+listA, body, header)
		return res, time.Since(begin)
	}
	if res, took := timed("GET", "", nil); res.code != 200 || took >= hold {
		t.Errorf("GET = %d after %v, want 200 without a hold", res.code, took)
	}
	res, took := timed("PUT", docB, map[string]string{"If-Match": etag})
	if res.code != 200 || took < hold {
		t.Errorf("PUT = %d after %v, want 200 after a hold of %v", res.code, took, hold)
	}
	if res, took := timed("DELETE", "", map[string]string{"If-Match": res.header.Get("ETag")}); res.code != 204 || took < hold {
		t.Errorf("DELETE = %d after %v, want 204 after a hold of %v", res.code, took, hold)
	}
	if got := s.Stats().Faults[fakeapi.FaultHoldWrite]; got != 2 {
		t.Errorf("holds counted = %d, want 2", got)
	}

	if res := mustCall(t, c, "PUT", ts.URL+"/_fakeapi/faults", `{}`, nil); res.code != 204 {
		t.Fatalf("PUT /_fakeapi/faults {} = %d %s", res.code, res.body)
	}
	if res, took := timed("PUT", docA, map[string]string{"If-None-Match": "*"}); res.code != 201 || took >= hold {
		t.Errorf("PUT after the hold was switched off = %d after %v, want 201 at once", res.code, took)
	}
}

func TestFaultsJSON(t *testing.T) {
	s, ts := start(t)
	c := ts.Client()
	const body = `{"rate503":0.1,"rateHoldWrites":0.5,"holdWrites":"8s"}`
	if res := mustCall(t, c, "PUT", ts.URL+"/_fakeapi/faults", body, nil); res.code != 204 {
		t.Fatalf("PUT /_fakeapi/faults = %d %s", res.code, res.body)
	}
	want := fakeapi.Faults{Rate503: 0.1, RateHoldWrites: 0.5, HoldWrites: 8 * time.Second}
	if got := s.Faults(); got != want {
		t.Fatalf("Faults = %+v, want %+v", got, want)
	}
	res := mustCall(t, c, "GET", ts.URL+"/_fakeapi/faults", "", nil)
	var back fakeapi.Faults
	if err := json.Unmarshal(res.body, &back); err != nil || back != want {
		t.Errorf("GET /_fakeapi/faults = %s, decodes to %+v, %v; want %+v", res.body, back, err, want)
	}
	for _, bad := range []string{
		`{"holdWrites":"soon"}`, `{"holdWrites":"-1s"}`, `{"rateHoldWrites":1.5}`,
		`{"rateHoldWrites":0.6,"rateCommitThenDrop":0.6}`, `{"hold":"8s"}`,
	} {
		if res := mustCall(t, c, "PUT", ts.URL+"/_fakeapi/faults", bad, nil); res.code != 400 {
			t.Errorf("PUT /_fakeapi/faults %s = %d, want 400", bad, res.code)
		}
	}
	if got := s.Faults(); got != want {
		t.Errorf("a refused PUT changed the faults to %+v", got)
	}
}
