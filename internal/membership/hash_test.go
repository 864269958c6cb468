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
	"fmt"
	"slices"
	"testing"
)

// TestAssign checks the rendezvous assignment: every bucket has an owner
// among the members, the result does not depend on the members' order, the
// load is roughly even, and a join or a leave moves about 1/R of the
// buckets, all of them to or from the member that came or went.
func TestAssign(t *testing.T) {
	const n = 1024
	members := []string{"a-1", "b-2", "c-3"}
	got := Assign(members, n)
	if !slices.Equal(got, Assign([]string{"c-3", "a-1", "b-2", "a-1"}, n)) {
		t.Fatal("the assignment depends on the order of the members")
	}
	load := map[string]int{}
	for b, m := range got {
		if !slices.Contains(members, m) {
			t.Fatalf("bucket %d assigned to %q, not a member", b, m)
		}
		load[m]++
	}
	for m, l := range load {
		if l < n/3*7/10 || l > n/3*13/10 {
			t.Errorf("member %s owns %d of %d buckets; want about a third", m, l, n)
		}
	}

	joined := Assign(append(members, "d-4"), n)
	moved := 0
	for b := range got {
		if got[b] != joined[b] {
			moved++
			if joined[b] != "d-4" {
				t.Errorf("bucket %d moved from %s to %s on a join of d-4", b, got[b], joined[b])
			}
		}
	}
	if moved < n/4*7/10 || moved > n/4*13/10 {
		t.Errorf("a fourth member took %d of %d buckets; want about a quarter", moved, n)
	}

	left := Assign([]string{"a-1", "c-3"}, n)
	for b := range got {
		if got[b] != left[b] && got[b] != "b-2" {
			t.Errorf("bucket %d of %s moved when b-2 left", b, got[b])
		}
	}
	if empty := Assign(nil, 4); !slices.Equal(empty, []string{"", "", "", ""}) {
		t.Errorf("Assign with no members = %q", empty)
	}
}

// TestBucketSpread checks that keys spread over the buckets.
func TestBucketSpread(t *testing.T) {
	const n, keys = 64, 64 * 200
	counts := make([]int, n)
	for i := range keys {
		b := Bucket(fmt.Sprintf("entry\x00https://lists.example.com/allow\x00tenant-%d", i), n)
		if b < 0 || b >= n {
			t.Fatalf("bucket %d out of range", b)
		}
		counts[b]++
	}
	for b, c := range counts {
		if c < 200*6/10 || c > 200*14/10 {
			t.Errorf("bucket %d got %d keys; want about 200", b, c)
		}
	}
}

// TestClaimsRoundTrip checks the bitmap a member publishes its buckets in.
func TestClaimsRoundTrip(t *testing.T) {
	for _, n := range []int{1, 7, 8, 9, 256} {
		held := make([]bool, n)
		for b := range held {
			held[b] = b%3 == 0
		}
		got, err := decodeClaims(encodeClaims(held), n)
		if err != nil || !slices.Equal(got, held) {
			t.Errorf("n=%d: round trip gave %v, %v", n, got, err)
		}
	}
	if _, err := decodeClaims(encodeClaims(make([]bool, 16)), 256); err == nil {
		t.Error("claims for 16 buckets were read as claims for 256")
	}
	if _, err := decodeClaims("not base64!", 8); err == nil {
		t.Error("a malformed annotation was accepted")
	}
}
