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
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/go-logr/logr"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
)

// Start runs the membership until ctx ends, or until the Lease cannot be
// renewed for the renew deadline: then it has stopped acting, and it
// returns an error. When ctx ends it hands every bucket over (it waits for
// the work it admitted, for up to ShutdownTimeout), deletes its Lease and
// returns nil; if work is still outstanding then, it stops acting and
// leaves its Lease to expire, so that the others take over as from a
// member that died.
func (m *Member) Start(ctx context.Context) error {
	log := m.opts.Log.WithValues("member", m.opts.Identity)
	watchCtx, stopWatch := context.WithCancel(context.Background())
	defer stopWatch()
	if err := m.watchPeers(watchCtx); err != nil {
		return err
	}
	// Every call has its own deadline; the end of ctx starts the leave,
	// which still needs the API server.
	calls := context.WithoutCancel(ctx)
	if err := m.step(calls); err != nil {
		return err
	}
	log.Info("joined", "lease", m.opts.Namespace+"/"+m.leaseName, "buckets", len(m.Held()))
	ticker := m.opts.Clock.NewTicker(m.opts.RenewPeriod / 2)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return m.leave(calls, ticker, log)
		case <-ticker.C():
		case <-m.wake:
		}
		if ctx.Err() != nil {
			return m.leave(calls, ticker, log)
		}
		if err := m.step(calls); err != nil {
			return err
		}
	}
}

// step renews the Lease when due, gives up drained buckets and takes free
// ones.
func (m *Member) step(ctx context.Context) error {
	now := m.opts.Clock.Now()
	p, err := m.plan(now)
	if err != nil {
		return err
	}
	// The Lease still claims a regained bucket: it is reported at once.
	notify(p.subs, p.regained)
	if p.changed || p.due {
		written, err := m.write(ctx, p, now)
		if err != nil {
			return err
		}
		if written {
			gained := m.hold(ctx, p)
			if len(gained) > 0 {
				m.opts.Log.V(1).Info("buckets taken", "count", len(gained))
			}
			notify(p.subs, gained)
			if p.due {
				m.collect(ctx, now)
			}
		}
	}
	if len(p.confirm) > 0 {
		m.confirmExpired(ctx, p.confirm)
	}
	return nil
}

// stepPlan is what one step does, decided under the lock.
type stepPlan struct {
	claims   []bool // the claims to write: the buckets held and taken
	changed  bool   // they differ from the Lease's
	due      bool   // the Lease is due for renewal (or creation)
	gained   []int  // buckets the write takes
	settle   map[int]time.Time
	regained []int    // draining buckets that are this member's again
	confirm  []string // expired Leases to read before their buckets are taken
	epoch    int
	subs     []func([]int)
}

// plan decides the moves of every bucket at now and applies those that
// need no write: draining, dropping from held, retaking. It fails when the
// right to act has lapsed without a renewal.
func (m *Member) plan(now time.Time) (stepPlan, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.renewed.IsZero() && now.Sub(m.renewed) > m.renewDeadline {
		m.loseLeaseLocked()
		return stepPlan{}, fmt.Errorf("membership: lease %s/%s not renewed for %s: stopped acting", m.opts.Namespace, m.leaseName, now.Sub(m.renewed).Round(time.Millisecond))
	}
	p := stepPlan{claims: slices.Clone(m.held), settle: map[int]time.Time{}, epoch: m.epoch, subs: slices.Clone(m.subs)}
	owner := Assign(m.liveLocked(now), m.opts.Buckets)
	confirm := map[string]bool{}
	for b := range p.claims {
		v := bucketView{held: m.held[b], draining: m.draining[b], inflight: m.inflight[b],
			mine:    !m.leaving && owner[b] == m.opts.Identity,
			claimed: m.claimedByPeerLocked(b, now), settled: !now.Before(m.settle[b])}
		switch decide(v) {
		case drain:
			m.draining[b] = true
		case drop:
			// It stops being held before the write that drops it.
			m.held[b], m.draining[b] = false, false
			p.claims[b] = false
		case retake:
			// The member that was to take it is gone before the drain
			// ended: the work refused meanwhile must be queued again.
			m.draining[b] = false
			p.regained = append(p.regained, b)
		case take:
			if names := m.unconfirmedLocked(b); len(names) > 0 {
				for _, n := range names {
					confirm[n] = true
				}
				continue
			}
			p.claims[b] = true
			p.gained = append(p.gained, b)
			p.settle[b] = settleAfter(now, m.claimEndsLocked(b), m.opts.LateWriteBound)
		}
	}
	p.confirm = slices.Sorted(maps.Keys(confirm))
	// A claim written but not held (a take that lost a contest) is
	// dropped too, and a take written again.
	p.changed = len(p.gained) > 0 || !slices.Equal(p.claims, m.written)
	p.due = (m.rv == "" && !m.leaving) || (m.rv != "" && now.Sub(m.renewed) >= m.opts.RenewPeriod)
	return p, nil
}

// write writes the claims of p and, when the write succeeds and the Lease
// was not lost meanwhile, applies its outcome: the right to act runs from
// now. It reports whether it did; it fails only when this member can no
// longer act.
func (m *Member) write(ctx context.Context, p stepPlan, now time.Time) (bool, error) {
	out, err := m.writeLease(ctx, p.claims, now)
	switch {
	case errors.Is(err, errLeaseTaken):
		m.mu.Lock()
		m.loseLeaseLocked()
		m.mu.Unlock()
		return false, err
	case errors.Is(err, errLeaseDeleted):
		// The others already treat this member's buckets as free: it
		// stops acting at once, and joins again with a new Lease.
		m.mu.Lock()
		m.loseLeaseLocked()
		m.rv, m.uid = "", ""
		m.mu.Unlock()
		m.opts.Log.Info("lease deleted by someone else; joining again", "lease", m.leaseName)
		return false, nil
	case err != nil:
		m.opts.Log.V(1).Info("lease write failed; retrying", "lease", m.leaseName, "error", err.Error())
		return false, nil // the renew deadline decides when to give up
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.epoch != p.epoch {
		return false, nil
	}
	m.rv, m.uid = out.ResourceVersion, out.UID
	copy(m.written, p.claims)
	m.renewed, m.actUntil = now, now.Add(m.renewDeadline)
	return true, nil
}

// hold begins to act on the buckets p took, now that the Lease claims
// them, except those another live Lease claims too, and returns those it
// holds. Members that join at once each see every bucket free and claim
// it; so, after its claim is written, a member reads every Lease of its
// group from the API server (a quorum read, within one renew period).
// Of two claims on one bucket, the later writer's read sees the earlier
// claim, so at most one of the two acts on the bucket; a claim it does
// not hold is dropped by the next write, and the bucket is taken again
// by the member it belongs to once the views agree.
func (m *Member) hold(ctx context.Context, p stepPlan) []int {
	if len(p.gained) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, m.opts.RenewPeriod)
	defer cancel()
	list, err := m.kube.CoordinationV1().Leases(m.opts.Namespace).List(ctx, metav1.ListOptions{LabelSelector: m.selector()})
	if err != nil {
		m.opts.Log.V(1).Info("cannot read the Leases after taking buckets; taking them again later", "error", err.Error())
		return nil
	}
	now := m.opts.Clock.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	rivals := make([]bool, m.opts.Buckets)
	for i := range list.Items {
		l := &list.Items[i]
		if l.Name == m.leaseName || l.Spec.HolderIdentity == nil || !m.liveOrNewLocked(l, now) {
			continue
		}
		claims, _ := claimsOf(l, m.opts.Buckets) // unreadable claims claim every bucket
		for b, c := range claims {
			rivals[b] = rivals[b] || c
		}
	}
	var held []int
	for _, b := range p.gained {
		if m.epoch != p.epoch || m.leaving || rivals[b] {
			continue
		}
		m.held[b], m.settle[b] = true, p.settle[b]
		held = append(held, b)
	}
	if len(held) < len(p.gained) {
		m.opts.Log.V(1).Info("buckets claimed by another member too; leaving them", "count", len(p.gained)-len(held))
	}
	return held
}

// liveOrNewLocked reports whether the Lease l, as read from the API
// server, is live in this member's view: seen live, changed since it was
// last seen, or not seen before.
func (m *Member) liveOrNewLocked(l *coordinationv1.Lease, now time.Time) bool {
	p, ok := m.peers[l.Name]
	return !ok || p.rv != l.ResourceVersion || now.Sub(p.seen) < m.opts.LeaseDuration
}

// notify calls each of subs with buckets, if there are any.
func notify(subs []func([]int), buckets []int) {
	if len(buckets) == 0 {
		return
	}
	for _, f := range subs {
		f(buckets)
	}
}

// liveLocked returns the identities of the live members, this one included.
func (m *Member) liveLocked(now time.Time) []string {
	out := []string{m.opts.Identity}
	for _, p := range m.peers {
		if now.Sub(p.seen) < m.opts.LeaseDuration {
			out = append(out, p.identity)
		}
	}
	return out
}

func (m *Member) claimedByPeerLocked(b int, now time.Time) bool {
	for _, p := range m.peers {
		if now.Sub(p.seen) < m.opts.LeaseDuration && p.claims[b] {
			return true
		}
	}
	return false
}

// unconfirmedLocked returns the expired Leases that claim bucket b and
// that this member has not read from the API server since it last saw
// them change. Its view comes from a watch, which may lag behind: before
// it takes a bucket from a Lease that looks expired, it reads the Lease.
func (m *Member) unconfirmedLocked(b int) []string {
	var out []string
	for name, p := range m.peers {
		if p.claims[b] && p.confirmed != p.rv {
			out = append(out, name)
		}
	}
	return out
}

// claimEndsLocked returns the claimEnds of the holders whose claim on
// bucket b ended ungracefully in this member's view: the deleted Leases
// that claimed it, and the Leases that claim it still (they have expired,
// or b could not be taken).
func (m *Member) claimEndsLocked(b int) []time.Time {
	ends := []time.Time{m.gone[b]}
	for _, p := range m.peers {
		if p.claims[b] {
			ends = append(ends, claimEnd(p.seen, time.Time{}, m.opts.LeaseDuration))
		}
	}
	return ends
}

// loseLeaseLocked ends this member's right to act: it holds nothing, and
// the outcome of a write in flight is not applied.
func (m *Member) loseLeaseLocked() {
	m.actUntil = time.Time{}
	m.epoch++
	for b := range m.held {
		m.held[b], m.draining[b], m.settle[b] = false, false, time.Time{}
	}
}

// leave hands every bucket over: it goes on renewing while the buckets
// drain and are dropped from its Lease one by one, then deletes the Lease,
// whose last claims are none, so that the others take over at once and
// see a graceful handover. If some bucket is still held at
// ShutdownTimeout, it stops acting and leaves its Lease to expire: the
// others then take its buckets as a dead member's, and wait for its late
// writes.
func (m *Member) leave(ctx context.Context, ticker clock.Ticker, log logr.Logger) error {
	m.mu.Lock()
	m.leaving = true
	m.mu.Unlock()
	giveUp := m.opts.Clock.Now().Add(m.opts.ShutdownTimeout)
	for {
		if err := m.step(ctx); err != nil {
			return err
		}
		if !m.claimsAny() {
			break
		}
		if !m.opts.Clock.Now().Before(giveUp) {
			m.mu.Lock()
			m.loseLeaseLocked()
			m.mu.Unlock()
			log.Info("left without handing over; the Lease is left to expire", "unfinished", m.outstanding())
			return nil
		}
		select {
		case <-ticker.C():
		case <-m.wake:
		}
	}
	m.mu.Lock()
	m.loseLeaseLocked()
	m.mu.Unlock()
	if err := m.deleteLease(ctx); err != nil {
		return err
	}
	log.Info("left")
	return nil
}

// claimsAny reports whether this member holds a bucket, or its Lease, as
// last written, claims one.
func (m *Member) claimsAny() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for b := range m.held {
		if m.held[b] || m.written[b] {
			return true
		}
	}
	return false
}

func (m *Member) outstanding() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, c := range m.inflight {
		n += c
	}
	return n
}
