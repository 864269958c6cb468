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
	"slices"
	"testing"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// ambiguousWrite: a write whose answer is lost is unknown, not failed,
// not lost; a read then shows whether it landed. A backend that retries a
// write itself (the providers' SDKs do, after a connection error) may end
// it otherwise, but only truthfully: committed when its retry was stored,
// never lost when its own first attempt landed. Through the engine, the
// change is done either way, and its item is on the list once.
func ambiguousWrite(t *testing.T, h Harness) {
	theirs := h.IDs(100, 2)
	mine := h.IDs(300, 1)
	for _, tc := range []struct {
		fault  Fault
		landed bool
	}{{FaultDropAfter, true}, {FaultDropBefore, false}} {
		t.Run(string(tc.fault), func(t *testing.T) {
			levels(t, func(t *testing.T) {
				t.Run("unretried", func(t *testing.T) {
					f := start(t, h)
					before := f.seed(t, theirs)
					b := f.backend(t, func(e *etagclient.BackendEnv) { e.TransportRetries = 0 })
					ans := read(t, h.Kind, b)
					f.inject(t, tc.fault, first(1, h.writes))
					w, err := b.Write(ctx(t), with(t, ans.Doc, etagclient.Change{Add: mine}), false, ans.Version)
					if err != nil || w.Outcome != etagclient.WriteUnknown {
						t.Errorf("%s: a write whose connection dropped (%s) = %+v, %v; want unknown", h.Kind, tc.fault, w, err)
					}
					if !tc.landed {
						f.wantUnchanged(t, "after a write dropped before it was served", before)
						return
					}
					f.wantItems(t, "after a write served and then dropped", slices.Concat(theirs, mine))
					if got := read(t, h.Kind, b).Doc.Items(); !sameItems(got, slices.Concat(theirs, mine), h.Ordered) {
						t.Errorf("%s: a read after the write that landed shows %q", h.Kind, got)
					}
				})
				t.Run("retried", func(t *testing.T) {
					f := start(t, h)
					before := f.seed(t, theirs)
					b := f.backend(t, func(e *etagclient.BackendEnv) { e.TransportRetries = etagclient.DefaultTransportRetries })
					ans := read(t, h.Kind, b)
					f.inject(t, tc.fault, first(1, h.writes))
					w, err := b.Write(ctx(t), with(t, ans.Doc, etagclient.Change{Add: mine}), false, ans.Version)
					if err != nil {
						t.Fatalf("%s: a write whose connection dropped (%s): %v; want an outcome", h.Kind, tc.fault, err)
					}
					switch w.Outcome {
					case etagclient.WriteCommitted:
						f.wantItems(t, "after a write that says it committed", slices.Concat(theirs, mine))
					case etagclient.WriteLost:
						t.Errorf("%s: a write whose connection dropped (%s) says it lost to another writer, and there was none", h.Kind, tc.fault)
					}
					if !tc.landed && w.Outcome != etagclient.WriteCommitted {
						f.wantUnchanged(t, "after a write dropped before it was served", before)
					}
				})
			}, func(t *testing.T) {
				f := start(t, h)
				before := f.seed(t, theirs)
				c := f.client(t, nil)
				f.inject(t, tc.fault, first(1, h.writes))
				if _, err := update(t, c, etagclient.Change{Add: mine}); err != nil {
					t.Fatalf("%s: a change whose write dropped (%s): %v; want done", h.Kind, tc.fault, err)
				}
				f.wantItems(t, "after the change", slices.Concat(theirs, mine))
				f.wantForeign(t, "after the change", before)
			})
		})
	}
}
