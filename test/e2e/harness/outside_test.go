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

package harness

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

// TestOutsideWriter runs an OutsideWriter against the real fake server
// over loopback. Its first write is held while another writer commits, so
// it gets a 412 and must read again; in the end the document holds exactly
// the IDs it says it left, beside the other writer's, with the document's
// other fields kept, and the server counted its 412 under its own name.
func TestOutsideWriter(t *testing.T) {
	var held atomic.Bool
	s, err := fakeapi.New(fakeapi.WithToken("t0ken"), fakeapi.WithFaultHook(func(r *http.Request) fakeapi.Fault {
		if r.Method == http.MethodPut && held.CompareAndSwap(false, true) {
			return fakeapi.Fault{Kind: fakeapi.FaultHoldWrite, Hold: 200 * time.Millisecond}
		}
		return fakeapi.Fault{}
	}))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	const path = "/lists/a"
	if _, err := s.Set(path, []byte(`{"owner":"test","items":["keep"]}`)); err != nil {
		t.Fatal(err)
	}
	ids := OutsideIDs("outside", 3)
	if !slices.Equal(ids, []string{"outside-1", "outside-2", "outside-3"}) {
		t.Fatalf("OutsideIDs = %v", ids)
	}
	w := &OutsideWriter{URL: ts.URL + path, Header: http.Header{"Authorization": {"Bearer t0ken"}}, IDs: ids,
		Interval: time.Millisecond, Jitter: time.Millisecond}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	waitUntil(t, "the first write to be held", func() bool { return s.Stats().Faults[fakeapi.FaultHoldWrite] == 1 })
	// Another writer commits while the outside writer's PUT is held.
	if _, err := s.Set(path, []byte(`{"owner":"test","items":["keep","other"]}`)); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "eight edits", func() bool { return w.Counts().Edits >= 8 })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	c := w.Counts()
	if c.Conflicts != 1 || c.GaveUp != 0 || c.Ambiguous != 0 || c.Requests["PUT"][412] != 1 {
		t.Errorf("counts = %+v, want exactly the one 412 of the held write", c)
	}
	st := s.Stats()
	if st.CountAgent(OutsideAgent, 412) != 1 || st.CountAgent(OutsideAgent, 200) != c.Requests["GET"][200]+c.Requests["PUT"][200] {
		t.Errorf("server counts for %s = %v, want what the writer counted: %v", OutsideAgent, st.Agents, c.Requests)
	}
	raw, _, _ := s.Get(path)
	var doc Document
	if err := doc.UnmarshalJSON(raw); err != nil {
		t.Fatal(err)
	}
	if missing, unexpected := w.Check(doc.Items); len(missing)+len(unexpected) != 0 {
		t.Errorf("document %s: missing %v, unexpected %v of what the writer left (%v)", raw, missing, unexpected, w.Left())
	}
	if got := w.Without(doc.Items); !slices.Equal(got, []string{"keep", "other"}) || doc.Field("owner") != "test" {
		t.Errorf("document %s: the writer touched what is not its own", raw)
	}
	// Check sees what another writer does to the outside writer's IDs.
	if missing, unexpected := w.Check(append(w.Without(doc.Items), "outside-9", "outside-1", "outside-2", "outside-3")); len(missing) != 0 ||
		len(unexpected) != 3-len(w.Left()) {
		t.Errorf("Check with every ID on the list: missing %v, unexpected %v; left %v", missing, unexpected, w.Left())
	}
	if len(w.Left()) > 0 {
		if missing, _ := w.Check(w.Without(doc.Items)); !slices.Equal(missing, w.Left()) {
			t.Errorf("Check of a list without the writer's IDs: missing %v, want %v", missing, w.Left())
		}
	}
}

// waitUntil polls cond every 5ms for up to five seconds.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
