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

// conditionalWrite: a write on the version read commits; a write on a
// version another writer has replaced since is lost, and nothing of it is
// stored; the engine then re-reads and keeps both writers' items.
func conditionalWrite(t *testing.T, h Harness) {
	theirs := h.IDs(100, 2)
	other := h.IDs(200, 1)
	mine := h.IDs(300, 2)
	raced := slices.Concat(theirs, other)
	levels(t, func(t *testing.T) {
		f := start(t, h)
		f.seed(t, theirs)
		b := f.backend(t, nil)
		stale := read(t, h.Kind, b)

		competitor := f.seed(t, raced)
		w, err := b.Write(ctx(t), with(t, stale.Doc, etagclient.Change{Add: mine[:1]}), false, stale.Version)
		if err != nil || w.Outcome != etagclient.WriteLost {
			t.Errorf("%s: a write on a version another writer replaced = %+v, %v; want lost", h.Kind, w, err)
		}
		f.wantUnchanged(t, "after the stale write", competitor)

		fresh := read(t, h.Kind, b)
		if fresh.Version.Tag != "" && fresh.Version.Tag == stale.Version.Tag {
			t.Errorf("%s: another writer's write left the version %q as it was", h.Kind, fresh.Version.Tag)
		}
		w, err = b.Write(ctx(t), with(t, fresh.Doc, etagclient.Change{Add: mine[:1]}), false, fresh.Version)
		if err != nil || w.Outcome != etagclient.WriteCommitted {
			t.Fatalf("%s: a write on the version read = %+v, %v; want committed", h.Kind, w, err)
		}
		f.wantItems(t, "after the write on the version read", slices.Concat(raced, mine[:1]))

		// Its own commit made fresh's version stale too.
		ours := f.stored(t)
		w, err = b.Write(ctx(t), with(t, fresh.Doc, etagclient.Change{Add: mine[1:]}), false, fresh.Version)
		if err != nil || w.Outcome != etagclient.WriteLost {
			t.Errorf("%s: a write on the version before its own commit = %+v, %v; want lost", h.Kind, w, err)
		}
		f.wantUnchanged(t, "after a write on the version before the last commit", ours)
	}, func(t *testing.T) {
		f := start(t, h)
		f.seed(t, theirs)
		c := f.client(t, nil)
		// The first write waits until another writer has written, and its
		// answer until the test has seen what the fake holds.
		sent := f.probe.HoldBefore(t, h.writes)
		answered := f.probe.HoldAfter(t, h.writes)
		p, err := c.Submit(etagclient.Change{Add: mine}, nil)
		if err != nil {
			t.Fatal(err)
		}
		<-sent.Reached()
		competitor := f.seed(t, raced)
		sent.Release()
		<-answered.Reached()
		f.wantUnchanged(t, "after the write sent on the version before another writer's", competitor)
		answered.Release()
		<-p.Done()
		if res, err := p.Result(); err != nil || !res.Written {
			t.Fatalf("%s: the change = %+v, %v; want written after the lost write", h.Kind, res, err)
		}
		f.wantItems(t, "after the engine retried", slices.Concat(raced, mine))
		if n, _ := f.probe.Writes(); n < 2 {
			t.Errorf("%s: %d writes, want the lost one and its retry", h.Kind, n)
		}
	})
}
