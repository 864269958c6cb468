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

// Which changes are done after a read.
//
// A change that holds on a fresh read is complete at that read, and it must
// not be applied again: if an add of ours landed without an answer and
// another writer has removed the ID since, re-applying the add would undo
// that removal. But a change may be settled on its own only when no other
// change in the batch names any of its IDs: with "add X" then "remove X"
// pending, "remove X" holding now says nothing about where X ends, and
// settling it first would let the add land after it. Such changes ride in
// the next write together, in submission order.

// settleOnRead finishes every change of the batch that settles on the
// document just read (see Settled), and returns the ops still to do. When
// only reads are left, they are finished too and nil is returned.
func (c *Client) settleOnRead(batch []*op) []*op {
	held := Settled(c.cache.items(), changes(batch))
	snap := c.cache.snapshot()
	rest := batch[:0:0]
	i := 0
	for _, o := range batch {
		if o.read {
			rest = append(rest, o)
			continue
		}
		if held[i] {
			c.finish(o, outcome{snap: snap})
		} else {
			rest = append(rest, o)
		}
		i++
	}
	if countChanges(rest) == 0 {
		c.cfg.observer.Write(WriteUnchanged)
		for _, o := range rest {
			c.finish(o, outcome{snap: snap})
		}
		return nil
	}
	return rest
}

// Settled reports, for each change, whether it is done on items: it holds
// there, and no other change names any of its IDs. A RetainOnly change
// names every ID, so in a batch with one, only a batch that holds as a
// whole settles. Settled costs one pass over items, whatever the number of
// changes.
func Settled(items []string, changes []Change) []bool {
	out := make([]bool, len(changes))
	if len(changes) == 0 {
		return out
	}
	for _, c := range changes {
		if c.RetainOnly != nil {
			if Holds(items, changes...) {
				for i := range out {
					out[i] = true
				}
			}
			return out
		}
	}
	// How many changes name each ID; a change that names an ID twice
	// counts once.
	namedBy := make(map[string]int)
	for i, c := range changes {
		for _, id := range c.Add {
			markNamed(namedBy, id, i)
		}
		for _, id := range c.Remove {
			markNamed(namedBy, id, i)
		}
	}
	// Presence of the IDs that only one change names, in one pass.
	present := make(map[string]bool, len(namedBy))
	for id, n := range namedBy {
		if n >= 0 {
			present[id] = false
		}
	}
	for _, it := range items {
		if _, ok := present[it]; ok {
			present[it] = true
		}
	}
	for i, c := range changes {
		out[i] = settlesAlone(c, namedBy, present)
	}
	return out
}

// markNamed records that change i names id: namedBy[id] holds the one
// change that names it, or -1 when two or more do.
func markNamed(namedBy map[string]int, id string, i int) {
	if j, ok := namedBy[id]; !ok {
		namedBy[id] = i
	} else if j != i {
		namedBy[id] = -1
	}
}

// settlesAlone reports whether c names only IDs that no other change names,
// adds only present ones and removes only absent ones.
func settlesAlone(c Change, namedBy map[string]int, present map[string]bool) bool {
	for _, id := range c.Add {
		if namedBy[id] < 0 || !present[id] {
			return false
		}
	}
	for _, id := range c.Remove {
		if namedBy[id] < 0 || present[id] {
			return false
		}
	}
	return true
}
