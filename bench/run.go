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

package bench

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// replicaRun is the live state of one replica during a run.
type replicaRun struct {
	queue  []string
	next   atomic.Int64
	counts reqCounts
	tr     *http.Transport
	rem    remover

	mu        sync.Mutex
	lat       []time.Duration
	succeeded []string
	givenUp   int
	lastDone  time.Duration
	errs      map[string]bool
}

// stopGrace bounds how long a run waits, after its cap, for its goroutines
// and for the server's requests in flight.
const stopGrace = 15 * time.Second

// runPoint runs one strategy at one grid point on a fresh server.
func runPoint(ctx context.Context, st strategy, p Point, timeCap time.Duration) (RunResult, error) {
	res := RunResult{Strategy: st.name(), Variant: st.variant(), Point: p, TimeCapSec: timeCap.Seconds()}
	fake, err := fakeapi.New(fakeapi.WithLatency(p.Latency, 0), fakeapi.WithRequireIfMatch(!st.blindWrites()))
	if err != nil {
		return res, err
	}
	w := newWorkload(p.N, p.ListSize)
	if _, err := fake.Set(listPath, w.document()); err != nil {
		return res, err
	}
	srv, err := startServer(fake)
	if err != nil {
		return res, err
	}

	reps := make([]*replicaRun, p.Replicas)
	for i := range reps {
		r := &replicaRun{queue: w.forReplica(i, p.Replicas), errs: map[string]bool{}}
		hc, tr := newReplicaHTTPClient(p.Concurrency, &r.counts)
		r.tr = tr
		if r.rem, err = st.newReplica(replicaEnv{url: srv.url, http: hc}); err != nil {
			_ = srv.stop(stopGrace)
			return res, fmt.Errorf("replica %d: %w", i, err)
		}
		reps[i] = r
	}

	runtime.GC()
	alloc0 := totalAlloc()
	heap := startHeapSampler(5 * time.Millisecond)
	runCtx, cancel := context.WithTimeout(ctx, timeCap)
	start := time.Now()
	var wg sync.WaitGroup
	for _, r := range reps {
		for range p.Concurrency {
			wg.Go(func() { r.work(runCtx, start) })
		}
	}
	stuck := !waitTimeout(&wg, timeCap+stopGrace)
	wall := time.Since(start)
	cancel()
	res.PeakHeapMiB = mib(heap.finish())
	res.AllocMiB = mib(totalAlloc() - alloc0)

	var product *productStats
	for _, r := range reps {
		if ps := r.rem.stats(); ps != nil {
			if product == nil {
				product = &productStats{}
			}
			product.add(ps)
		}
		r.rem.close()
	}
	stopErr := srv.stop(stopGrace)
	for _, r := range reps {
		r.tr.CloseIdleConnections()
	}
	if stopErr != nil {
		return res, fmt.Errorf("%s at %s: stop server: %w", st.name(), p, stopErr)
	}
	final, _, ok := fake.Get(listPath)
	if !ok {
		return res, errors.New("the list document is gone")
	}
	out, err := w.judge(final)
	if err != nil {
		return res, err
	}
	// Stragglers can no longer reach the server, and they record nothing
	// once the run's context has ended; fill reads under each replica's
	// lock.
	res.Stragglers = stuck
	res.fill(reps, out, fake.Stats(), product, wall)
	return res, nil
}

// work removes the replica's targets one at a time until the queue is empty
// or the run's context ends.
func (r *replicaRun) work(ctx context.Context, start time.Time) {
	for ctx.Err() == nil {
		i := int(r.next.Add(1)) - 1
		if i >= len(r.queue) {
			return
		}
		id := r.queue[i]
		t0 := time.Now()
		err := r.rem.remove(ctx, id)
		d := time.Since(t0)
		if err != nil && ctx.Err() != nil {
			return // unfinished: the cap hit while it was in flight
		}
		r.mu.Lock()
		r.lat = append(r.lat, d)
		if err == nil {
			r.succeeded = append(r.succeeded, id)
		} else {
			r.givenUp++
			if len(r.errs) < 3 {
				r.errs[err.Error()] = true
			}
		}
		r.lastDone = max(r.lastDone, time.Since(start))
		r.mu.Unlock()
	}
}

// waitTimeout waits for wg at most d and reports whether it finished.
func waitTimeout(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}
