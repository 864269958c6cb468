package membership

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
)

// Defaults of Options.
const (
	// DefaultLeaseDuration is how long a member's Lease lives without
	// renewal; a dead member's buckets move after about this long.
	DefaultLeaseDuration = 10 * time.Second
	// DefaultRenewPeriod is how often a member renews its Lease.
	DefaultRenewPeriod = 2 * time.Second
	// DefaultBuckets is the number of buckets the work is cut into. Every
	// replica must use the same number.
	DefaultBuckets = 256
	// DefaultShutdownTimeout bounds how long a member waits on shutdown
	// for the work it admitted before it deletes its Lease anyway.
	DefaultShutdownTimeout = 10 * time.Second
)

// LabelMember marks the Leases of listkeeper's members; its value is "true".
const LabelMember = "listkeeper.dev/member"

// AnnotationBuckets holds, on a member's Lease, the buckets it holds.
const AnnotationBuckets = "listkeeper.dev/buckets"

// Options configure a Member. Namespace is required.
type Options struct {
	// Namespace is where the Leases live: the operator's namespace.
	Namespace string
	// Identity names this member; default: POD_NAME, or the host name, with
	// a random suffix, so that a restarted process is a new member.
	Identity string
	// LeaseDuration defaults to DefaultLeaseDuration.
	LeaseDuration time.Duration
	// RenewPeriod defaults to DefaultRenewPeriod; it must be less than a
	// third of LeaseDuration.
	RenewPeriod time.Duration
	// Buckets defaults to DefaultBuckets.
	Buckets int
	// ShutdownTimeout defaults to DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
	// Clock defaults to the real clock.
	Clock clock.WithTicker
	// Log defaults to discarding.
	Log logr.Logger
}

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

	mu       sync.Mutex
	acting   bool   // the Lease is current; false before the first write and after losing it
	held     []bool // buckets this member's Lease claims
	draining []bool // held buckets being given up: no new work
	inflight []int  // admitted work per bucket
	peers    map[string]*peer
	subs     []func(gained []int)
	rv       string    // resourceVersion of our Lease as last written
	renewed  time.Time // start of the last successful renewal
}

// peer is another member's Lease as this member last saw it.
type peer struct {
	identity string
	claims   []bool
	rv       string
	seen     time.Time // when this member saw the Lease change last
}

// New returns a Member that talks to the API server through kube.
func New(kube kubernetes.Interface, opts Options) (*Member, error) {
	if opts.Namespace == "" {
		return nil, errors.New("membership: a namespace is required")
	}
	if opts.Identity == "" {
		opts.Identity = defaultIdentity()
	}
	if opts.LeaseDuration == 0 {
		opts.LeaseDuration = DefaultLeaseDuration
	}
	if opts.RenewPeriod == 0 {
		opts.RenewPeriod = DefaultRenewPeriod
	}
	if opts.Buckets == 0 {
		opts.Buckets = DefaultBuckets
	}
	if opts.ShutdownTimeout == 0 {
		opts.ShutdownTimeout = DefaultShutdownTimeout
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	if opts.Log.GetSink() == nil {
		opts.Log = logr.Discard()
	}
	if opts.RenewPeriod*3 > opts.LeaseDuration {
		return nil, fmt.Errorf("membership: the renew period (%s) must be less than a third of the lease duration (%s)", opts.RenewPeriod, opts.LeaseDuration)
	}
	if opts.Buckets < 1 || opts.Buckets > 1<<16 {
		return nil, fmt.Errorf("membership: buckets must be in 1..65536, got %d", opts.Buckets)
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
// on b now and, if so, returns a release func that the caller must call
// once when the work (including any list change it submitted) is done.
// While admitted work is outstanding the bucket cannot move away.
func (m *Member) Acquire(b int) (release func(), ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.acting || !m.held[b] || m.draining[b] {
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
// it over). A writer whose conditional write lost (412) asks it before it
// applies anything again: a member that lost its Lease, or the bucket, must
// not.
func (m *Member) Owns(b int) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.acting && m.held[b]
}

// Held returns the buckets this member may take new work for now.
func (m *Member) Held() []int {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []int
	for b, h := range m.held {
		if h && m.acting && !m.draining[b] {
			out = append(out, b)
		}
	}
	return out
}

// OnGained registers f to be called, from the member's goroutine, with the
// buckets this member has just taken, so that their work can be queued. f
// must return quickly.
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
	if m.acting && now.Sub(m.renewed) > m.renewDeadline {
		m.stopActingLocked()
		m.mu.Unlock()
		return fmt.Errorf("membership: lease %s/%s not renewed for %s: stopped acting", m.opts.Namespace, m.leaseName, now.Sub(m.renewed).Round(time.Millisecond))
	}
	owner := Assign(m.liveLocked(now), m.opts.Buckets)
	claims := make([]bool, len(m.held))
	copy(claims, m.held)
	changed := false
	var gained []int
	for b := range claims {
		mine := owner[b] == m.opts.Identity
		switch {
		case claims[b] && !mine:
			m.draining[b] = true
			if m.inflight[b] == 0 {
				claims[b], changed = false, true
			}
		case claims[b] && mine:
			m.draining[b] = false
		case !claims[b] && mine && !m.claimedByPeerLocked(b, now):
			claims[b], changed = true, true
			gained = append(gained, b)
		}
	}
	due := !m.acting || now.Sub(m.renewed) >= m.opts.RenewPeriod
	m.mu.Unlock()
	if due && m.acting {
		m.collect(ctx, now)
	}
	if !changed && !due {
		return nil
	}
	if err := m.writeLease(ctx, claims, now); err != nil {
		m.opts.Log.V(1).Info("lease write failed; retrying", "lease", m.leaseName, "error", err.Error())
		return nil // the renew deadline above decides when to give up
	}
	m.mu.Lock()
	for b := range claims {
		if !claims[b] {
			m.draining[b] = false
		}
	}
	m.held = claims
	m.acting, m.renewed = true, now
	subs := append([]func([]int){}, m.subs...)
	m.mu.Unlock()
	if len(gained) > 0 {
		m.opts.Log.V(1).Info("buckets taken", "count", len(gained))
		for _, f := range subs {
			f(gained)
		}
	}
	return nil
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

func (m *Member) stopActingLocked() {
	m.acting = false
	for b := range m.held {
		m.held[b], m.draining[b] = false, false
	}
}

// writeLease creates or updates this member's Lease with claims.
func (m *Member) writeLease(ctx context.Context, claims []bool, now time.Time) error {
	ctx, cancel := context.WithTimeout(ctx, m.opts.RenewPeriod)
	defer cancel()
	leases := m.kube.CoordinationV1().Leases(m.opts.Namespace)
	mt := metav1.NewMicroTime(now)
	seconds := int32(m.opts.LeaseDuration / time.Second)
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{
			Name:        m.leaseName,
			Namespace:   m.opts.Namespace,
			Labels:      map[string]string{LabelMember: "true"},
			Annotations: map[string]string{AnnotationBuckets: encodeClaims(claims)},
		},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       &m.opts.Identity,
			LeaseDurationSeconds: &seconds,
			RenewTime:            &mt,
		},
	}
	m.mu.Lock()
	rv := m.rv
	m.mu.Unlock()
	var out *coordinationv1.Lease
	var err error
	if rv == "" {
		lease.Spec.AcquireTime = &mt
		out, err = leases.Create(ctx, lease, metav1.CreateOptions{})
	} else {
		lease.ResourceVersion = rv
		out, err = leases.Update(ctx, lease, metav1.UpdateOptions{})
		if apierrors.IsNotFound(err) {
			// Someone deleted our Lease: the others already treat our
			// buckets as free, so we must not claim we still act on them.
			m.mu.Lock()
			m.stopActingLocked()
			m.rv = ""
			m.mu.Unlock()
			return fmt.Errorf("lease %s was deleted", m.leaseName)
		}
	}
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.rv = out.ResourceVersion
	m.mu.Unlock()
	return nil
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
	m.stopActingLocked()
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

// watchPeers starts an informer on the members' Leases and waits for it to
// sync.
func (m *Member) watchPeers(ctx context.Context) error {
	factory := informers.NewSharedInformerFactoryWithOptions(m.kube, 0,
		informers.WithNamespace(m.opts.Namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = LabelMember + "=true" }))
	inf := factory.Coordination().V1().Leases().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { m.observe(obj) },
		UpdateFunc: func(_, obj any) { m.observe(obj) },
		DeleteFunc: func(obj any) { m.forget(obj) },
	}); err != nil {
		return fmt.Errorf("membership: watch leases: %w", err)
	}
	factory.Start(ctx.Done())
	syncCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), inf.HasSynced) {
		return errors.New("membership: the Lease informer did not sync")
	}
	return nil
}

func (m *Member) observe(obj any) {
	l, ok := obj.(*coordinationv1.Lease)
	if !ok || l.Name == m.leaseName || l.Spec.HolderIdentity == nil {
		return
	}
	claims, err := decodeClaims(l.Annotations[AnnotationBuckets], m.opts.Buckets)
	if err != nil {
		m.opts.Log.Error(err, "a member's Lease cannot be read; its buckets are treated as claimed", "lease", l.Name)
		claims = make([]bool, m.opts.Buckets)
		for b := range claims {
			claims[b] = true
		}
	}
	now := m.opts.Clock.Now()
	m.mu.Lock()
	if p, ok := m.peers[l.Name]; !ok || p.rv != l.ResourceVersion {
		seen := now
		if !ok {
			seen = m.firstSeen(l, now)
		}
		m.peers[l.Name] = &peer{identity: *l.Spec.HolderIdentity, claims: claims, rv: l.ResourceVersion, seen: seen}
	}
	m.mu.Unlock()
	m.poke()
}

// firstSeen dates a Lease this member sees for the first time. Its own
// clock decides expiry, so a Lease first seen now would count as live for
// a whole lease duration, and a member that joins next to the Lease of a
// member that was killed long ago would wait that long for the buckets the
// dead Lease still claims. The Lease's renewTime says how old it is; it is
// trusted only down to two renew periods before expiry: a live member
// renews within one period and is then seen anew, so clock skew between
// nodes cannot make a live member look dead.
func (m *Member) firstSeen(l *coordinationv1.Lease, now time.Time) time.Time {
	floor := now.Add(-m.opts.LeaseDuration + 2*m.opts.RenewPeriod)
	if l.Spec.RenewTime == nil || l.Spec.RenewTime.After(floor) {
		return now
	}
	return floor
}

// collect deletes the Leases of members this one considers dead, so that
// the Leases of killed replicas do not pile up. The delete is conditional on
// the resourceVersion seen: a Lease renewed meanwhile is kept.
func (m *Member) collect(ctx context.Context, now time.Time) {
	m.mu.Lock()
	var dead []struct{ name, rv string }
	for name, p := range m.peers {
		if now.Sub(p.seen) >= m.opts.LeaseDuration+m.opts.RenewPeriod {
			dead = append(dead, struct{ name, rv string }{name, p.rv})
		}
	}
	m.mu.Unlock()
	for _, d := range dead {
		rv := d.rv
		err := m.kube.CoordinationV1().Leases(m.opts.Namespace).Delete(ctx, d.name, metav1.DeleteOptions{
			Preconditions: &metav1.Preconditions{ResourceVersion: &rv},
		})
		if err == nil {
			m.opts.Log.Info("deleted the Lease of a member that is gone", "lease", d.name)
		}
	}
}

func (m *Member) forget(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	l, ok := obj.(*coordinationv1.Lease)
	if !ok {
		return
	}
	m.mu.Lock()
	delete(m.peers, l.Name)
	m.mu.Unlock()
	m.poke()
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
