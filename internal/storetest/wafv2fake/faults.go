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

package wafv2fake

import (
	"net/http"
	"sync/atomic"
	"time"
)

// OverlapFirstUpdates returns a fault hook that holds the first
// UpdateIPSet to reach the server until a second UpdateIPSet has reached
// it too, then lets both go on. No update runs before the second arrives,
// so both were sent after reading the same lock token (a client sends one
// update at a time, and nothing changed the set in between), and at most
// one of them can commit: the other gets WAFOptimisticLockException. A
// test that names a race makes it happen for certain this way, rather
// than by luck of scheduling. When no second update comes within
// patience, the first goes on alone, and the test's check for a
// WAFOptimisticLockException says that no race happened.
func OverlapFirstUpdates(patience time.Duration) FaultHook {
	var updates atomic.Int32
	second := make(chan struct{})
	return func(op string, r *http.Request) *Error {
		if op != OpUpdateIPSet {
			return nil
		}
		switch updates.Add(1) {
		case 1:
			timer := time.NewTimer(patience)
			defer timer.Stop()
			select {
			case <-second:
			case <-timer.C:
			case <-r.Context().Done():
			}
		case 2:
			close(second)
		}
		return nil
	}
}

// FailFirst returns a fault hook that answers the first n requests of
// operation op with the error that fault builds, and lets every other
// request through: "throttled twice, then served".
func FailFirst(op string, n int, fault func() *Error) FaultHook {
	var seen atomic.Int64
	return func(o string, _ *http.Request) *Error {
		if o != op || seen.Add(1) > int64(n) {
			return nil
		}
		return fault()
	}
}
