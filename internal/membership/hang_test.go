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
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// hanging is a RoundTripper that, once hang is set, holds every request
// that match accepts (all when match is nil) and never answers it: until
// the request's context ends when honorContext is set, as an unanswered
// connection would, else until release is called, as a call that nothing
// cancels would.
type hanging struct {
	next         http.RoundTripper
	hang         atomic.Bool
	honorContext bool
	match        func(*http.Request) bool
	released     chan struct{}
	once         sync.Once
}

func (h *hanging) RoundTrip(r *http.Request) (*http.Response, error) {
	if !h.hang.Load() || (h.match != nil && !h.match(r)) {
		return h.next.RoundTrip(r)
	}
	if h.honorContext {
		select {
		case <-r.Context().Done():
			return nil, r.Context().Err()
		case <-h.released:
		}
	} else {
		<-h.released
	}
	return nil, errors.New("the API server never answered")
}

// release ends every held request and lets the later ones through.
func (h *hanging) release() {
	h.once.Do(func() {
		h.hang.Store(false)
		close(h.released)
	})
}

// hangingConfig is restConfig through a link that hangs when told. A test
// registers link.release as a cleanup after it started the members, so
// that it runs before theirs, which wait for the members to end.
func hangingConfig(honorContext bool, match func(*http.Request) bool) (*rest.Config, *hanging) {
	cfg := rest.CopyConfig(restConfig)
	link := &hanging{honorContext: honorContext, match: match, released: make(chan struct{})}
	var once sync.Once
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		once.Do(func() { link.next = rt })
		return link
	}
	return cfg, link
}

// TestMemberStopsAtItsDeadlineWhileTheAPIHangs: a member whose calls to the
// API server hang stops owning its buckets by its renew deadline, though
// its loop is stuck in a call. The other member takes the buckets once the
// Lease has expired, and never owns one that the stuck member still owns.
// When the calls end at their deadline, the member also exits with an
// error.
func TestMemberStopsAtItsDeadlineWhileTheAPIHangs(t *testing.T) {
	for _, tc := range []struct {
		name         string
		honorContext bool
	}{
		{"calls that nothing cancels", false},
		{"unanswered calls", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := newNamespace(t)
			cfg, link := hangingConfig(tc.honorContext, nil)
			a := startMember(t, ns, "a", cfg)
			t.Cleanup(link.release) // before a's cleanup, which waits for a to end
			b := startMember(t, ns, "b", nil)
			split(t, 10*time.Second, a, b)
			aBuckets := a.Held()

			cut := time.Now()
			link.hang.Store(true)
			watch := watchOwnership(a, b)
			var stopped time.Duration
			eventually(t, leaseDuration, "a to stop owning its buckets while its calls hang", func() error {
				for _, bk := range aBuckets {
					until, ok := a.ActUntil(bk)
					if !ok {
						continue
					}
					if now := time.Now(); !now.Before(until) {
						t.Fatalf("ActUntil(%d) is %s ago, but a may still act", bk, now.Sub(until))
					}
					return fmt.Errorf("a still owns bucket %d, until %s from now", bk, time.Until(until).Round(time.Millisecond))
				}
				stopped = time.Since(cut)
				return nil
			})
			t.Logf("a stopped owning its buckets %s after its calls began to hang (lease %s)", stopped.Round(time.Millisecond), leaseDuration)
			// Its last renewal began before the cut.
			if stopped > renewDeadline+100*time.Millisecond {
				t.Errorf("a stopped owning %s after the cut, later than its renew deadline of %s", stopped, renewDeadline)
			}
			eventually(t, 3*leaseDuration, "b to take every bucket", func() error {
				if n := len(b.Held()); n != buckets {
					return fmt.Errorf("b holds %d", n)
				}
				return nil
			})
			watch.check(t)
			if tc.honorContext {
				select {
				case <-a.done:
					if a.err == nil {
						t.Error("a's Start returned nil after it could not renew; want an error")
					}
				case <-time.After(2 * leaseDuration):
					t.Error("a did not exit, though every call it makes ends at its deadline")
				}
			}
		})
	}
}

// TestHungCollectionDoesNotStopRenewal: the API server never answers the
// deletion of a dead member's Lease. The member that collects it goes on
// renewing its own Lease, and owning its buckets, all along.
func TestHungCollectionDoesNotStopRenewal(t *testing.T) {
	ns := newNamespace(t)
	dead := createDeadLease(t, ns, "killed")
	cfg, link := hangingConfig(true, func(r *http.Request) bool {
		return r.Method == http.MethodDelete && strings.HasSuffix(r.URL.Path, "/"+dead)
	})
	link.hang.Store(true)
	start := time.Now()
	a := startMember(t, ns, "a", cfg)
	t.Cleanup(link.release)
	split(t, 10*time.Second, a)

	// a tries to delete the dead Lease from two lease durations and the
	// late write bound after it first saw it; it must go on renewing for
	// two lease durations after that.
	renewals := watchRenewals(t, ns, "listkeeper-member-a")
	always(t, time.Until(start.Add(4*leaseDuration+lateWriteBound)), "a renewing and owning its buckets", func() error {
		if since := renewals.since(); since > leaseDuration {
			return fmt.Errorf("a's Lease not renewed for %s", since.Round(time.Millisecond))
		}
		for bk := range buckets {
			if !a.Owns(bk) {
				return fmt.Errorf("a does not own bucket %d", bk)
			}
		}
		return nil
	})
}

// renewalWatch polls a Lease and notes when its resourceVersion last
// changed.
type renewalWatch struct {
	mu      sync.Mutex
	rv      string
	changed time.Time
}

// watchRenewals polls the Lease name in ns every 20 ms until the test ends.
func watchRenewals(t *testing.T, ns, name string) *renewalWatch {
	t.Helper()
	kube := kubernetes.NewForConfigOrDie(restConfig)
	w := &renewalWatch{changed: time.Now()}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if l, err := kube.CoordinationV1().Leases(ns).Get(ctx, name, metav1.GetOptions{}); err == nil {
				w.mu.Lock()
				if l.ResourceVersion != w.rv {
					w.rv, w.changed = l.ResourceVersion, time.Now()
				}
				w.mu.Unlock()
			}
			select {
			case <-ctx.Done():
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return w
}

// since is how long ago the Lease last changed.
func (w *renewalWatch) since() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return time.Since(w.changed)
}
