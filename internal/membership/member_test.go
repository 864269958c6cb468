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
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/listkeeper/listkeeper/internal/membership"
	"github.com/listkeeper/listkeeper/internal/testenv"
)

// The tests run real members against a real kube-apiserver (envtest), each
// in its own namespace, with short leases.

const (
	leaseDuration  = 1500 * time.Millisecond
	renewPeriod    = 200 * time.Millisecond
	renewDeadline  = leaseDuration - 3*renewPeriod/2 // as membership computes it
	lateWriteBound = 500 * time.Millisecond
	buckets        = 64
)

var (
	testEnv    *testenv.Env
	restConfig *rest.Config
)

func TestMain(m *testing.M) {
	os.Exit(testenv.Main(m, testenv.Options{QPS: 200, Burst: 400}, func(e *testenv.Env) error {
		testEnv, restConfig = e, e.Config()
		return nil
	}))
}

func requireEnv(t *testing.T) {
	t.Helper()
	testEnv.Require(t)
}

var nsSeq atomic.Int64

func newNamespace(t *testing.T) string {
	t.Helper()
	kube := kubernetes.NewForConfigOrDie(restConfig)
	name := fmt.Sprintf("members-%d-%d", time.Now().UnixNano()%1e6, nsSeq.Add(1))
	if _, err := kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return name
}

// running is a member whose Start runs in a goroutine.
type running struct {
	*membership.Member
	cancel context.CancelFunc
	done   chan struct{} // closed when Start returned
	err    error         // what Start returned, once done is closed
}

// stop ends the member cleanly (it drains and deletes its Lease).
func (r *running) stop(t *testing.T) {
	t.Helper()
	r.cancel()
	select {
	case <-r.done:
		if r.err != nil {
			t.Errorf("member %s ended with %v", r.Identity(), r.err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("member %s did not stop", r.Identity())
	}
}

// startMember starts a member named id in ns; cfg defaults to restConfig.
func startMember(t *testing.T, ns, id string, cfg *rest.Config) *running {
	t.Helper()
	return startMemberWith(t, testOptions(ns, id), cfg)
}

// testOptions are the Options of the tests' members: short leases.
func testOptions(ns, id string) membership.Options {
	return membership.Options{
		Namespace: ns, Identity: id, LeaseDuration: leaseDuration, RenewPeriod: renewPeriod,
		Buckets: buckets, ShutdownTimeout: 5 * time.Second, LateWriteBound: lateWriteBound,
	}
}

// startMemberWith starts a member with opts; cfg defaults to restConfig.
func startMemberWith(t *testing.T, opts membership.Options, cfg *rest.Config) *running {
	t.Helper()
	r := newMember(t, opts, cfg)
	r.start(t)
	return r
}

// newMember makes a member with opts, not started; cfg defaults to
// restConfig.
func newMember(t *testing.T, opts membership.Options, cfg *rest.Config) *running {
	t.Helper()
	requireEnv(t)
	if cfg == nil {
		cfg = restConfig
	}
	m, err := membership.New(kubernetes.NewForConfigOrDie(cfg), opts)
	if err != nil {
		t.Fatal(err)
	}
	return &running{Member: m, done: make(chan struct{})}
}

// start runs the member's Start in a goroutine until the test ends.
func (r *running) start(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() {
		r.err = r.Start(ctx)
		close(r.done)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-r.done:
		case <-time.After(20 * time.Second):
		}
	})
}

// eventually polls cond every 50 ms until it returns nil or the timeout.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var err error
	for time.Now().Before(deadline) {
		if err = cond(); err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("timed out after %s waiting for %s: %v", timeout, what, err)
}

// exclusive checks that no bucket is held by two members and reports how
// many are held in all.
func exclusive(members ...*running) (int, error) {
	owner := map[int]string{}
	for _, m := range members {
		for _, b := range m.Held() {
			if o, ok := owner[b]; ok {
				return 0, fmt.Errorf("bucket %d is held by %s and %s", b, o, m.Identity())
			}
			owner[b] = m.Identity()
		}
	}
	return len(owner), nil
}

// split waits until the members hold every bucket between them, as
// membership.Assign divides them, checking all along that no bucket is
// ever held twice.
func split(t *testing.T, timeout time.Duration, members ...*running) {
	t.Helper()
	ids := make([]string, len(members))
	for i, m := range members {
		ids[i] = m.Identity()
	}
	want := membership.Assign(ids, buckets)
	eventually(t, timeout, fmt.Sprintf("the buckets split among %v", ids), func() error {
		n, err := exclusive(members...)
		if err != nil {
			t.Fatal(err)
		}
		if n != buckets {
			return fmt.Errorf("%d of %d buckets held", n, buckets)
		}
		for _, m := range members {
			for _, b := range m.Held() {
				if want[b] != m.Identity() {
					return fmt.Errorf("bucket %d held by %s, assigned to %s", b, m.Identity(), want[b])
				}
			}
		}
		return nil
	})
}

// graceful checks that every bucket the members hold was handed over
// gracefully: SettleAfter is zero.
func graceful(t *testing.T, members ...*running) {
	t.Helper()
	for _, m := range members {
		for _, b := range m.Held() {
			if s := m.SettleAfter(b); !s.IsZero() {
				t.Errorf("%s holds bucket %d with SettleAfter %s from now; want zero after a graceful handover", m.Identity(), b, time.Until(s).Round(time.Millisecond))
			}
		}
	}
}

// always polls cond every 10 ms for the whole of d and fails at the first
// poll where it returns an error.
func always(t *testing.T, d time.Duration, what string, cond func() error) {
	t.Helper()
	start := time.Now()
	for time.Since(start) < d {
		if err := cond(); err != nil {
			t.Fatalf("%s broken %s into a window of %s: %v", what, time.Since(start).Round(time.Millisecond), d, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ownershipWatch polls, until stopped, which of some members own each
// bucket (Owns), and records every instant at which two of them did.
type ownershipWatch struct {
	start time.Time
	stop  chan struct{}
	done  chan struct{}
	found []string
}

// watchOwnership starts polling the members' Owns for every bucket, about
// every millisecond. Two members own a bucket at once when one owns it,
// then the other does, then the first still does: ownership only ends and
// begins, so the first owned it throughout.
func watchOwnership(members ...*running) *ownershipWatch {
	w := &ownershipWatch{start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			select {
			case <-w.stop:
				return
			default:
			}
			for bk := 0; bk < buckets; bk++ {
				var first *running
				for _, m := range members {
					if !m.Owns(bk) {
						continue
					}
					if first == nil {
						first = m
						continue
					}
					if first.Owns(bk) && len(w.found) < 5 {
						w.found = append(w.found, fmt.Sprintf("bucket %d owned by %s and %s at once, %s into the watch",
							bk, first.Identity(), m.Identity(), time.Since(w.start).Round(time.Millisecond)))
					}
				}
			}
			time.Sleep(time.Millisecond)
		}
	}()
	return w
}

// check stops the watch and fails the test if two members ever owned a
// bucket at once.
func (w *ownershipWatch) check(t *testing.T) {
	t.Helper()
	close(w.stop)
	<-w.done
	for _, f := range w.found {
		t.Error(f)
	}
}

// TestMembersShareTheBuckets: one member holds every bucket; a second and a
// third join and take their share; one leaves cleanly and the others take
// its buckets at once, long before its Lease would have expired. Every
// handover is graceful, and no bucket is ever owned by two members.
func TestMembersShareTheBuckets(t *testing.T) {
	ns := newNamespace(t)
	a := startMember(t, ns, "a", nil)
	split(t, 10*time.Second, a)
	b := startMember(t, ns, "b", nil)
	watch := watchOwnership(a, b)
	split(t, 10*time.Second, a, b)
	c := startMember(t, ns, "c", nil)
	watch.check(t)
	watch = watchOwnership(a, b, c)
	split(t, 10*time.Second, a, b, c)
	graceful(t, a, b, c)

	left := time.Now()
	b.stop(t)
	split(t, leaseDuration, a, c)
	t.Logf("after b left, a and c held every bucket within %s", time.Since(left).Round(time.Millisecond))
	watch.check(t)
	graceful(t, a, c)
	leases, err := kubernetes.NewForConfigOrDie(restConfig).CoordinationV1().Leases(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range leases.Items {
		names = append(names, l.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"listkeeper-member-a", "listkeeper-member-c"}) {
		t.Errorf("Leases after b left: %v", names)
	}
}

// TestGroupsDoNotShareBuckets: the members of two groups in one namespace
// (two installations) do not see each other: each holds every bucket of
// its own group, and each Lease is labelled with its group.
func TestGroupsDoNotShareBuckets(t *testing.T) {
	ns := newNamespace(t)
	optsA, optsB := testOptions(ns, "a"), testOptions(ns, "b")
	optsA.Group, optsB.Group = "blue", "green"
	a := startMemberWith(t, optsA, nil)
	b := startMemberWith(t, optsB, nil)
	split(t, 10*time.Second, a)
	split(t, 10*time.Second, b)
	always(t, leaseDuration, "each group holding every bucket", func() error {
		for _, m := range []*running{a, b} {
			if n := len(m.Held()); n != buckets {
				return fmt.Errorf("%s holds %d buckets", m.Identity(), n)
			}
		}
		return nil
	})
	kube := kubernetes.NewForConfigOrDie(restConfig)
	for name, group := range map[string]string{"listkeeper-member-a": "blue", "listkeeper-member-b": "green"} {
		l, err := kube.CoordinationV1().Leases(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := l.Labels[membership.LabelMember]; got != group {
			t.Errorf("Lease %s is labelled %s=%q, want %q", name, membership.LabelMember, got, group)
		}
	}
}

// TestIdentityTakenInAnotherGroup: a member whose identity, and so Lease
// name, is already a member's of another group in the namespace must not
// write over that Lease: its Start fails, and the other member keeps its
// Lease and its buckets.
func TestIdentityTakenInAnotherGroup(t *testing.T) {
	ns := newNamespace(t)
	optsBlue, optsGreen := testOptions(ns, "a"), testOptions(ns, "a")
	optsBlue.Group, optsGreen.Group = "blue", "green"
	blue := startMemberWith(t, optsBlue, nil)
	split(t, 10*time.Second, blue)
	green := startMemberWith(t, optsGreen, nil)
	select {
	case <-green.done:
		if green.err == nil {
			t.Fatal("the green member's Start returned nil; want an error")
		}
		t.Logf("the green member ended with: %v", green.err)
	case <-time.After(10 * time.Second):
		t.Fatal("the green member runs on a Lease that is the blue member's")
	}
	l, err := kubernetes.NewForConfigOrDie(restConfig).CoordinationV1().Leases(ns).Get(context.Background(), "listkeeper-member-a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g := l.Labels[membership.LabelMember]; g != "blue" {
		t.Errorf("the blue member's Lease is labelled %q", g)
	}
	always(t, leaseDuration, "the blue member keeping its buckets", func() error {
		if n := len(blue.Held()); n != buckets {
			return fmt.Errorf("it holds %d", n)
		}
		return nil
	})
}

// TestHandoverWaitsForAdmittedWork: a bucket that must move to a joining
// member stays with its old owner, which takes no new work for it, until
// the work it admitted is released; only then does the new member take it.
func TestHandoverWaitsForAdmittedWork(t *testing.T) {
	ns := newNamespace(t)
	a := startMember(t, ns, "a", nil)
	split(t, 10*time.Second, a)
	// A bucket that a will hand to b when b joins.
	assign := membership.Assign([]string{"a", "b"}, buckets)
	moving := slices.Index(assign, "b")
	release, ok := a.Acquire(moving)
	if !ok {
		t.Fatalf("a cannot admit work on bucket %d", moving)
	}
	b := startMember(t, ns, "b", nil)
	eventually(t, 10*time.Second, "a to stop taking work for the moving bucket", func() error {
		if rel, ok := a.Acquire(moving); ok {
			rel()
			return errors.New("a still admits work")
		}
		return nil
	})
	// b takes every other bucket of its share, but not this one.
	eventually(t, 10*time.Second, "b to take the rest of its share", func() error {
		if n := len(b.Held()); n < countOf(assign, "b")-1 {
			return fmt.Errorf("b holds %d buckets", n)
		}
		return nil
	})
	// Long enough for any takeover by expiry.
	always(t, 3*leaseDuration, "the handover waiting for admitted work", func() error {
		if b.Owns(moving) {
			return fmt.Errorf("b took bucket %d while a still had work admitted on it", moving)
		}
		if !a.Owns(moving) {
			return fmt.Errorf("a gave bucket %d up while its work was admitted", moving)
		}
		return nil
	})
	release()
	split(t, 10*time.Second, a, b)
}

// TestRegainedBucketIsReportedGained: a bucket that its member was
// draining, because a joining member was to take it, becomes the first
// member's again when the joiner leaves before the drain ends. The work
// refused while it drained must be queued again, so the member reports
// the bucket through OnGained.
func TestRegainedBucketIsReportedGained(t *testing.T) {
	ns := newNamespace(t)
	a := startMember(t, ns, "a", nil)
	var mu sync.Mutex
	var gained []int
	a.OnGained(func(g []int) {
		mu.Lock()
		gained = append(gained, g...)
		mu.Unlock()
	})
	split(t, 10*time.Second, a)
	x := slices.Index(membership.Assign([]string{"a", "b"}, buckets), "b")
	release, ok := a.Acquire(x)
	if !ok {
		t.Fatalf("a cannot admit work on bucket %d", x)
	}
	defer release()
	b := startMember(t, ns, "b", nil)
	eventually(t, 10*time.Second, "a to drain the bucket b is to take", func() error {
		if rel, ok := a.Acquire(x); ok {
			rel()
			return errors.New("a still admits work")
		}
		return nil
	})
	eventually(t, 10*time.Second, "b to take the rest of its share", func() error {
		if n := len(b.Held()); n < countOf(membership.Assign([]string{"a", "b"}, buckets), "b")-1 {
			return fmt.Errorf("b holds %d buckets", n)
		}
		return nil
	})
	mu.Lock()
	gained = nil
	mu.Unlock()
	b.stop(t)
	eventually(t, 10*time.Second, fmt.Sprintf("a to report bucket %d gained again", x), func() error {
		mu.Lock()
		defer mu.Unlock()
		if !slices.Contains(gained, x) {
			return fmt.Errorf("a reported %v", gained)
		}
		return nil
	})
	rel, ok := a.Acquire(x)
	if !ok {
		t.Fatalf("a reported bucket %d gained but does not admit work on it", x)
	}
	rel()
}

func countOf(s []string, v string) int {
	n := 0
	for _, x := range s {
		if x == v {
			n++
		}
	}
	return n
}

// flaky is a RoundTripper that fails every request while broken is set, as
// a partition from the API server would.
type flaky struct {
	next   http.RoundTripper
	broken atomic.Bool
}

func (f *flaky) RoundTrip(r *http.Request) (*http.Response, error) {
	if f.broken.Load() {
		return nil, errors.New("partitioned from the API server")
	}
	return f.next.RoundTrip(r)
}

// flakyConfig is restConfig through a flaky link.
func flakyConfig() (*rest.Config, *flaky) {
	cfg := rest.CopyConfig(restConfig)
	link := &flaky{}
	var once sync.Once
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		once.Do(func() { link.next = rt })
		return link
	}
	return cfg, link
}

// TestMemberThatCannotRenewStopsThenExits: a member cut off from the API
// server stops acting (Owns and Acquire say no) before its Lease expires,
// then Start returns an error. Its Lease stays, as a crashed member's
// would; the other member takes its buckets once the Lease has expired,
// not before.
func TestMemberThatCannotRenewStopsThenExits(t *testing.T) {
	ns := newNamespace(t)
	cfg, link := flakyConfig()
	a := startMember(t, ns, "a", cfg)
	b := startMember(t, ns, "b", nil)
	settles := settlesOnGained(b)
	split(t, 10*time.Second, a, b)
	aBuckets := a.Held()

	cut := time.Now()
	link.broken.Store(true)
	// From the cut until b holds everything, b must never own a bucket
	// that a still owns.
	watch := watchOwnership(a, b)
	var stopped time.Duration
	eventually(t, leaseDuration, "a to stop acting", func() error {
		for _, bk := range aBuckets {
			if a.Owns(bk) {
				return fmt.Errorf("a still owns bucket %d", bk)
			}
		}
		stopped = time.Since(cut)
		return nil
	})
	select {
	case <-a.done:
		if a.err == nil {
			t.Fatal("a's Start returned nil after losing its Lease; want an error so the process exits")
		}
		t.Logf("a stopped acting after %s and exited with: %v", stopped.Round(time.Millisecond), a.err)
	case <-time.After(5 * time.Second):
		t.Fatal("a did not exit after it stopped acting")
	}
	if stopped >= leaseDuration {
		t.Errorf("a stopped acting %s after the cut, not before its lease of %s could expire", stopped, leaseDuration)
	}
	eventually(t, 3*leaseDuration, "b to take every bucket", func() error {
		if n := len(b.Held()); n != buckets {
			return fmt.Errorf("b holds %d", n)
		}
		return nil
	})
	watch.check(t)
	t.Logf("b held every bucket %s after the cut (lease %s)", time.Since(cut).Round(time.Millisecond), leaseDuration)
	// a's Lease expired in b's view a lease duration after b last saw it
	// change (a renews every one to one and a half renew periods); a's
	// late writes may land until the late write bound after that.
	settles.check(t, aBuckets, cut.Add(leaseDuration+lateWriteBound-3*renewPeriod/2), cut.Add(leaseDuration+lateWriteBound))
}

// gainedSettles records, for each bucket a member reports through
// OnGained, its SettleAfter read in the callback.
type gainedSettles struct {
	m  *running
	mu sync.Mutex
	at map[int]time.Time
}

func settlesOnGained(m *running) *gainedSettles {
	g := &gainedSettles{m: m, at: map[int]time.Time{}}
	m.OnGained(func(gained []int) {
		for _, b := range gained {
			s := m.SettleAfter(b)
			g.mu.Lock()
			g.at[b] = s
			g.mu.Unlock()
		}
	})
	return g
}

// check fails unless the member reported each of bs through OnGained with
// a SettleAfter between lo and hi (plus 100 ms for the informer and the
// scheduler), and SettleAfter still says so.
func (g *gainedSettles) check(t *testing.T, bs []int, lo, hi time.Time) {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, b := range bs {
		s, ok := g.at[b]
		switch {
		case !ok:
			t.Errorf("%s did not report bucket %d through OnGained", g.m.Identity(), b)
		case s.Before(lo) || s.After(hi.Add(100*time.Millisecond)):
			t.Errorf("%s took bucket %d with SettleAfter %s, want between %s and %s", g.m.Identity(), b,
				s.Format("15:04:05.000"), lo.Format("15:04:05.000"), hi.Format("15:04:05.000"))
		case !g.m.SettleAfter(b).Equal(s):
			t.Errorf("SettleAfter(%d) of %s changed from %s to %s while it held it", b, g.m.Identity(), s, g.m.SettleAfter(b))
		}
	}
}

// TestDeadLeaseExpiresALeaseDurationAfterFirstSight: the Lease of a member
// killed long ago still claims every bucket. A member that joins cannot
// tell its age (its renewTime was read on another node's clock), so it
// gives it a full lease duration from first sight: it takes no bucket
// before that, then takes them all, ungracefully, and later deletes the
// dead Lease so that such Leases do not pile up.
func TestDeadLeaseExpiresALeaseDurationAfterFirstSight(t *testing.T) {
	ns := newNamespace(t)
	dead := createDeadLease(t, ns, "killed")
	kube := kubernetes.NewForConfigOrDie(restConfig)
	start := time.Now()
	a := startMember(t, ns, "a", nil)
	always(t, leaseDuration-time.Since(start), "a leaving the dead Lease's buckets alone", func() error {
		for bk := range buckets {
			if a.Owns(bk) {
				return fmt.Errorf("a owns bucket %d %s after it started, next to a Lease it first saw then", bk, time.Since(start).Round(time.Millisecond))
			}
		}
		return nil
	})
	split(t, 10*time.Second, a)
	took := time.Now()
	t.Logf("a held every bucket %s after it started, next to a dead Lease (lease duration %s)", took.Sub(start).Round(time.Millisecond), leaseDuration)
	// The dead Lease expired in a's view a lease duration after first
	// sight; its holder's late writes may land until the late write bound
	// after that.
	for bk := range buckets {
		if s := a.SettleAfter(bk); s.Before(start.Add(leaseDuration+lateWriteBound)) || s.After(took.Add(lateWriteBound)) {
			t.Fatalf("a took bucket %d with SettleAfter %s after its start, want between %s and %s", bk,
				s.Sub(start).Round(time.Millisecond), leaseDuration+lateWriteBound, (took.Sub(start) + lateWriteBound).Round(time.Millisecond))
		}
	}
	// It is kept until it has been expired for a lease duration and the
	// late write bound, so that a member starting later cannot take its
	// buckets as handed over while its holder's writes may land.
	always(t, time.Until(start.Add(2*leaseDuration+lateWriteBound)), "the dead Lease kept", func() error {
		_, err := kube.CoordinationV1().Leases(ns).Get(context.Background(), dead, metav1.GetOptions{})
		return err
	})
	eventually(t, 10*time.Second, "the dead Lease deleted", func() error {
		_, err := kube.CoordinationV1().Leases(ns).Get(context.Background(), dead, metav1.GetOptions{})
		if err == nil {
			return errors.New("still there")
		}
		return nil
	})
}

// createDeadLease creates the Lease of a member called id that was killed
// a minute ago, claiming every bucket, and returns its name.
func createDeadLease(t *testing.T, ns, id string) string {
	t.Helper()
	requireEnv(t)
	long := metav1.NewMicroTime(time.Now().Add(-time.Minute))
	secs := int32(leaseDuration / time.Second)
	dead := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: "listkeeper-member-" + id, Namespace: ns,
			Labels:      map[string]string{membership.LabelMember: membership.DefaultGroup},
			Annotations: map[string]string{membership.AnnotationBuckets: encodeAll(buckets)}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &id, LeaseDurationSeconds: &secs, RenewTime: &long, AcquireTime: &long},
	}
	kube := kubernetes.NewForConfigOrDie(restConfig)
	if _, err := kube.CoordinationV1().Leases(ns).Create(context.Background(), dead, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return dead.Name
}

// encodeAll is the bucket annotation of a member that claims all n buckets:
// a bitmap, unpadded base64url, as the members write it.
func encodeAll(n int) string {
	bits := make([]byte, (n+7)/8)
	for i := range bits {
		bits[i] = 0xff
	}
	return base64.RawURLEncoding.EncodeToString(bits)
}
