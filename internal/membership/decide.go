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

import "time"

// move is what a member does with one bucket in a step of its loop.
type move int

const (
	// keep: nothing changes.
	keep move = iota
	// drain: the bucket is held but now belongs to another member; the
	// member admits no new work for it until it is dropped.
	drain
	// drop: the bucket is held, belongs to another member, its admitted
	// work is done and no late write of a holder before this member may
	// still land; the member gives it up.
	drop
	// take: the bucket belongs to this member and no live Lease claims
	// it; the member claims it.
	take
	// retake: the bucket was draining and belongs to this member again;
	// it admits work again.
	retake
)

var moveNames = [...]string{keep: "keep", drain: "drain", drop: "drop", take: "take", retake: "retake"}

func (m move) String() string { return moveNames[m] }

// bucketView is what a member knows of one bucket when it decides.
type bucketView struct {
	held     bool // this member's Lease claims it
	draining bool // it admits no new work for it
	inflight int  // work admitted and not yet released
	mine     bool // the assignment, among the live members, gives it to this member
	claimed  bool // a live Lease of another member claims it
	settled  bool // no write of a holder before this member may still land (SettleAfter has passed)
}

// decide returns what a member does with a bucket it sees as v.
func decide(v bucketView) move {
	switch {
	case v.held && !v.mine && v.inflight == 0 && v.settled:
		return drop
	case v.held && !v.mine && !v.draining:
		return drain
	case v.held && v.mine && v.draining:
		return retake
	case !v.held && v.mine && !v.claimed:
		return take
	}
	return keep
}

// claimEnd is when, at the latest, the right to act of the holder of a
// Lease ended, estimated on this member's clock from when it last saw the
// Lease change (seen) and, for a Lease deleted, when it saw the deletion
// (zero while the Lease exists): the Lease expires a lease duration after
// it last changed, and a deleted Lease ends its holder's right at once.
func claimEnd(seen, deleted time.Time, leaseDuration time.Duration) time.Time {
	end := seen.Add(leaseDuration)
	if !deleted.IsZero() && deleted.Before(end) {
		return deleted
	}
	return end
}

// settleAfter is SettleAfter of a bucket taken at now, where ends are the
// claimEnds of the holders whose claim on it ended ungracefully in this
// member's view: the last of them plus the late write bound, or zero when
// there are none or that time is not after now (every late write has
// landed already).
func settleAfter(now time.Time, ends []time.Time, lateWriteBound time.Duration) time.Time {
	var last time.Time
	for _, e := range ends {
		if e.After(last) {
			last = e
		}
	}
	if last.IsZero() {
		return time.Time{}
	}
	if s := last.Add(lateWriteBound); s.After(now) {
		return s
	}
	return time.Time{}
}
