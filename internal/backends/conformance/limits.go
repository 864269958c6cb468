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
	"testing"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// limitBytes is the size limit of the limits behaviour: more than a list
// of a few items takes in any kind's answer, less than one of
// manyItems items.
const (
	limitBytes = 4096
	manyItems  = 400
)

// limits: a list over the item limit or the size limit, or a change that
// would take it over the item limit, is refused with ErrInvalidDocument,
// and nothing is written.
func limits(t *testing.T, h Harness) {
	theirs := h.IDs(100, 3)
	mine := h.IDs(300, 1)
	levels(t, func(t *testing.T) {
		f := start(t, h)
		f.seed(t, theirs)
		b := f.backend(t, func(e *etagclient.BackendEnv) { e.MaxItems = len(theirs) - 1 })
		_, err := b.Read(ctx(t), etagclient.Version{})
		wantClass(t, h.Kind+": a read of a list over the item limit", err, etagclient.ErrInvalidDocument)
		if !errors.Is(err, etagclient.ErrTooManyItems) {
			t.Errorf("%s: err = %v, want ErrTooManyItems", h.Kind, err)
		}

		small := f.backend(t, func(e *etagclient.BackendEnv) { e.MaxBodyBytes = limitBytes })
		read(t, h.Kind, small)
		f.seed(t, h.IDs(1000, manyItems))
		_, err = small.Read(ctx(t), etagclient.Version{})
		wantClass(t, h.Kind+": a read of a list over the size limit", err, etagclient.ErrInvalidDocument)
		if !errors.Is(err, etagclient.ErrTooLarge) {
			t.Errorf("%s: err = %v, want ErrTooLarge", h.Kind, err)
		}
	}, func(t *testing.T) {
		t.Run("items", func(t *testing.T) {
			f := start(t, h)
			before := f.seed(t, theirs)
			full := f.client(t, nil, etagclient.WithMaxItems(len(theirs)))
			_, err := update(t, full, etagclient.Change{Add: mine})
			wantClass(t, h.Kind+": a change that would pass the item limit", err, etagclient.ErrInvalidDocument)
			if !errors.Is(err, etagclient.ErrTooManyItems) {
				t.Errorf("%s: err = %v, want ErrTooManyItems", h.Kind, err)
			}
			over := f.client(t, nil, etagclient.WithMaxItems(len(theirs)-1))
			_, err = update(t, over, etagclient.Change{Remove: theirs[:1]})
			wantClass(t, h.Kind+": a change to a list over the item limit", err, etagclient.ErrInvalidDocument)
			f.wantNoWrite(t, "after the refused changes", 0)
			f.wantUnchanged(t, "after the refused changes", before)
		})
		t.Run("size", func(t *testing.T) {
			f := start(t, h)
			f.seed(t, theirs)
			c := f.client(t, nil, etagclient.WithMaxBodyBytes(limitBytes))
			if _, err := update(t, c, etagclient.Change{Add: mine}); err != nil {
				t.Fatalf("%s: a change to a small list under a size limit of %d bytes: %v", h.Kind, limitBytes, err)
			}
			// A client that holds no copy yet, so that it reads first.
			big := f.seed(t, h.IDs(1000, manyItems))
			sent, _ := f.probe.Writes()
			c = f.client(t, nil, etagclient.WithMaxBodyBytes(limitBytes))
			_, err := update(t, c, etagclient.Change{Remove: mine})
			wantClass(t, h.Kind+": a change to a list over the size limit", err, etagclient.ErrInvalidDocument)
			if !errors.Is(err, etagclient.ErrTooLarge) {
				t.Errorf("%s: err = %v, want ErrTooLarge", h.Kind, err)
			}
			f.wantNoWrite(t, "after the refused change", sent)
			f.wantUnchanged(t, "after the refused change", big)
		})
	})
}
