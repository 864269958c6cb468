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
	"runtime"
	"runtime/metrics"
	"sync/atomic"
)

const mib = 1 << 20

// heapAfterGC returns the live heap after a full collection.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func totalAlloc() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

// usage is what one operation cost the heap.
type usage struct {
	// peak is the most live heap that a collection during the operation
	// found, over the live heap before it: what the operation needs on
	// top of what the process keeps.
	peak uint64
	// alloc is the bytes the operation allocated.
	alloc uint64
}

// measure runs op while another goroutine runs one full collection after
// another, each of which finds the heap live at that moment, and returns
// what op cost. The peak is a sample: a state that lasts shorter than a
// collection may be missed.
func measure(op func()) usage {
	runtime.GC()
	base := liveHeap()
	peak := base
	var done atomic.Bool
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for !done.Load() {
			runtime.GC()
			peak = max(peak, liveHeap())
		}
	}()
	start := totalAlloc()
	op()
	alloc := totalAlloc() - start
	done.Store(true)
	<-stopped
	return usage{peak: peak - base, alloc: alloc}
}

// liveHeap returns the heap that the last collection found live.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// usages collects the cost of repeated operations.
type usages []usage

// maxPeak returns the highest of the peaks, in MiB. Each is a state the
// heap was in, so the highest is the closest to the true peak.
func (us usages) maxPeak() float64 {
	var p uint64
	for _, u := range us {
		p = max(p, u.peak)
	}
	return float64(p) / mib
}

// meanAlloc returns the mean of the bytes allocated, in MiB.
func (us usages) meanAlloc() float64 {
	if len(us) == 0 {
		return 0
	}
	var sum uint64
	for _, u := range us {
		sum += u.alloc
	}
	return float64(sum) / float64(len(us)) / mib
}
