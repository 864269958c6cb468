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
	"crypto/rand"
	"encoding/hex"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// Member is this replica's membership: its Lease, its view of the others,
// and the buckets it holds. It is a controller-runtime Runnable (Start). It
// is safe for concurrent use.
type Member struct {
	opts      Options
	kube      kubernetes.Interface
	leaseName string
	// renewDeadline is how long the member goes on acting without a
	// successful renewal: less than the lease duration by one and a half
	// renew periods, so it has stopped before anyone else may take over.
	renewDeadline time.Duration
	wake          chan struct{}

	mu sync.Mutex
	// held are the buckets this member may act on while its right to act
	// lasts: a bucket taken joins once the write that claims it succeeded,
	// one given up leaves before the write that drops it is sent.
	held     []bool
	draining []bool // held buckets being given up: no new work
	inflight []int  // admitted work per bucket
	peers    map[string]*peer
	subs     []func(gained []int)
	rv       string    // resourceVersion of our Lease as last written; "" when there is none
	renewed  time.Time // start of the last successful renewal; zero before the first
	// actUntil ends this member's right to act on what it holds:
	// renewed + renewDeadline, on its own clock. Zero when it has none.
	actUntil time.Time
	// epoch counts the times this member lost its Lease; the outcome of
	// a write begun before a loss is not applied.
	epoch int
	uid   types.UID // of our Lease as last written
	// written are the buckets our Lease claims as last written.
	written []bool
	// settle is SettleAfter of each held bucket.
	settle []time.Time
	// gone is, per bucket, the last claimEnd of the deleted Leases that
	// claimed it when they were deleted.
	gone    []time.Time
	leaving bool // Start's context ended: every bucket is handed over
}

// peer is another member's Lease as this member last saw it.
type peer struct {
	identity string
	claims   []bool
	rv       string
	seen     time.Time // when this member saw the Lease change last
	// confirmed is rv once a read from the API server found the Lease
	// unchanged after it had expired in this member's view.
	confirmed string
}

// New returns a Member that talks to the API server through kube.
func New(kube kubernetes.Interface, opts Options) (*Member, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Member{
		opts:          opts,
		kube:          kube,
		leaseName:     leaseName(opts.Identity),
		renewDeadline: opts.LeaseDuration - 3*opts.RenewPeriod/2,
		wake:          make(chan struct{}, 1),
		held:          make([]bool, opts.Buckets),
		draining:      make([]bool, opts.Buckets),
		inflight:      make([]int, opts.Buckets),
		written:       make([]bool, opts.Buckets),
		settle:        make([]time.Time, opts.Buckets),
		gone:          make([]time.Time, opts.Buckets),
		peers:         map[string]*peer{},
	}, nil
}

// Identity returns the member's identity.
func (m *Member) Identity() string { return m.opts.Identity }

// Buckets returns the number of buckets.
func (m *Member) Buckets() int { return m.opts.Buckets }

// Bucket returns the bucket of key.
func (m *Member) Bucket(key string) int { return Bucket(key, m.opts.Buckets) }

// Acquire admits work on bucket b: it reports whether this member may act
// on b now (as Owns) and is not handing b over and, if so, returns a
// release func that the caller must call once when the work (including
// any list change it submitted) is done. While admitted work is
// outstanding the bucket is not handed over; it is still lost when the
// right to act ends (see ActUntil).
func (m *Member) Acquire(b int) (release func(), ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.mayActLocked(b, m.opts.Clock.Now()) || m.draining[b] {
		return nil, false
	}
	m.inflight[b]++
	var once sync.Once
	return func() {
		once.Do(func() {
			m.mu.Lock()
			m.inflight[b]--
			idle := m.inflight[b] == 0 && m.draining[b]
			m.mu.Unlock()
			if idle {
				m.poke()
			}
		})
	}, true
}

// Owns reports whether this member still holds bucket b (it may be handing
// it over) and its right to act has not ended: the deadline that each
// successful renewal of its Lease moves forward, on its own clock. A writer
// asks it right before each write attempt: a member that lost its Lease,
// or the bucket, must not write.
func (m *Member) Owns(b int) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.mayActLocked(b, m.opts.Clock.Now())
}

// ActUntil reports when this member's right to act on bucket b ends: ok
// is false when it may not act on b now (as Owns), else until is the start
// of its last successful renewal plus the renew deadline, on its Clock.
// Later renewals move it forward. A caller ends the whole life of a write
// (attempts, retries, waits) by until.
func (m *Member) ActUntil(b int) (until time.Time, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.mayActLocked(b, m.opts.Clock.Now()) {
		return time.Time{}, false
	}
	return m.actUntil, true
}

// SettleAfter returns, for a bucket this member holds, the instant on its
// Clock before which a write sent by a previous holder of b may still land
// at a server. It is zero when this member took b gracefully: the last
// Lease it saw claiming b dropped the claim while it was live (a drained
// handover), or no Lease claimed b. When it took b ungracefully (the Lease
// that claimed b expired in its view, or was deleted while it claimed b),
// it is when that holder's right to act ended at the latest (the Lease
// last seen to change plus the lease duration, or the deletion seen) plus
// LateWriteBound, on this member's clock; the latest such instant if it
// saw several claims on b end so; zero if that had passed when it took b.
// It is set before OnGained reports b and does not change while b is
// held. A change must not be settled on "the list already holds it"
// before this instant, and the bucket's documents are to be verified
// again once after it. It is zero for a bucket this member does not hold.
func (m *Member) SettleAfter(b int) time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.held[b] {
		return time.Time{}
	}
	return m.settle[b]
}

// Held returns the buckets this member may take new work for now.
func (m *Member) Held() []int {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.opts.Clock.Now()
	var out []int
	for b := range m.held {
		if m.mayActLocked(b, now) && !m.draining[b] {
			out = append(out, b)
		}
	}
	return out
}

// mayActLocked reports whether this member may act on bucket b at now.
func (m *Member) mayActLocked(b int, now time.Time) bool {
	return m.held[b] && now.Before(m.actUntil)
}

// OnGained registers f to be called, from the member's goroutine, with the
// buckets this member has just taken, or kept after it had begun to hand
// them over (Acquire refused their work meanwhile), so that their work can
// be queued. f must return quickly.
func (m *Member) OnGained(f func(gained []int)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.subs = append(m.subs, f)
}

// NeedLeaderElection implements controller-runtime's
// LeaderElectionRunnable: every replica is a member.
func (m *Member) NeedLeaderElection() bool { return false }

func (m *Member) poke() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// defaultIdentity is POD_NAME or the host name, with a random suffix.
func defaultIdentity() string {
	base := os.Getenv("POD_NAME")
	if base == "" {
		base, _ = os.Hostname()
	}
	if base == "" {
		base = "listkeeper"
	}
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return base + "-" + hex.EncodeToString(b)
}

var notDNS = regexp.MustCompile(`[^a-z0-9.-]+`)

// leaseName is the Lease of the member with identity id: a DNS subdomain.
func leaseName(id string) string {
	name := "listkeeper-member-" + strings.Trim(notDNS.ReplaceAllString(strings.ToLower(id), "-"), "-.")
	if len(name) > 253 {
		name = name[:253]
	}
	return strings.TrimRight(name, "-.")
}
