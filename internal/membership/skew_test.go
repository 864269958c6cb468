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

	"k8s.io/utils/clock"
)

// behind is a clock that runs d behind the real one.
type behind struct {
	clock.RealClock
	d time.Duration
}

func (c behind) Now() time.Time                  { return time.Now().Add(-c.d) }
func (c behind) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// TestJoinerGivesAFirstSeenLeaseAFullDuration: a member whose clock runs
// behind is cut off from the API server; it goes on acting until its renew
// deadline. A member that joins just then sees that Lease for the first
// time, with a renewTime that looks old by its own clock. It must give the
// Lease a full lease duration from first sight: from the cut until it holds
// every bucket, it never owns a bucket that the cut member still owns.
func TestJoinerGivesAFirstSeenLeaseAFullDuration(t *testing.T) {
	ns := newNamespace(t)
	cfg, link := flakyConfig()
	opts := testOptions(ns, "a")
	opts.Clock = behind{d: 3 * time.Second}
	a := startMemberWith(t, opts, cfg)
	split(t, 10*time.Second, a)

	cut := time.Now()
	link.broken.Store(true)
	b := startMember(t, ns, "b", nil)
	watch := watchOwnership(a, b)
	eventually(t, leaseDuration, "a to stop acting", func() error {
		for bk := range buckets {
			if a.Owns(bk) {
				return fmt.Errorf("a still owns bucket %d", bk)
			}
		}
		return nil
	})
	eventually(t, 3*leaseDuration, "b to take every bucket", func() error {
		if n := len(b.Held()); n != buckets {
			return fmt.Errorf("b holds %d", n)
		}
		return nil
	})
	watch.check(t)
	t.Logf("b held every bucket %s after the cut (lease %s)", time.Since(cut).Round(time.Millisecond), leaseDuration)
}
