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
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// freezer is a RoundTripper whose watch streams stop delivering while it
// is frozen, as a watch behind a lagging cache or a stuck proxy would;
// other requests go through.
type freezer struct {
	next http.RoundTripper
	mu   sync.Mutex
	thaw chan struct{} // non-nil while frozen; closed to thaw
}

func (f *freezer) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := f.next.RoundTrip(r)
	if err != nil || r.URL.Query().Get("watch") != "true" {
		return resp, err
	}
	resp.Body = frozenBody{ReadCloser: resp.Body, f: f}
	return resp, nil
}

func (f *freezer) freeze() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.thaw == nil {
		f.thaw = make(chan struct{})
	}
}

func (f *freezer) unfreeze() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.thaw != nil {
		close(f.thaw)
		f.thaw = nil
	}
}

// wait returns once the freezer is not frozen.
func (f *freezer) wait() {
	f.mu.Lock()
	thaw := f.thaw
	f.mu.Unlock()
	if thaw != nil {
		<-thaw
	}
}

type frozenBody struct {
	io.ReadCloser
	f *freezer
}

func (b frozenBody) Read(p []byte) (int, error) {
	b.f.wait()
	return b.ReadCloser.Read(p)
}

// TestStaleWatchDoesNotMakeALiveMemberLookDead: b's watch of the Leases
// stops delivering while a goes on renewing, so a's Lease looks expired in
// b's view after a lease duration. Before b takes a bucket that Lease
// claims it reads the Lease from the API server, finds it renewed, and
// leaves a's buckets alone.
func TestStaleWatchDoesNotMakeALiveMemberLookDead(t *testing.T) {
	ns := newNamespace(t)
	a := startMember(t, ns, "a", nil)
	cfg := rest.CopyConfig(restConfig)
	watch := &freezer{}
	var once sync.Once
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		once.Do(func() { watch.next = rt })
		return watch
	}
	b := startMemberWith(t, testOptions(ns, "b"), cfg)
	t.Cleanup(watch.unfreeze) // before b's cleanup, which waits for b to end
	split(t, 10*time.Second, a, b)
	aBuckets := a.Held()

	watch.freeze()
	owners := watchOwnership(a, b)
	always(t, 3*leaseDuration, "a keeping its buckets while b's watch is stale", func() error {
		for _, bk := range aBuckets {
			if !a.Owns(bk) {
				return fmt.Errorf("a does not own bucket %d", bk)
			}
			if b.Owns(bk) {
				return fmt.Errorf("b owns a's bucket %d", bk)
			}
		}
		return nil
	})
	owners.check(t)
}
