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

package conformance

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"
)

// Probe is the transport under a kind's backend: every request of the
// list, signed as the kind signs it, goes through it to the fake. It
// counts reads and writes, and runs the rules the suite (or a harness, for
// a fault its fake cannot inject) installs: play another writer before a
// request goes out, drop a connection before or after the fake served it,
// answer in the fake's stead, or rewrite an answer as a broken proxy
// would. A Probe is safe for concurrent use.
type Probe struct {
	isWrite func(*http.Request) bool
	next    *http.Transport

	mu     sync.Mutex
	rules  []*rule
	writes int // writes that reached the fake (not dropped before)
	sent   int // writes the backend sent
}

// rule is one thing the Probe does to the requests pick chooses, at most
// times times (0: every time).
type rule struct {
	pick  func(r *http.Request) bool
	times int
	used  int

	before  func(r *http.Request) *http.Request // may replace the request
	respond func(r *http.Request) (*http.Response, error)
	after   func(r *http.Request, resp *http.Response) (*http.Response, error)
}

// errDropped is the transport error of a connection the Probe dropped.
var errDropped = errors.New("connection reset by peer (dropped by the conformance probe)")

// NewProbe returns a Probe that sends to the fake over a transport of its
// own, closed when t ends. isWrite tells writes from reads.
func NewProbe(t *testing.T, isWrite func(*http.Request) bool) *Probe {
	tr := &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 4, IdleConnTimeout: time.Minute}
	t.Cleanup(tr.CloseIdleConnections)
	return &Probe{isWrite: isWrite, next: tr}
}

// Client returns an HTTP client that sends through the Probe.
func (p *Probe) Client() *http.Client {
	return &http.Client{Transport: p, Timeout: 30 * time.Second}
}

// CloseIdleConnections closes the idle connections to the fake.
func (p *Probe) CloseIdleConnections() { p.next.CloseIdleConnections() }

// Writes returns how many writes the backend sent, and how many of them
// reached the fake.
func (p *Probe) Writes() (sent, reached int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sent, p.writes
}

// Reset removes every rule.
func (p *Probe) Reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rules = nil
}

// Before runs f before each of the first times requests pick chooses goes
// out (0: every one), for example to play another writer between a read
// and the write that follows it.
func (p *Probe) Before(pick func(*http.Request) bool, times int, f func(r *http.Request)) {
	p.add(&rule{pick: pick, times: times, before: func(r *http.Request) *http.Request { f(r); return r }})
}

// Mutate sends, in the stead of each request pick chooses, the copy of it
// that f changed (a broken signature, say).
func (p *Probe) Mutate(pick func(*http.Request) bool, f func(r *http.Request)) {
	p.add(&rule{pick: pick, before: func(r *http.Request) *http.Request {
		c := r.Clone(r.Context())
		f(c)
		return c
	}})
}

// After runs f on the answers to the requests pick chooses (0 times:
// every one), before the backend sees them.
func (p *Probe) After(pick func(*http.Request) bool, times int, f func(resp *http.Response)) {
	p.add(&rule{pick: pick, times: times, after: func(_ *http.Request, resp *http.Response) (*http.Response, error) {
		f(resp)
		return resp, nil
	}})
}

// Inject injects f at the Probe, for a fake that cannot: FaultDropBefore
// fails the request without sending it, FaultDropAfter sends it, waits for
// the fake's answer and fails it. The other faults need an answer only the
// kind can spell (see Answer), and wrap ErrNoFault.
func (p *Probe) Inject(f Fault, pick func(*http.Request) bool) error {
	switch f {
	case FaultDropBefore:
		p.add(&rule{pick: pick, respond: func(*http.Request) (*http.Response, error) { return nil, errDropped }})
	case FaultDropAfter:
		p.add(&rule{pick: pick, after: func(_ *http.Request, resp *http.Response) (*http.Response, error) {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			return nil, errDropped
		}})
	default:
		return fmt.Errorf("%w: the probe drops connections only (%s)", ErrNoFault, f)
	}
	return nil
}

// Answer answers the requests pick chooses with the answer build makes,
// without sending them: a fault of a store whose fake has no fault hook,
// spelled as the store spells it. The Probe sets the answer's Request.
func (p *Probe) Answer(pick func(*http.Request) bool, build func(r *http.Request) *http.Response) {
	p.add(&rule{pick: pick, respond: func(r *http.Request) (*http.Response, error) {
		resp := build(r)
		resp.Request = r
		return resp, nil
	}})
}

func (p *Probe) add(r *rule) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rules = append(p.rules, r)
}

// take returns the rules that apply to r, counting their use.
func (p *Probe) take(r *http.Request) []*rule {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []*rule
	for _, ru := range p.rules {
		if ru.pick != nil && !ru.pick(r) {
			continue
		}
		if ru.times > 0 && ru.used >= ru.times {
			continue
		}
		ru.used++
		out = append(out, ru)
	}
	return out
}

// RoundTrip implements http.RoundTripper.
func (p *Probe) RoundTrip(r *http.Request) (*http.Response, error) {
	write := p.isWrite(r)
	if write {
		p.mu.Lock()
		p.sent++
		p.mu.Unlock()
	}
	rules := p.take(r)
	for _, ru := range rules {
		if ru.before != nil {
			r = ru.before(r)
		}
	}
	for _, ru := range rules {
		if ru.respond != nil {
			if r.Body != nil {
				_ = r.Body.Close()
			}
			return ru.respond(r)
		}
	}
	if write {
		p.mu.Lock()
		p.writes++
		p.mu.Unlock()
	}
	resp, err := p.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	for _, ru := range rules {
		if ru.after != nil {
			if resp, err = ru.after(r, resp); err != nil {
				return nil, err
			}
		}
	}
	return resp, nil
}

// Hold is a request the Probe keeps waiting until the test releases it.
type Hold struct {
	reached chan struct{}
	release chan struct{}
	once    sync.Once
}

// Reached is closed when the request has come.
func (h *Hold) Reached() <-chan struct{} { return h.reached }

// Release lets the request go on. It may be called more than once.
func (h *Hold) Release() { h.once.Do(func() { close(h.release) }) }

func (h *Hold) wait(r *http.Request) {
	close(h.reached)
	select {
	case <-h.release:
	case <-r.Context().Done():
	}
}

// HoldBefore holds the first request pick chooses before it goes out, so
// that the test goroutine can act in between (play another writer, look at
// the fake). The hold is released when t ends, at the latest.
func (p *Probe) HoldBefore(t *testing.T, pick func(*http.Request) bool) *Hold {
	h := &Hold{reached: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(h.Release)
	p.add(&rule{pick: pick, times: 1, before: func(r *http.Request) *http.Request { h.wait(r); return r }})
	return h
}

// HoldAfter holds the first answer to a request pick chooses before the
// backend sees it; otherwise it is HoldBefore.
func (p *Probe) HoldAfter(t *testing.T, pick func(*http.Request) bool) *Hold {
	h := &Hold{reached: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(h.Release)
	p.add(&rule{pick: pick, times: 1, after: func(r *http.Request, resp *http.Response) (*http.Response, error) {
		h.wait(r)
		return resp, nil
	}})
	return h
}
