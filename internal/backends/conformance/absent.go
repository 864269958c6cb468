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
	"testing"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// absent: a list that does not exist reads as absent, not as an error.
func absent(t *testing.T, h Harness) {
	if !h.Absent {
		t.Skipf("%s: its lists exist before the operator names them", h.Kind)
	}
	levels(t, func(t *testing.T) {
		f := start(t, h)
		b := f.backend(t, nil)
		ans, err := b.Read(ctx(t), etagclient.Version{})
		if err != nil || !ans.Absent {
			t.Fatalf("%s: Read of a list that does not exist = %+v, %v; want Absent", h.Kind, ans, err)
		}
	}, func(t *testing.T) {
		f := start(t, h)
		snap, err := f.client(t, nil).Read(ctx(t))
		if err != nil || snap.Exists {
			t.Fatalf("%s: Client.Read of a list that does not exist = %+v, %v; want Exists false", h.Kind, snap, err)
		}
		if _, ok := f.tg.Stored(t); ok {
			t.Fatalf("%s: reading created the list", h.Kind)
		}
	})
}

// create: a write that asks to create an absent list creates it; a second
// one, once it exists, is lost and changes nothing.
func create(t *testing.T, h Harness) {
	if !h.Create {
		t.Skipf("%s: the operator does not create lists of this kind", h.Kind)
	}
	ids := h.IDs(0, 3)
	levels(t, func(t *testing.T) {
		f := start(t, h)
		b := f.backend(t, nil)
		doc := f.newDocument(t, ids[:2])
		w, err := b.Write(ctx(t), doc, true, etagclient.Version{})
		if err != nil || w.Outcome != etagclient.WriteCommitted {
			t.Fatalf("%s: create = %+v, %v; want committed", h.Kind, w, err)
		}
		f.wantItems(t, "after the create", ids[:2])
		raw := f.stored(t)
		w, err = b.Write(ctx(t), f.newDocument(t, ids[2:]), true, etagclient.Version{})
		if err != nil || w.Outcome != etagclient.WriteLost {
			t.Errorf("%s: a second create = %+v, %v; want lost", h.Kind, w, err)
		}
		f.wantUnchanged(t, "after a second create", raw)
		ans := read(t, h.Kind, b)
		if !sameItems(ans.Doc.Items(), ids[:2], h.Ordered) {
			t.Errorf("%s: Read after the create = %q, want %q", h.Kind, ans.Doc.Items(), ids[:2])
		}
	}, func(t *testing.T) {
		f := start(t, h)
		c := f.client(t, nil, etagclient.WithCreateIfMissing(true))
		res, err := update(t, c, etagclient.Change{Add: ids[:2]})
		if err != nil || !res.Written {
			t.Fatalf("%s: create through the Client = %+v, %v; want written", h.Kind, res, err)
		}
		f.wantItems(t, "after the create", ids[:2])
	})
}

// newDocument is a document of the list's shape, for the items pointer,
// holding items.
func (f *fixture) newDocument(t *testing.T, items []string) *etagclient.Document {
	t.Helper()
	p, err := etagclient.ParsePointer(f.tg.ItemsPointer)
	if err != nil {
		t.Fatal(err)
	}
	d, err := etagclient.NewDocument(p)
	if err != nil {
		t.Fatal(err)
	}
	if d, err = d.WithItems(items); err != nil {
		t.Fatal(err)
	}
	return d
}
