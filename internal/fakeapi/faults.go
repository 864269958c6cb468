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

package fakeapi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// FaultKind names an injected fault. The values are used as keys of
// Stats.Faults and in the JSON served by /_fakeapi/stats.
type FaultKind string

const (
	// FaultNone means the request is processed normally.
	FaultNone FaultKind = ""
	// FaultServiceUnavailable answers 503 with Retry-After, without
	// processing the request.
	FaultServiceUnavailable FaultKind = "503"
	// FaultTooManyRequests answers 429 with Retry-After, without processing
	// the request.
	FaultTooManyRequests FaultKind = "429"
	// FaultResetBeforeCommit drops the connection without answering and
	// without processing the request: a write is not committed. It applies
	// to every method; for a GET it is simply a reset connection.
	FaultResetBeforeCommit FaultKind = "reset-before-commit"
	// FaultCommitThenDrop processes the request normally (a valid PUT or
	// DELETE whose preconditions hold is committed) and then drops the
	// connection instead of answering: the client cannot tell whether its
	// write happened. The answer is lost whatever it would have been, so a
	// write that fails its precondition is dropped too. The rate-based
	// faults pick it for PUT and DELETE only; a hook may pick it for any
	// method.
	FaultCommitThenDrop FaultKind = "commit-then-drop"
	// FaultHoldWrite holds a PUT or DELETE for Fault.Hold after its body
	// was read and checked and before its preconditions are evaluated, as
	// a slow proxy or a stalled server thread would: a write sent with a
	// tag that was current may find, when it is evaluated, that another
	// writer committed meanwhile (412), or still commit although its
	// client gave up waiting. The Server's lock is not held during the
	// hold, and a write whose client went away is still processed after
	// it. On other methods it changes nothing. The rate-based faults pick
	// it for PUT and DELETE only.
	FaultHoldWrite FaultKind = "hold-write"
)

// Fault is the fault decided for one request.
type Fault struct {
	// Kind is the fault; FaultNone for none.
	Kind FaultKind
	// RetryAfter is sent, rounded up to whole seconds, in the Retry-After
	// header of a 429 or 503. Zero means Faults.RetryAfter, or
	// DefaultRetryAfter when that is zero too.
	RetryAfter time.Duration
	// Hold is how long FaultHoldWrite holds the write. Zero means
	// Faults.HoldWrites, or DefaultHoldWrites when that is zero too.
	Hold time.Duration
}

// FaultHook decides the fault for a list request. It is called once per
// list request that passed authentication, never for /_fakeapi/ routes, and
// without the Server's lock held, so it may call the Server's methods. It
// must not read r.Body. A hook may be called concurrently.
type FaultHook func(r *http.Request) Fault

// Faults configures rate-based fault injection. Each rate is a probability
// in [0, 1]; their sum must not exceed 1. For every list request the Server
// draws one uniform number u from its seeded source and picks, in this
// order, the fault whose band contains u: Rate503, Rate429,
// RateResetBeforeCommit and, for PUT and DELETE only, RateCommitThenDrop
// and RateHoldWrites. The zero value injects no faults. Faults is
// comparable; its JSON form (served at /_fakeapi/faults) writes durations
// as Go duration strings such as "8s".
type Faults struct {
	// Rate503 is the probability of FaultServiceUnavailable.
	Rate503 float64
	// Rate429 is the probability of FaultTooManyRequests.
	Rate429 float64
	// RetryAfter is the Retry-After of injected 429 and 503 answers.
	// Zero means DefaultRetryAfter.
	RetryAfter time.Duration
	// RateResetBeforeCommit is the probability of FaultResetBeforeCommit.
	RateResetBeforeCommit float64
	// RateCommitThenDrop is the probability of FaultCommitThenDrop for a
	// PUT or DELETE.
	RateCommitThenDrop float64
	// RateHoldWrites is the probability of FaultHoldWrite for a PUT or
	// DELETE; 1 (with the other rates 0) holds every write.
	RateHoldWrites float64
	// HoldWrites is how long a write picked by RateHoldWrites, or by a
	// hook that leaves Fault.Hold zero, is held. Zero means
	// DefaultHoldWrites.
	HoldWrites time.Duration
}

// Validate reports whether every rate is in [0, 1], the rates sum to at
// most 1 and RetryAfter is not negative.
func (f Faults) Validate() error {
	var errs []error
	sum := 0.0
	for _, r := range []struct {
		name string
		v    float64
	}{
		{"Rate503", f.Rate503},
		{"Rate429", f.Rate429},
		{"RateResetBeforeCommit", f.RateResetBeforeCommit},
		{"RateCommitThenDrop", f.RateCommitThenDrop},
		{"RateHoldWrites", f.RateHoldWrites},
	} {
		if math.IsNaN(r.v) || r.v < 0 || r.v > 1 {
			errs = append(errs, fmt.Errorf("fault rate %s must be in [0, 1], got %v", r.name, r.v))
		}
		sum += r.v
	}
	if sum > 1+1e-9 {
		errs = append(errs, fmt.Errorf("fault rates must sum to at most 1, got %v", sum))
	}
	if f.RetryAfter < 0 {
		errs = append(errs, fmt.Errorf("fault RetryAfter must not be negative, got %s", f.RetryAfter))
	}
	if f.HoldWrites < 0 {
		errs = append(errs, fmt.Errorf("fault HoldWrites must not be negative, got %s", f.HoldWrites))
	}
	return errors.Join(errs...)
}

// pick maps a uniform draw u in [0, 1) to a fault kind.
func (f Faults) pick(u float64, write bool) FaultKind {
	commitThenDrop, hold := f.RateCommitThenDrop, f.RateHoldWrites
	if !write {
		commitThenDrop, hold = 0, 0
	}
	bands := [...]struct {
		rate float64
		kind FaultKind
	}{
		{f.Rate503, FaultServiceUnavailable},
		{f.Rate429, FaultTooManyRequests},
		{f.RateResetBeforeCommit, FaultResetBeforeCommit},
		{commitThenDrop, FaultCommitThenDrop},
		{hold, FaultHoldWrite},
	}
	for _, b := range bands {
		if u < b.rate {
			return b.kind
		}
		u -= b.rate
	}
	return FaultNone
}

// SetFaults replaces the rate-based faults. Tests typically switch faults
// off with SetFaults(Faults{}) before their final read.
func (s *Server) SetFaults(f Faults) error {
	if err := f.Validate(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = f
	return nil
}

// Faults returns the current rate-based faults.
func (s *Server) Faults() Faults {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.faults
}

// SetFaultHook replaces the fault hook; nil removes it.
func (s *Server) SetFaultHook(h FaultHook) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hook = h
}

// SetLatency replaces the injected latency (see WithLatency).
func (s *Server) SetLatency(base, jitter time.Duration) error {
	if base < 0 || jitter < 0 {
		return fmt.Errorf("latency must not be negative, got base %s jitter %s", base, jitter)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latencyBase, s.latencyJitter = base, jitter
	return nil
}

// Latency returns the current injected latency.
func (s *Server) Latency() (base, jitter time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.latencyBase, s.latencyJitter
}

// holdWrite holds the write r for d (FaultHoldWrite; nothing when d is not
// positive), in real time and without the Server's lock, and returns the
// context the rest of the write runs under: after a hold, r's context
// without its cancellation, so that a write whose client went away during
// the hold is still evaluated, and may still commit, as a late write
// would.
func holdWrite(r *http.Request, d time.Duration) context.Context {
	if d <= 0 {
		return r.Context()
	}
	time.Sleep(d)
	return context.WithoutCancel(r.Context())
}

// retryAfterValue renders d as Retry-After delay-seconds, rounded up.
func retryAfterValue(d time.Duration) string {
	secs := int64(math.Ceil(d.Seconds()))
	if secs < 0 {
		secs = 0
	}
	return strconv.FormatInt(secs, 10)
}

// sleepCtx waits for d or until ctx is done; it reports whether d elapsed.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// OverlapFirstPuts returns a fault hook that holds the first PUT to reach
// the server until a second PUT has reached it too, then lets both go on.
// No PUT is processed before the second arrives, so both were sent after
// reading the same version, and at most one of them can commit: the other
// is refused (unless a fault drops it first). A test that names a race
// makes it happen for certain this way, rather than by luck of scheduling.
// When no second PUT comes within patience, the first goes on alone, and
// the test's check for a refusal says that no race happened.
func OverlapFirstPuts(patience time.Duration) FaultHook {
	var puts atomic.Int32
	second := make(chan struct{})
	return func(r *http.Request) Fault {
		if r.Method != http.MethodPut {
			return Fault{}
		}
		switch puts.Add(1) {
		case 1:
			timer := time.NewTimer(patience)
			defer timer.Stop()
			select {
			case <-second:
			case <-timer.C:
			case <-r.Context().Done():
			}
		case 2:
			close(second)
		}
		return Fault{}
	}
}
