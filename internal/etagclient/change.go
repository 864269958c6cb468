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

package etagclient

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// Change is an idempotent set operation on the items of a list. Applying a
// change twice equals applying it once, which is what makes re-applying it to a
// fresh read after a conflict or an ambiguous failure safe.
type Change struct {
	// Add lists IDs that must be on the list. Missing ones are appended at the
	// end, in this order.
	Add []string
	// Remove lists IDs that must not be on the list. Every occurrence is
	// removed; the other items keep their order.
	Remove []string
	// RetainOnly, when not nil, removes every ID that it does not contain
	// (before Add is applied). It makes the list equal to a set, as the
	// Exclusive mode's resync does. Nil means "leave other IDs alone"; an
	// empty non-nil slice removes every ID.
	RetainOnly []string
}

// MaxIDLength is the most characters (runes) an ID may have, matching
// ListEntry's spec.id.
const MaxIDLength = 253

// errEmptyChange and friends are programming errors of the caller, not of the
// server, so they wrap no error class.
var errInvalidChange = errors.New("invalid change")

// Validate reports whether every ID is valid UTF-8 (a JSON string cannot
// carry anything else: it would be written as U+FFFD) of 1 to MaxIDLength
// characters, and no ID is both added and removed by the same change.
func (c Change) Validate() error {
	added := make(map[string]struct{}, len(c.Add))
	for _, list := range [][]string{c.Add, c.Remove, c.RetainOnly} {
		for _, id := range list {
			if !utf8.ValidString(id) {
				return fmt.Errorf("%w: ID %q is not valid UTF-8", errInvalidChange, id)
			}
			if n := utf8.RuneCountInString(id); n == 0 || n > MaxIDLength {
				return fmt.Errorf("%w: ID length %d is outside 1..%d characters", errInvalidChange, n, MaxIDLength)
			}
		}
	}
	for _, id := range c.Add {
		added[id] = struct{}{}
	}
	for _, id := range c.Remove {
		if _, ok := added[id]; ok {
			return fmt.Errorf("%w: ID %q is both added and removed", errInvalidChange, id)
		}
	}
	return nil
}

// IsZero reports whether the change does nothing.
func (c Change) IsZero() bool {
	return len(c.Add) == 0 && len(c.Remove) == 0 && c.RetainOnly == nil
}

// Apply returns items with the changes applied in order, as if each had been
// applied alone, one after the other. It reports whether the result differs
// from items. items is never modified; when nothing changes, items itself is
// returned. Apply is pure: it is the whole of the client's decision logic.
func Apply(items []string, changes ...Change) ([]string, bool) {
	plan := planEdit(items, changes)
	if !plan.changed {
		return items, false
	}
	out := make([]string, 0, len(items)+len(plan.add))
	for i, it := range items {
		if plan.drop == nil || !plan.drop[i] {
			out = append(out, it)
		}
	}
	return append(out, plan.add...), true
}

// Holds reports whether applying the changes to items would change nothing.
func Holds(items []string, changes ...Change) bool {
	return !planEdit(items, changes).changed
}

// editPlan is what a sequence of changes does to a list: which of its items
// go (by index; nil when none does) and which IDs are appended.
type editPlan struct {
	drop    []bool
	add     []string
	changed bool
}

// planEdit folds the changes, in order, over items in one pass over the
// items. The fold of a sequence of set operations over one ID, starting from
// whether the ID is present, is: RetainOnly S -> present && id in S, then
// Add -> present, Remove -> absent. IDs named by an Add or a Remove are
// folded one by one; every other ID is affected only by the RetainOnly sets.
// Each step is a map look-up, so a batch costs O(len(items) + IDs named x
// len(changes)).
func planEdit(items []string, changes []Change) editPlan {
	sets := make([]changeSets, len(changes))
	named := make(map[string]bool)   // id -> present after the fold
	var order []string               // IDs named by Add, in first-seen order
	ordered := map[string]struct{}{} // the IDs in order
	var retains []map[string]struct{}
	for i, c := range changes {
		sets[i] = changeSets{add: toSet(c.Add), remove: toSet(c.Remove)}
		if c.RetainOnly != nil {
			sets[i].retain = toSet(c.RetainOnly)
			retains = append(retains, sets[i].retain)
		}
		for _, id := range c.Add {
			// An ID removed by an earlier change and added by a later
			// one must still be appended: order is kept apart from
			// named.
			if _, seen := ordered[id]; !seen {
				ordered[id] = struct{}{}
				order = append(order, id)
			}
			named[id] = false
		}
		for _, id := range c.Remove {
			named[id] = false
		}
	}
	present := make(map[string]bool, len(named))
	if len(retains) == 0 {
		// Without RetainOnly every named ID ends as its last Add or
		// Remove left it, whatever it was before: fold first, then one
		// pass over the items does everything.
		for id := range named {
			named[id] = foldOne(id, false, sets)
		}
	} else {
		for _, it := range items {
			if _, ok := named[it]; ok {
				present[it] = true
			}
		}
		for id := range named {
			named[id] = foldOne(id, present[id], sets)
		}
	}

	var plan editPlan
	if len(named) == 0 && len(retains) == 0 {
		return plan
	}
	for i, it := range items {
		keep, isNamed := named[it]
		switch {
		case isNamed:
			present[it] = true
		case len(retains) > 0:
			keep = inAll(it, retains)
		default:
			keep = true
		}
		if !keep {
			if plan.drop == nil {
				plan.drop = make([]bool, len(items))
			}
			plan.drop[i] = true
			plan.changed = true
		}
	}
	for _, id := range order {
		if named[id] && !present[id] {
			plan.add = append(plan.add, id)
			plan.changed = true
		}
	}
	return plan
}

type changeSets struct {
	add, remove, retain map[string]struct{} // retain is nil when not set
}

func foldOne(id string, present bool, sets []changeSets) bool {
	for _, s := range sets {
		if s.retain != nil && present {
			_, present = s.retain[id]
		}
		if _, ok := s.add[id]; ok {
			present = true
		}
		if _, ok := s.remove[id]; ok {
			present = false
		}
	}
	return present
}

func toSet(ids []string) map[string]struct{} {
	s := make(map[string]struct{}, len(ids))
	for _, id := range ids {
		s[id] = struct{}{}
	}
	return s
}

func inAll(id string, sets []map[string]struct{}) bool {
	for _, s := range sets {
		if _, ok := s[id]; !ok {
			return false
		}
	}
	return true
}
