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
	"hash/fnv"
	"slices"
	"strconv"
)

// Bucket returns the bucket of key among n buckets.
func Bucket(key string, n int) int {
	h := fnv.New64a()
	_, _ = h.Write([]byte(key))
	return int(h.Sum64() % uint64(n))
}

// Assign returns, for each of n buckets, the member it belongs to, by
// rendezvous hashing: each bucket goes to the member with the highest score
// for it. The result depends only on the set of members, not on their
// order. With no members every bucket maps to "".
func Assign(members []string, n int) []string {
	sorted := slices.Clone(members)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	out := make([]string, n)
	if len(sorted) == 0 {
		return out
	}
	for b := range out {
		var best uint64
		for i, m := range sorted {
			if s := score(m, b); i == 0 || s > best {
				best, out[b] = s, m
			}
		}
	}
	return out
}

func score(member string, bucket int) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(member))
	_, _ = h.Write([]byte{0})
	_, _ = h.Write([]byte(strconv.Itoa(bucket)))
	// fnv's low bits mix poorly for short inputs that differ at the end;
	// a final avalanche (splitmix64's) spreads them.
	x := h.Sum64()
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
