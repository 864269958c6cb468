package membership

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Start runs the membership until ctx ends (then it drains, deletes its
// Lease and returns nil) or until the Lease cannot be renewed for the renew
// deadline (then it stops acting and returns an error).
func (m *Member) Start(ctx context.Context) error {
	log := m.opts.Log.WithValues("member", m.opts.Identity)
	watchCtx, stopWatch := context.WithCancel(context.Background())
	defer stopWatch()
	if err := m.watchPeers(watchCtx); err != nil {
		return err
	}
	if err := m.step(ctx); err != nil {
		return err
	}
	log.Info("joined", "lease", m.opts.Namespace+"/"+m.leaseName, "buckets", len(m.Held()))
	ticker := m.opts.Clock.NewTicker(m.opts.RenewPeriod / 2)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return m.leave(log)
		case <-ticker.C():
		case <-m.wake:
		}
		if err := m.step(ctx); err != nil {
			if ctx.Err() != nil {
				return m.leave(log)
			}
			return err
		}
	}
}

// step renews the Lease when due, gives up drained buckets and takes free
// ones.
func (m *Member) step(ctx context.Context) error {
	now := m.opts.Clock.Now()
	m.mu.Lock()
	if !m.renewed.IsZero() && now.Sub(m.renewed) > m.renewDeadline {
		m.loseLeaseLocked()
		m.mu.Unlock()
		return fmt.Errorf("membership: lease %s/%s not renewed for %s: stopped acting", m.opts.Namespace, m.leaseName, now.Sub(m.renewed).Round(time.Millisecond))
	}
	owner := Assign(m.liveLocked(now), m.opts.Buckets)
	claims := make([]bool, len(m.held))
	copy(claims, m.held)
	changed := false
	var gained, regained []int
	for b := range claims {
		v := bucketView{held: m.held[b], draining: m.draining[b], inflight: m.inflight[b],
			mine: owner[b] == m.opts.Identity, claimed: m.claimedByPeerLocked(b, now)}
		switch decide(v) {
		case drain:
			m.draining[b] = true
		case drop:
			// It stops being held before the write that drops it.
			m.held[b], m.draining[b] = false, false
			claims[b], changed = false, true
		case retake:
			// The member that was to take it is gone before the drain
			// ended: the work refused meanwhile must be queued again.
			m.draining[b] = false
			regained = append(regained, b)
		case take:
			claims[b], changed = true, true
			gained = append(gained, b)
		}
	}
	due := m.rv == "" || now.Sub(m.renewed) >= m.opts.RenewPeriod
	epoch := m.epoch
	subs := append([]func([]int){}, m.subs...)
	m.mu.Unlock()
	// The Lease still claims a regained bucket: it is reported at once.
	notify(subs, regained)
	if !changed && !due {
		return nil
	}
	rv, err := m.writeLease(ctx, claims, now)
	switch {
	case errors.Is(err, errLeaseTaken):
		m.mu.Lock()
		m.loseLeaseLocked()
		m.mu.Unlock()
		return err
	case errors.Is(err, errLeaseDeleted):
		// The others already treat this member's buckets as free: it
		// stops acting at once, and joins again with a new Lease.
		m.mu.Lock()
		m.loseLeaseLocked()
		m.rv = ""
		m.mu.Unlock()
		m.opts.Log.Info("lease deleted by someone else; joining again", "lease", m.leaseName)
		return nil
	case err != nil:
		m.opts.Log.V(1).Info("lease write failed; retrying", "lease", m.leaseName, "error", err.Error())
		return nil // the renew deadline above decides when to give up
	}
	m.mu.Lock()
	if m.epoch != epoch {
		m.mu.Unlock()
		return nil
	}
	m.rv = rv
	for _, b := range gained {
		m.held[b] = true
	}
	m.renewed, m.actUntil = now, now.Add(m.renewDeadline)
	m.mu.Unlock()
	if len(gained) > 0 {
		m.opts.Log.V(1).Info("buckets taken", "count", len(gained))
	}
	notify(subs, gained)
	if due {
		m.collect(ctx, now)
	}
	return nil
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
		if now.Sub(p.seen) < m.opts.LeaseDuration && p.claims != nil && p.claims[b] {
			return true
		}
	}
	return false
}

// loseLeaseLocked ends this member's right to act: it holds nothing, and
// the outcome of a write in flight is not applied.
func (m *Member) loseLeaseLocked() {
	m.actUntil = time.Time{}
	m.epoch++
	for b := range m.held {
		m.held[b], m.draining[b] = false, false
	}
}

// leave drains every bucket, stops acting and deletes the Lease, so that
// the other members take over at once.
func (m *Member) leave(log logr.Logger) error {
	m.mu.Lock()
	for b := range m.held {
		if m.held[b] {
			m.draining[b] = true
		}
	}
	m.mu.Unlock()
	deadline := m.opts.Clock.Now().Add(m.opts.ShutdownTimeout)
	for m.outstanding() > 0 && m.opts.Clock.Now().Before(deadline) {
		select {
		case <-m.wake:
		case <-m.opts.Clock.After(50 * time.Millisecond):
		}
	}
	left := m.outstanding()
	m.mu.Lock()
	m.loseLeaseLocked()
	m.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := m.kube.CoordinationV1().Leases(m.opts.Namespace).Delete(ctx, m.leaseName, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("membership: delete lease %s: %w", m.leaseName, err)
	}
	log.Info("left", "unfinished", left)
	return nil
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
