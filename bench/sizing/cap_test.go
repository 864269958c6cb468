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

package sizing_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// The caps the largest list is measured at: the manager's defaults.
const (
	capBodyBytes = 8 << 20
	capItems     = 100_000
)

// atCap returns the shape of the largest list the caps allow with IDs of
// idLen bytes: as many IDs as fit in the body cap, at most the item cap.
func atCap(idLen int) shape {
	n := min(capItems, (capBodyBytes-len(`{"items":[]}`)+1)/(idLen+3))
	return shape{ids: n, idLen: idLen}
}

// BenchmarkListAtCap measures the largest list a client accepts, for short
// IDs (4 bytes), UUIDs (36 bytes), both bound by the item cap, and IDs of
// etagclient.MaxIDLength bytes, bound by the body cap. It reports:
//
//   - MiB-kept: the heap one client keeps for the list after reading it
//     (its cached document);
//   - MiB-peak/read and MiB-alloc/read: for a full read after another
//     writer changed the list, the most heap in use at once on top of what
//     is kept, and the bytes allocated;
//   - MiB-peak/write and MiB-alloc/write: the same for a write from a
//     current cache (the edit and the PUT);
//   - MiB-peak/conflict and MiB-alloc/conflict: the same for a write that
//     loses to another writer first (PUT 412, a full read, the edit, the
//     PUT), the most a write costs.
//
// A peak is the highest over the iterations (see measure); ns/op means
// nothing here, since the collector runs far more often than it would in
// the manager.
func BenchmarkListAtCap(b *testing.B) {
	for _, idLen := range []int{4, 36, etagclient.MaxIDLength} {
		sh := atCap(idLen)
		name := fmt.Sprintf("idLen=%d/ids=%d/MB=%.1f", idLen, sh.ids, float64(documentBytes(sh.ids, idLen))/1e6)
		b.Run(name, func(b *testing.B) {
			srv := startServer(b, sh)
			ctx := context.Background()
			before := heapAfterGC()
			c, err := etagclient.New(srv.url, etagclient.WithItemsPointer("/items"),
				etagclient.WithMaxBodyBytes(capBodyBytes), etagclient.WithBatchInterval(0))
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			if _, err := c.Read(ctx); err != nil {
				b.Fatal(err)
			}
			kept := heapAfterGC() - before

			// Each write replaces one of the list's IDs with a new one of
			// the same length, so the list stays at the cap.
			k := 0
			replace := func() {
				if k >= sh.ids-1 {
					b.Fatal("ran out of IDs to replace")
				}
				ch := etagclient.Change{Remove: []string{id(k+1, idLen)}, Add: []string{id(clientBase+k, idLen)}}
				k++
				res, err := c.Update(ctx, ch)
				if err != nil {
					b.Fatal(err)
				}
				if res.Items != sh.ids || !res.Written {
					b.Fatalf("Update = %+v, want a write leaving %d IDs", res, sh.ids)
				}
			}
			var reads, writes, conflicts usages
			for b.Loop() {
				b.StopTimer()
				srv.touch(b)
				b.StartTimer()
				reads = append(reads, measure(func() {
					if _, err := c.Read(ctx); err != nil {
						b.Fatal(err)
					}
				}))
				writes = append(writes, measure(replace))
				b.StopTimer()
				srv.touch(b)
				b.StartTimer()
				conflicts = append(conflicts, measure(replace))
			}
			b.ReportMetric(float64(kept)/mib, "MiB-kept")
			b.ReportMetric(reads.maxPeak(), "MiB-peak/read")
			b.ReportMetric(reads.meanAlloc(), "MiB-alloc/read")
			b.ReportMetric(writes.maxPeak(), "MiB-peak/write")
			b.ReportMetric(writes.meanAlloc(), "MiB-alloc/write")
			b.ReportMetric(conflicts.maxPeak(), "MiB-peak/conflict")
			b.ReportMetric(conflicts.meanAlloc(), "MiB-alloc/conflict")
		})
	}
}
