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
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

type listDoc struct {
	Items []string `json:"items"`
}

// addItem is a minimal optimistic read-modify-write client: it adds item
// to the list at url unless it is already there, retrying on conflicts
// (412, and S3's 409), injected faults and ambiguous transport errors. It
// asks for identity coding, so that its tags stay strong under webdav,
// sends x-ms-blob-type for azure-blob and a bearer token for gcs, and
// conditions its write on what the read named: the generation when there
// is an x-goog-generation (gcs ignores If-Match on writes), else the ETag.
// It reports how many of its PUTs were answered with a 2xx code.
func addItem(c *http.Client, url, item string) (answered int, err error) {
	for attempt := 0; attempt < 1000; attempt++ {
		res, err := call(c, "GET", url, "", map[string]string{"Accept-Encoding": "identity"})
		if err != nil || res.code != 200 {
			continue
		}
		var d listDoc
		if err := json.Unmarshal(res.body, &d); err != nil {
			return answered, fmt.Errorf("decode %s: %w", res.body, err)
		}
		if slices.Contains(d.Items, item) {
			return answered, nil // possibly committed by a dropped PUT
		}
		d.Items = append(d.Items, item)
		next, _ := json.Marshal(d)
		header := map[string]string{
			"Content-Type": "application/json", "x-ms-blob-type": "BlockBlob", "Authorization": "Bearer rmw",
		}
		if gen := res.header.Get(fakeapi.HeaderGeneration); gen != "" {
			header[fakeapi.HeaderIfGenerationMatch] = gen
		} else {
			header["If-Match"] = res.header.Get("ETag")
		}
		res, err = call(c, "PUT", url, string(next), header)
		if err == nil && res.code/100 == 2 {
			return answered + 1, nil
		}
	}
	return answered, fmt.Errorf("item %s: gave up", item)
}

// TestConcurrentReadModifyWrite runs many writers against one document,
// under every profile, and checks that no commit is lost: every version
// extends the one before by exactly one item, and the counts agree. The
// first two PUTs are made to overlap (see fakeapi.OverlapFirstPuts), so a write is
// refused for certain: without faults, the run must show a 409 or 412.
func TestConcurrentReadModifyWrite(t *testing.T) {
	tests := []struct {
		name    string
		workers int
		items   int
		faults  fakeapi.Faults
		latency time.Duration
	}{
		{name: "no faults", workers: 16, items: 8},
		{name: "with faults", workers: 8, items: 8, faults: fakeapi.Faults{
			Rate503: 0.05, Rate429: 0.05, RateResetBeforeCommit: 0.1, RateCommitThenDrop: 0.1,
		}},
		// Latency makes S3's conditional writes overlap, and so 409.
		{name: "with latency", workers: 8, items: 4, latency: 2 * time.Millisecond},
	}
	for _, p := range fakeapi.Profiles() {
		for _, tt := range tests {
			t.Run(string(p)+"/"+tt.name, func(t *testing.T) {
				testConcurrentReadModifyWrite(t, p, tt.workers, tt.items, tt.faults, tt.latency)
			})
		}
	}
}

func testConcurrentReadModifyWrite(t *testing.T, p fakeapi.Profile, workers, items int, faults fakeapi.Faults, latency time.Duration) {
	// The weak window would keep every writer out for a second after each
	// commit.
	s, ts := start(t, fakeapi.WithProfile(p), fakeapi.WithWeakWindow(0), fakeapi.WithHistory(true), fakeapi.WithFaults(faults), fakeapi.WithLatency(latency, 0),
		fakeapi.WithFaultHook(fakeapi.OverlapFirstPuts(overlapPatience)))
	mustSet(t, s, listA, `{"items":[]}`)
	tr := &http.Transport{MaxIdleConnsPerHost: workers}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}

	var answered atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := range items {
				n, err := addItem(c, ts.URL+listA, fmt.Sprintf("w%d-%d", w, i))
				answered.Add(int64(n))
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	checkNoLostCommits(t, s, workers*items, answered.Load(), faults == fakeapi.Faults{})
}

func checkNoLostCommits(t *testing.T, s *fakeapi.Server, want int, answered int64, exact bool) {
	t.Helper()
	hist := s.History(listA)
	var prev listDoc
	for i, v := range hist {
		if i > 0 && v.Generation <= hist[i-1].Generation {
			t.Fatalf("version %d has generation %d, not above %d", i, v.Generation, hist[i-1].Generation)
		}
		var d listDoc
		if err := json.Unmarshal(v.Body, &d); err != nil {
			t.Fatalf("version %d: %v", i, err)
		}
		if i > 0 && (len(d.Items) != len(prev.Items)+1 || !slices.Equal(d.Items[:len(prev.Items)], prev.Items)) {
			t.Fatalf("version %d (%v) does not extend version %d (%v) by one item", i, d.Items, i-1, prev.Items)
		}
		prev = d
	}
	if len(prev.Items) != want {
		t.Fatalf("final list has %d items, want %d", len(prev.Items), want)
	}
	st := s.Stats()
	commits := int64(len(hist) - 1) // the first version is the seed
	if st.Commits != commits {
		t.Errorf("Stats.Commits = %d, history has %d PUT versions", st.Commits, commits)
	}
	if got := st.Count("PUT", 200) + st.Count("PUT", 201) + st.Count("PUT", 204); got != answered {
		t.Errorf("server counted %d PUT 2xx, clients saw %d", got, answered)
	}
	if exact && answered != commits {
		t.Errorf("%d PUTs answered 2xx, %d versions committed", answered, commits)
	}
	if !exact && answered > commits {
		t.Errorf("%d PUTs answered 2xx, only %d versions committed", answered, commits)
	}
	refused := st.Count("PUT", 409) + st.Count("PUT", 412)
	t.Logf("%d commits, %d answered 2xx, PUT 409: %d, 412: %d, faults %v", commits, answered, st.Count("PUT", 409), st.Count("PUT", 412), st.Faults)
	// With faults, one of the overlapped pair may be dropped before it is
	// judged; without, one of them must have been refused.
	if exact && refused == 0 {
		t.Errorf("no PUT was refused with 409 or 412: no two writes raced, so the test did not check what it names")
	}
}

// overlapPatience is how long fakeapi.OverlapFirstPuts holds the first PUT for a
// second one: far more than the second needs to come.
const overlapPatience = 5 * time.Second
