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
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// PhysicalResult is the fake server's own ceiling of committed writes at one
// document size: one client, no contention, back-to-back conditional PUTs
// of the whole document, each with the ETag the previous one returned.
//
// It is measured before the grid and again after it, and the faster sample
// is the limit: a ceiling is best estimated by the best sample, and a busy
// host only ever slows a sample down.
type PhysicalResult struct {
	ListSize     int     `json:"listSize"`
	DocBytes     int     `json:"docBytes"`
	Writes       int     `json:"writes"`
	Seconds      float64 `json:"seconds"`
	WritesPerSec float64 `json:"writesPerSec"`
	MsPerWrite   float64 `json:"msPerWrite"`
	// Samples are writes/s of each measurement, in order.
	Samples []float64 `json:"samplesWritesPerSec"`
}

// better keeps the faster of two samples of the same list size and
// records both.
func (p PhysicalResult) better(o PhysicalResult) PhysicalResult {
	samples := append(append([]float64(nil), p.Samples...), o.Samples...)
	if o.WritesPerSec > p.WritesPerSec {
		p = o
	}
	p.Samples = samples
	return p
}

// Bounds of the physical-limit measurement.
const (
	physicalMaxWrites = 500
	physicalMaxTime   = 2 * time.Second
)

// measurePhysical runs the physical-limit measurement for one list size.
func measurePhysical(ctx context.Context, n, listSize int, latency time.Duration) (PhysicalResult, error) {
	res := PhysicalResult{ListSize: listSize}
	fake, err := fakeapi.New(fakeapi.WithLatency(latency, 0))
	if err != nil {
		return res, err
	}
	doc := newWorkload(n, listSize).document()
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

	do := func(method string, body []byte, ifMatch string) (string, error) {
		req, err := http.NewRequestWithContext(ctx, method, srv.url, bytes.NewReader(body))
		if err != nil {
			return "", err
		}
		if ifMatch != "" {
			req.Header.Set("If-Match", ifMatch)
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := hc.Do(req)
		if err != nil {
			return "", err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return "", fmt.Errorf("%s: status %d", method, resp.StatusCode)
		}
		return resp.Header.Get("ETag"), nil
	}
	etag, err := do(http.MethodGet, nil, "")
	if err != nil {
		return res, err
	}
	start := time.Now()
	for res.Writes < physicalMaxWrites && time.Since(start) < physicalMaxTime {
		if etag, err = do(http.MethodPut, doc, etag); err != nil {
			return res, err
		}
		res.Writes++
	}
	elapsed := time.Since(start)
	res.Seconds = elapsed.Seconds()
	res.WritesPerSec = float64(res.Writes) / res.Seconds
	res.MsPerWrite = ms(elapsed) / float64(res.Writes)
	res.Samples = []float64{res.WritesPerSec}
	return res, nil
}
