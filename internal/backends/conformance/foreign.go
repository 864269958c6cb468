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

// foreign: the items and fields the operator did not add survive its
// writes: its additions and removals touch its own items only.
func foreign(t *testing.T, h Harness) {
	theirs := h.IDs(100, 3)
	mine := h.IDs(300, 2)
	levels(t, func(t *testing.T) {
		f := start(t, h)
		before := f.seed(t, theirs)
		b := f.backend(t, nil)
		ans := read(t, h.Kind, b)
		if !sameItems(ans.Doc.Items(), theirs, h.Ordered) {
			t.Errorf("%s: Read = %q, want %q", h.Kind, ans.Doc.Items(), theirs)
		}
		w, err := b.Write(ctx(t), with(t, ans.Doc, etagclient.Change{Add: mine}), false, ans.Version)
		if err != nil || w.Outcome != etagclient.WriteCommitted {
			t.Fatalf("%s: write = %+v, %v; want committed", h.Kind, w, err)
		}
		f.wantItems(t, "after the addition", slices.Concat(theirs, mine))
		f.wantForeign(t, "after the addition", before)
	}, func(t *testing.T) {
		f := start(t, h)
		before := f.seed(t, theirs)
		c := f.client(t, nil)
		if _, err := update(t, c, etagclient.Change{Add: mine}); err != nil {
			t.Fatal(err)
		}
		f.wantItems(t, "after the addition", slices.Concat(theirs, mine))
		f.wantForeign(t, "after the addition", before)
		if _, err := update(t, c, etagclient.Change{Remove: mine[:1]}); err != nil {
			t.Fatal(err)
		}
		f.wantItems(t, "after the removal", slices.Concat(theirs, mine[1:]))
		f.wantForeign(t, "after the removal", before)
	})
}
