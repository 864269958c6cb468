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

package ipgroupfake

import "sync/atomic"

// FailFirst returns a fault hook that answers the first n requests of
// operation op with the error that fault builds, and lets every other
// request through: "throttled twice, then served".
func FailFirst(op string, n int, fault func() *Error) FaultHook {
	var seen atomic.Int64
	return func(c Call) *Error {
		if c.Operation != op || seen.Add(1) > int64(n) {
			return nil
		}
		return fault()
	}
}
