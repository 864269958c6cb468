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
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// errorClasses: refused credentials, a missing list, throttling and 5xx
// answers each end with the error class the engine and the controller act
// on, and nothing is written.
func errorClasses(t *testing.T, h Harness) {
	theirs := h.IDs(100, 2)
	mine := h.IDs(300, 1)
	t.Run("unauthorized", func(t *testing.T) {
		levels(t, func(t *testing.T) {
			f := start(t, h)
			f.seed(t, theirs)
			b := f.backend(t, nil)
			broken := f.breakCredentials(t)
			_, err := b.Read(ctx(t), etagclient.Version{})
			wantClass(t, h.Kind+": a read with refused credentials", err, etagclient.ErrUnauthorized)
			broken(t)
		}, func(t *testing.T) {
			f := start(t, h)
			before := f.seed(t, theirs)
			c := f.client(t, nil, etagclient.WithCreateIfMissing(true))
			broken := f.breakCredentials(t)
			_, err := update(t, c, etagclient.Change{Add: mine})
			wantClass(t, h.Kind+": a change with refused credentials", err, etagclient.ErrUnauthorized)
			broken(t)
			f.wantUnchanged(t, "after the refused change", before)
		})
	})
	t.Run("not-found", func(t *testing.T) {
		levels(t, func(t *testing.T) {
			f := start(t, h)
			missing := f.missing(t)
			f.tg = missing
			b := f.backend(t, nil)
			ans, err := b.Read(ctx(t), etagclient.Version{})
			if err == nil && ans.Absent && h.Absent {
				return // a document without a container reads as absent
			}
			wantClass(t, h.Kind+": a read of a list whose container does not exist", err, h.notFoundClass())
		}, func(t *testing.T) {
			f := start(t, h)
			missing := f.missing(t)
			c := f.client(t, missing)
			_, err := update(t, c, etagclient.Change{Add: mine})
			wantClass(t, h.Kind+": a change to a list that does not exist", err, h.notFoundClass())
			f.wantNoWrite(t, "after the change to a missing list", 0)
		})
	})
	for _, fault := range []Fault{FaultThrottled, FaultUnavailable, FaultInternal} {
		t.Run(string(fault), func(t *testing.T) {
			levels(t, func(t *testing.T) {
				f := start(t, h)
				f.seed(t, theirs)
				b := f.backend(t, nil)
				f.inject(t, fault, every)
				_, err := b.Read(ctx(t), etagclient.Version{})
				wantClass(t, h.Kind+": a read answered "+string(fault), err, etagclient.ErrUnreachable)
			}, func(t *testing.T) {
				f := start(t, h)
				before := f.seed(t, theirs)
				c := f.client(t, nil)
				f.inject(t, fault, every)
				_, err := update(t, c, etagclient.Change{Add: mine})
				wantClass(t, h.Kind+": a change answered "+string(fault), err, etagclient.ErrUnreachable)
				f.wantUnchanged(t, "after the failed change", before)
			})
		})
	}
}

// missing returns the harness's list whose container does not exist,
// skipping the test when it has none.
func (f *fixture) missing(t *testing.T) *Target {
	t.Helper()
	if f.tg.Missing == nil {
		t.Skipf("%s: the harness names no missing list", f.h.Kind)
	}
	m := f.tg.Missing(t, f.probe)
	m.check(t, f.h.Kind)
	return m
}

// breakCredentials makes the probe spoil the credentials of every request
// from now on (a bearer token, a SigV4 signature, a SAS signature), so
// that the fake's own check refuses them. The function it returns fails
// the test unless some request carried credentials it spoiled.
func (f *fixture) breakCredentials(t *testing.T) func(t *testing.T) {
	var spoiled atomic.Int64
	f.probe.Mutate(every, func(r *http.Request) {
		if spoilCredentials(r) {
			spoiled.Add(1)
		}
	})
	return func(t *testing.T) {
		t.Helper()
		if spoiled.Load() == 0 {
			t.Errorf("%s: no request carried credentials the suite can spoil (a bearer token, a SigV4 or SAS signature)", f.h.Kind)
		}
	}
}

// spoilCredentials changes r's credentials into ones the server refuses,
// and reports whether it found any.
func spoilCredentials(r *http.Request) bool {
	if a := r.Header.Get("Authorization"); a != "" {
		switch {
		case strings.HasPrefix(a, "Bearer "):
			r.Header.Set("Authorization", a+"-spoiled")
			return true
		case strings.Contains(a, "Signature="):
			r.Header.Set("Authorization", spoilHex(a))
			return true
		}
	}
	q := r.URL.Query()
	for _, k := range []string{"sig", "X-Amz-Signature"} {
		if v := q.Get(k); v != "" {
			q.Set(k, spoilHex(v))
			r.URL.RawQuery = q.Encode()
			return true
		}
	}
	return false
}

// spoilHex changes the last character of s into another of the same kind
// (hex digit or base64), keeping its length.
func spoilHex(s string) string {
	if s == "" {
		return s
	}
	last := s[len(s)-1]
	repl := byte('0')
	if last == '0' {
		repl = '1'
	}
	if last == '=' && len(s) > 1 {
		return spoilHex(s[:len(s)-1]) + "="
	}
	return s[:len(s)-1] + string(repl)
}
