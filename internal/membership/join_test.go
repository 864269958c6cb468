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
