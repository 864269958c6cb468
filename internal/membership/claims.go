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
	"encoding/base64"
	"fmt"

	coordinationv1 "k8s.io/api/coordination/v1"
)

// encodeClaims writes the held buckets as a bitmap, base64 (256 buckets take
// 44 characters).
func encodeClaims(held []bool) string {
	bits := make([]byte, (len(held)+7)/8)
	for b, h := range held {
		if h {
			bits[b/8] |= 1 << (b % 8)
		}
	}
	return base64.RawURLEncoding.EncodeToString(bits)
}

// decodeClaims reads a bitmap written by encodeClaims for n buckets. A
// member configured with another bucket count is a misconfiguration: its
// claims cannot be read, and it is reported.
func decodeClaims(s string, n int) ([]bool, error) {
	bits, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("bucket claims: %w", err)
	}
	if len(bits) != (n+7)/8 {
		return nil, fmt.Errorf("bucket claims for %d buckets, this member has %d", len(bits)*8, n)
	}
	out := make([]bool, n)
	for b := range out {
		out[b] = bits[b/8]&(1<<(b%8)) != 0
	}
	return out, nil
}

// DecodeBuckets returns the buckets a member's Lease claims, from the
// value of its AnnotationBuckets, for n buckets. Tests and benchmarks use
// it to see who holds what.
func DecodeBuckets(s string, n int) ([]int, error) {
	held, err := decodeClaims(s, n)
	if err != nil {
		return nil, err
	}
	var out []int
	for b, h := range held {
		if h {
			out = append(out, b)
		}
	}
	return out, nil
}

// EncodeBuckets returns the value of a member's AnnotationBuckets that
// claims buckets, of n: what DecodeBuckets reads back. Buckets outside
// [0, n) are left out. Tests and tools use it to write a Lease as a member
// would.
func EncodeBuckets(buckets []int, n int) string {
	held := make([]bool, n)
	for _, b := range buckets {
		if b >= 0 && b < n {
			held[b] = true
		}
	}
	return encodeClaims(held)
}

// claimsOf returns the buckets the Lease l claims, of n buckets. Claims
// that cannot be read (err says why) count as claiming every bucket: a
// member must not take what another may hold.
func claimsOf(l *coordinationv1.Lease, n int) (claims []bool, err error) {
	claims, err = decodeClaims(l.Annotations[AnnotationBuckets], n)
	if err != nil {
		claims = make([]bool, n)
		for b := range claims {
			claims[b] = true
		}
	}
	return claims, err
}
