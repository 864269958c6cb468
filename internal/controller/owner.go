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

package controller

import (
	"time"

	"github.com/listkeeper/listkeeper/internal/listconfig"
	"github.com/listkeeper/listkeeper/internal/membership"
)

// Owner decides which replica acts on what. The work is cut into buckets
// by document (listconfig.DocumentBucketKey): a document's entries, its
// lists' own work and its writes fall in one bucket, and a replica acts on
// them only while it holds that bucket, for as long as the work it
// admitted lasts, and only until its right to act ends (ActUntil), which
// fences its writes. *membership.Member implements Owner; SoleOwner owns
// everything, for a single replica.
type Owner interface {
	// Bucket, Owns, ActUntil and SettleAfter are what the list clients'
	// fences need (listconfig.Owner).
	listconfig.Owner
	// Acquire admits work on a bucket, or reports that another replica
	// owns it. release must be called once when the work is done.
	Acquire(bucket int) (release func(), ok bool)
	// OnGained registers a callback for buckets this replica has taken.
	OnGained(f func(gained []int))
}

var _ Owner = (*membership.Member)(nil)

// SoleOwner is the Owner of a replica that runs alone: it owns every
// bucket, for good. It is safe for concurrent use.
type SoleOwner struct{}

var _ Owner = SoleOwner{}

// soleRight is how far ahead a SoleOwner's right to act reaches; it is
// renewed on every call.
const soleRight = time.Hour

// Bucket implements Owner.
func (SoleOwner) Bucket(string) int { return 0 }

// Acquire implements Owner.
func (SoleOwner) Acquire(int) (func(), bool) { return func() {}, true }

// Owns implements Owner.
func (SoleOwner) Owns(int) bool { return true }

// ActUntil implements Owner.
func (SoleOwner) ActUntil(int) (time.Time, bool) { return time.Now().Add(soleRight), true }

// SettleAfter implements Owner.
func (SoleOwner) SettleAfter(int) time.Time { return time.Time{} }

// OnGained implements Owner.
func (SoleOwner) OnGained(func([]int)) {}
