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

package membership

import (
	"testing"
	"time"
)

// TestDecide checks what a member does with one bucket in each state it
// can see it in.
func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    bucketView
		want move
	}{
		{"held and mine", bucketView{held: true, mine: true, settled: true}, keep},
		{"held and mine, with work", bucketView{held: true, mine: true, inflight: 2, settled: true}, keep},
		{"held and mine, unsettled", bucketView{held: true, mine: true}, keep},
		{"held, another's, idle", bucketView{held: true, settled: true}, drop},
		{"held, another's, idle, unsettled", bucketView{held: true}, drain},
		{"held, another's, with work", bucketView{held: true, inflight: 1, settled: true}, drain},
		{"draining, with work", bucketView{held: true, draining: true, inflight: 1, settled: true}, keep},
		{"draining, idle", bucketView{held: true, draining: true, settled: true}, drop},
		{"draining, idle, unsettled", bucketView{held: true, draining: true}, keep},
		{"draining, mine again", bucketView{held: true, draining: true, mine: true, inflight: 1}, retake},
		{"draining, mine again, idle", bucketView{held: true, draining: true, mine: true}, retake},
		{"mine, free", bucketView{mine: true}, take},
		{"mine, claimed by a live Lease", bucketView{mine: true, claimed: true}, keep},
		{"another's", bucketView{}, keep},
		{"another's, claimed", bucketView{claimed: true}, keep},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := decide(tc.v); got != tc.want {
				t.Errorf("decide(%+v) = %s, want %s", tc.v, got, tc.want)
			}
		})
	}
}

// TestSettleAfter checks when a bucket taken from holders whose claims
// ended ungracefully is settled: after the last of their rights to act
// ended plus the late write bound.
func TestSettleAfter(t *testing.T) {
	const (
		lease = 10 * time.Second
		late  = 3 * time.Second
	)
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	at := t0.Add
	for _, tc := range []struct {
		name string
		now  time.Time
		ends []time.Time
		want time.Time
	}{
		{"no holder before", at(0), nil, time.Time{}},
		{"a Lease that expired just now", at(lease), []time.Time{claimEnd(at(0), time.Time{}, lease)}, at(lease + late)},
		{"a Lease deleted while live", at(time.Second), []time.Time{claimEnd(at(0), at(time.Second), lease)}, at(time.Second + late)},
		{"a Lease deleted after it expired", at(time.Minute), []time.Time{claimEnd(at(0), at(time.Minute), lease)}, time.Time{}},
		{"a collected Lease, late writes pending", at(lease + time.Second), []time.Time{claimEnd(at(0), at(lease+time.Second), lease)}, at(lease + late)},
		{"the last of several", at(lease), []time.Time{at(lease), at(2 * time.Second), at(lease + time.Second)}, at(lease + time.Second + late)},
		{"every late write landed", at(lease + late), []time.Time{at(lease)}, time.Time{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := settleAfter(tc.now, tc.ends, late); !got.Equal(tc.want) {
				t.Errorf("settleAfter = %v, want %v", got, tc.want)
			}
		})
	}
}
