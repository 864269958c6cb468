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
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// MicroResult is one combined write of Changes removals to a list of
// ListSize IDs through the product client, against the fake server's own
// time to handle the same PUT. Times and allocations are medians over Reps.
type MicroResult struct {
	ListSize int `json:"listSize"`
	Changes  int `json:"changes"`
	Reps     int `json:"reps"`
	DocBytes int `json:"docBytes"`
	// ClientWriteMs is submit-all to all-committed: apply, encode, PUT over
	// loopback (server included, latency 0), answer.
	ClientWriteMs  float64   `json:"clientWriteMs"`
	ClientWriteAll []float64 `json:"clientWriteAllMs"`
	// ServerHandleMs is fakeapi.Server.ServeHTTP on the same PUT body with
	// an httptest.ResponseRecorder.
	ServerHandleMs  float64   `json:"serverHandleMs"`
	ServerHandleAll []float64 `json:"serverHandleAllMs"`
	// Ratio is ClientWriteMs / ServerHandleMs.
	Ratio float64 `json:"ratio"`
	// ProcessAllocMiB is allocated during the client write by the whole
	// process (client and in-process server); ServerAllocMiB by the handler
	// alone; ClientAllocMiB is the difference.
	ProcessAllocMiB float64 `json:"processAllocMiB"`
	ServerAllocMiB  float64 `json:"serverAllocMiB"`
	ClientAllocMiB  float64 `json:"clientAllocMiB"`
	// BaseHeapMiB is the live heap before the write (after a GC) and
	// PeakHeapMiB the highest live heap sampled during it.
	BaseHeapMiB float64 `json:"baseHeapMiB"`
	PeakHeapMiB float64 `json:"peakHeapMiB"`
	// OneWrite reports that every rep was exactly one PUT carrying every
	// change and no GET.
	OneWrite bool `json:"oneWrite"`
}

// measureMicro runs the micro-measurement.
func measureMicro(ctx context.Context, listSize, changes, reps int) (MicroResult, error) {
	res := MicroResult{ListSize: listSize, Changes: changes, Reps: reps, OneWrite: true}
	fake, err := fakeapi.New()
	if err != nil {
		return res, err
	}
	w := newWorkload(changes*reps, listSize)
	doc := w.document()
	res.DocBytes = len(doc)
	if _, err := fake.Set(listPath, doc); err != nil {
		return res, err
	}
	srv, err := startServer(fake)
	if err != nil {
		return res, err
	}
	defer func() { _ = srv.stop(stopGrace) }()
	var counts reqCounts
	hc, tr := newReplicaHTTPClient(1, &counts)
	defer tr.CloseIdleConnections()
	obs := &etagclient.Counters{}
	c, err := etagclient.New(srv.url, etagclient.WithHTTPClient(hc), etagclient.WithObserver(obs), etagclient.WithBatchInterval(0))
	if err != nil {
		return res, err
	}
	defer c.Close()

	var clientT, serverT []time.Duration
	var procAlloc, servAlloc []uint64
	var lastBefore []byte
	for rep := range reps {
		before, _, _ := fake.Get(listPath)
		d, alloc, base, peak, one, err := microWrite(ctx, c, obs, w.targets[rep*changes:(rep+1)*changes])
		if err != nil {
			return res, fmt.Errorf("micro rep %d: %w", rep, err)
		}
		clientT, procAlloc = append(clientT, d), append(procAlloc, alloc)
		res.BaseHeapMiB, res.PeakHeapMiB = mib(base), max(res.PeakHeapMiB, mib(peak))
		res.OneWrite = res.OneWrite && one
		lastBefore = before
	}
	body, _, _ := fake.Get(listPath)
	for range max(reps, 5) {
		d, alloc, err := serverHandle(lastBefore, body)
		if err != nil {
			return res, err
		}
		serverT, servAlloc = append(serverT, d), append(servAlloc, alloc)
	}
	for _, d := range clientT {
		res.ClientWriteAll = append(res.ClientWriteAll, ms(d))
	}
	for _, d := range serverT {
		res.ServerHandleAll = append(res.ServerHandleAll, ms(d))
	}
	res.ClientWriteMs, res.ServerHandleMs = ms(median(clientT)), ms(median(serverT))
	res.Ratio = res.ClientWriteMs / res.ServerHandleMs
	res.ProcessAllocMiB, res.ServerAllocMiB = mib(medianU(procAlloc)), mib(medianU(servAlloc))
	res.ClientAllocMiB = max(0, res.ProcessAllocMiB-res.ServerAllocMiB)
	return res, nil
}

// microWrite makes the client carry ids in one write. A first change that
// holds already occupies the client's cycle goroutine, whose completion
// callback then waits until every removal has been submitted: when it is
// released, the next cycle takes all of them at once.
func microWrite(ctx context.Context, c *etagclient.Client, obs *etagclient.Counters, ids []string) (d time.Duration, alloc, base, peak uint64, one bool, err error) {
	gate := make(chan struct{})
	released := false
	release := func() {
		if !released {
			released = true
			close(gate)
		}
	}
	defer release()
	prime, err := c.Submit(etagclient.Change{Remove: []string{"micro-absent"}}, func() { <-gate })
	if err != nil {
		return 0, 0, 0, 0, false, err
	}
	select {
	case <-prime.Done():
	case <-ctx.Done():
		return 0, 0, 0, 0, false, ctx.Err()
	}
	if _, err := prime.Result(); err != nil {
		return 0, 0, 0, 0, false, fmt.Errorf("prime: %w", err)
	}
	pend := make([]*etagclient.Pending, len(ids))
	for i, id := range ids {
		if pend[i], err = c.Submit(etagclient.Change{Remove: []string{id}}, nil); err != nil {
			return 0, 0, 0, 0, false, err
		}
	}
	puts0, gets0, batches0 := obs.Puts.Load(), obs.Gets.Load(), obs.Batches.Load()
	runtime.GC()
	base = heapNow()
	heap := startHeapSampler(time.Millisecond)
	alloc0 := totalAlloc()
	t0 := time.Now()
	release()
	deadline := time.NewTimer(stopGrace)
	defer deadline.Stop()
	for _, p := range pend {
		select {
		case <-p.Done():
		case <-deadline.C:
			heap.finish()
			return 0, 0, 0, 0, false, errors.New("the combined write did not finish")
		}
		if _, err := p.Result(); err != nil {
			heap.finish()
			return 0, 0, 0, 0, false, err
		}
	}
	d = time.Since(t0)
	alloc = totalAlloc() - alloc0
	peak = heap.finish()
	one = obs.Puts.Load()-puts0 == 1 && obs.Gets.Load() == gets0 && obs.Batches.Load()-batches0 == 1
	return d, alloc, base, peak, one, nil
}

// serverHandle times the fake server's handler on one PUT of body over a
// stored document before, with latency 0 and no network.
func serverHandle(before, body []byte) (time.Duration, uint64, error) {
	fake, err := fakeapi.New()
	if err != nil {
		return 0, 0, err
	}
	etag, err := fake.Set(listPath, before)
	if err != nil {
		return 0, 0, err
	}
	req := httptest.NewRequest(http.MethodPut, listPath, bytes.NewReader(body))
	req.Header.Set("If-Match", etag)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	runtime.GC()
	alloc0 := totalAlloc()
	t0 := time.Now()
	fake.ServeHTTP(rec, req)
	d := time.Since(t0)
	alloc := totalAlloc() - alloc0
	if rec.Code != http.StatusOK {
		return 0, 0, fmt.Errorf("direct PUT: status %d", rec.Code)
	}
	return d, alloc, nil
}

func medianU(v []uint64) uint64 {
	ds := make([]time.Duration, len(v))
	for i, x := range v {
		ds[i] = time.Duration(x)
	}
	return uint64(median(ds))
}
