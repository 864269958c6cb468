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
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// losesAnswer is a RoundTripper that, when armed, lets the next update
// (PUT) through to the API server but loses its answer: the caller gets
// an error though the update was made.
type losesAnswer struct {
	next http.RoundTripper
	arm  atomic.Bool
	lost atomic.Int32
}

func (l *losesAnswer) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodPut || !l.arm.CompareAndSwap(true, false) {
		return l.next.RoundTrip(r)
	}
	resp, err := l.next.RoundTrip(r)
	if err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	l.lost.Add(1)
	return nil, errors.New("connection reset after the update was sent")
}

// TestLostRenewalAnswerIsRecovered: a renewal is made but its answer is
// lost, so the member's resourceVersion of its Lease is stale and its next
// renewal conflicts. The member re-reads its Lease and goes on: it keeps
// every bucket, without a gap, for several lease durations.
func TestLostRenewalAnswerIsRecovered(t *testing.T) {
	ns := newNamespace(t)
	cfg := rest.CopyConfig(restConfig)
	link := &losesAnswer{}
	var once sync.Once
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		once.Do(func() { link.next = rt })
		return link
	}
	a := startMember(t, ns, "a", cfg)
	split(t, 10*time.Second, a)

	link.arm.Store(true)
	eventually(t, leaseDuration, "a renewal's answer to be lost", func() error {
		if link.lost.Load() == 0 {
			return errors.New("no update yet")
		}
		return nil
	})
	always(t, 3*leaseDuration, "a keeping its buckets after a renewal's answer was lost", func() error {
		select {
		case <-a.done:
			return fmt.Errorf("a's Start returned: %w", a.err)
		default:
		}
		for bk := range buckets {
			if !a.Owns(bk) {
				return fmt.Errorf("a does not own bucket %d", bk)
			}
		}
		return nil
	})
}
