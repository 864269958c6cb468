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

// BenchmarkClientMemory measures, per list size, the heap one client keeps
// after its first write (the cached document, retained) and the bytes each
// further write allocates (a read of the whole document after another
// writer changed it, the edit, and the PUT body).
func BenchmarkClientMemory(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("ids=%d", n), func(b *testing.B) {
			srv := startServer(b, shape{ids: n, idLen: 10})
			ctx := context.Background()

			before := heapAfterGC()
			c, err := etagclient.New(srv.url, etagclient.WithItemsPointer("/items"))
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			// Each write replaces one of the list's IDs, so the list keeps
			// its size.
			k := 0
			replace := func() {
				if _, err := c.Update(ctx, etagclient.Change{Remove: []string{id(k+1, 10)}, Add: []string{id(clientBase+k, 10)}}); err != nil {
					b.Fatal(err)
				}
				k++
			}
			replace()
			retained := heapAfterGC() - before

			var allocated uint64
			for b.Loop() {
				// Another writer changes the list, so each write of c reads
				// the whole document again, as a replica does after a 412.
				b.StopTimer()
				srv.touch(b)
				start := totalAlloc()
				b.StartTimer()
				replace()
				allocated += totalAlloc() - start
			}
			b.ReportMetric(float64(retained)/mib, "MiB-retained")
			b.ReportMetric(float64(allocated)/float64(b.N)/mib, "MiB-alloc/write")
		})
	}
}
