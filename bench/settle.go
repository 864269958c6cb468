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
	"fmt"
	"runtime"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// SettleResult is the cost of deciding, after a read, which changes of a
// cycle are already done (etagclient.Settled), against one Apply of all of
// them. Times and allocations are medians over Reps.
type SettleResult struct {
	ListSize int `json:"listSize"`
	Changes  int `json:"changes"`
	Reps     int `json:"reps"`
	// SettleMs and SettleMiB: etagclient.Settled over every change.
	SettleMs  float64 `json:"settleMs"`
	SettleMiB float64 `json:"settleMiB"`
	// ApplyMs and ApplyMiB: one etagclient.Apply of every change.
	ApplyMs  float64 `json:"applyMs"`
	ApplyMiB float64 `json:"applyMiB"`
	// Ratio is SettleMs / ApplyMs.
	Ratio float64 `json:"ratio"`
}

// measureSettle measures the settle step on a list of listSize IDs with
// changes single-ID changes (half additions of new IDs, half removals of
// present ones), the shape of a cycle in an operator.
func measureSettle(listSize, changes, reps int) (SettleResult, error) {
	if listSize < changes || changes < 1 || reps < 1 {
		return SettleResult{}, fmt.Errorf("settle: need 1 <= changes <= list size and reps >= 1")
	}
	items := make([]string, listSize)
	for i := range items {
		items[i] = fmt.Sprintf("id-%07d", i)
	}
	chs := make([]etagclient.Change, changes)
	for i := range chs {
		if i%2 == 0 {
			chs[i] = etagclient.Change{Add: []string{fmt.Sprintf("new-%03d", i)}}
		} else {
			chs[i] = etagclient.Change{Remove: []string{items[i*listSize/changes]}}
		}
	}
	res := SettleResult{ListSize: listSize, Changes: changes, Reps: reps}
	res.SettleMs, res.SettleMiB = medianCost(reps, func() { etagclient.Settled(items, chs) })
	res.ApplyMs, res.ApplyMiB = medianCost(reps, func() { etagclient.Apply(items, chs...) })
	res.Ratio = safeDiv(res.SettleMs, res.ApplyMs)
	return res, nil
}

// medianCost runs f reps times and returns the median time in ms and the
// median bytes allocated in MiB.
func medianCost(reps int, f func()) (float64, float64) {
	ms := make([]float64, reps)
	allocMiB := make([]float64, reps)
	for i := range reps {
		runtime.GC()
		alloc0 := totalAlloc()
		start := time.Now()
		f()
		ms[i] = float64(time.Since(start).Microseconds()) / 1000
		allocMiB[i] = mib(totalAlloc() - alloc0)
	}
	return medianF(ms), medianF(allocMiB)
}
