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

package membership_test

import (
	"fmt"
	"testing"
	"time"
)

// TestMembersJoiningAtOnceNeverShareABucket: members that start at the
// same instant each see no other Lease and find every bucket free. Each
// admits work on every bucket it gains, as a controller would, and holds
// it a while. They must still never own one bucket together, from their
// start until they have divided the buckets.
func TestMembersJoiningAtOnceNeverShareABucket(t *testing.T) {
	for round := range 3 {
		t.Run(fmt.Sprintf("round %d", round), func(t *testing.T) {
			ns := newNamespace(t)
			ids := []string{"a", "b", "c"}
			members := make([]*running, len(ids))
			for i, id := range ids {
				m := newMember(t, testOptions(ns, id), nil)
				m.OnGained(func(gained []int) {
					for _, b := range gained {
						if release, ok := m.Acquire(b); ok {
							time.AfterFunc(200*time.Millisecond, release)
						}
					}
				})
				members[i] = m
			}
			watch := watchOwnership(members...)
			for _, m := range members {
				m.start(t)
			}
			split(t, 10*time.Second, members...)
			watch.check(t)
		})
	}
}
