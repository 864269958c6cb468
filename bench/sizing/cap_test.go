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
	"errors"
	"fmt"
	"testing"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// atCap returns the shape of the largest list the client's default caps
// allow with IDs of idLen bytes: as many IDs as fit in the body cap, at
// most the item cap.
func atCap(idLen int, escaped bool) shape {
	sh := shape{idLen: idLen, escaped: escaped}
	room := int(etagclient.DefaultMaxBodyBytes) - len(`{"items":[]}`) + 1 // the last ID has no comma
	sh.ids = min(etagclient.DefaultMaxItems, room/(sh.spelledLen()+1))
	return sh
}

// BenchmarkListAtCap measures the largest list a client with the default
// caps accepts, for IDs of 4 bytes and UUIDs (bound by the item cap), of
// 80 bytes (both caps), of etagclient.MaxIDLength bytes (the body cap), and
// of 80 bytes each spelled with an escape (the worst case: the client
// decodes each apart from the document). It reports:
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
//     PUT).
//
// A peak is the highest over the iterations (see measure); ns/op means
// nothing here, since the collector runs far more often than it would in
// the manager.
func BenchmarkListAtCap(b *testing.B) {
	shapes := []shape{atCap(4, false), atCap(36, false), atCap(80, false), atCap(etagclient.MaxIDLength, false), atCap(80, true)}
	for _, sh := range shapes {
		name := fmt.Sprintf("idLen=%d/escaped=%t/ids=%d/MB=%.1f", sh.idLen, sh.escaped, sh.ids, float64(sh.documentBytes())/1e6)
		b.Run(name, func(b *testing.B) {
			srv := startServer(b, sh)
			ctx := context.Background()
			before := heapAfterGC()
			c, err := etagclient.New(srv.url, etagclient.WithItemsPointer("/items"), etagclient.WithBatchInterval(0))
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
				ch := etagclient.Change{Remove: []string{id(k+1, sh.idLen)}, Add: []string{id(clientBase+k, sh.idLen)}}
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

// TestOverCapKeepsNothing checks that a client with the default caps
// refuses a list one item or a few bytes over them, on read and on write,
// and keeps nothing of it: the heap after a collection is within 1 MiB of
// what it was before the client existed, where keeping the refused
// document would cost at least 2 MiB.
func TestOverCapKeepsNothing(t *testing.T) {
	tests := []struct {
		name string
		sh   shape
		want error
	}{
		{"one item over", shape{ids: etagclient.DefaultMaxItems + 1, idLen: 4}, etagclient.ErrTooManyItems},
		{"one ID over the body cap", func() shape {
			sh := atCap(etagclient.MaxIDLength, false)
			sh.ids++
			return sh
		}(), etagclient.ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t, tt.sh)
			ctx := context.Background()
			before := heapAfterGC()
			c, err := etagclient.New(srv.url, etagclient.WithItemsPointer("/items"), etagclient.WithBatchInterval(0))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := c.Read(ctx); !errors.Is(err, tt.want) {
				t.Fatalf("Read: %v, want %v", err, tt.want)
			}
			if _, err := c.Update(ctx, etagclient.Change{Remove: []string{id(1, tt.sh.idLen)}}); !errors.Is(err, tt.want) {
				t.Fatalf("Update: %v, want %v", err, tt.want)
			}
			kept := int64(heapAfterGC()) - int64(before)
			t.Logf("kept %d bytes", kept)
			if kept > 1<<20 {
				t.Errorf("the client keeps %.1f MiB after refusing a list of %d IDs (%.1f MB), want at most 1 MiB",
					float64(kept)/mib, tt.sh.ids, float64(tt.sh.documentBytes())/1e6)
			}
		})
	}
}
