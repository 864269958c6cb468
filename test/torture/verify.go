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

package torture

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// checkItems reports why items cannot be a state of list l: bystanders
// missing, moved or reordered, duplicates, IDs nobody ever added to l.
func (a *analysis) checkItems(l int, items []string) []string {
	var problems []string
	by := a.lists[l].bystanders
	if len(items) < len(by) || !slices.Equal(items[:len(by)], by) {
		problems = append(problems, "the bystanders are not the first items in their order")
	}
	seen := make(map[string]bool, len(items))
	for _, id := range items {
		if seen[id] {
			problems = append(problems, fmt.Sprintf("duplicate ID %q", id))
		}
		seen[id] = true
		if _, touched := a.ops[l].byID[id]; !touched && !slices.Contains(by, id) {
			problems = append(problems, fmt.Sprintf("ID %q that nobody added to this list", id))
		}
	}
	return problems
}

// checkReads checks the shape of everything every read returned.
func (a *analysis) checkReads() {
	for _, rec := range a.records {
		if rec.Kind != OpRead {
			continue
		}
		if rec.Outcome != OutcomeOK {
			if rec.Final {
				a.violation("final read of %s by replica %d failed with the faults off: %s", a.lists[rec.List].path, rec.Replica, rec.Err)
			}
			continue
		}
		for _, p := range a.checkItems(rec.List, rec.Items) {
			a.violation("read of %s by replica %d at [%d, %d]: %s", a.lists[rec.List].path, rec.Replica, rec.Call, rec.Return, p)
		}
	}
}

// opsOf returns the changes of id on list l that did not provably fail.
func (a *analysis) opsOf(l int, id string) []Record {
	var out []Record
	for _, i := range a.ops[l].byID[id] {
		if a.records[i].Outcome != OutcomeFailed {
			out = append(out, a.records[i])
		}
	}
	return out
}

// inFlight reports whether a change of kind to id on list l could have
// taken effect at time t: called before t and, unless ambiguous, returned
// after it.
func (a *analysis) inFlight(l int, id string, kind OpKind, t int64) bool {
	for _, rec := range a.opsOf(l, id) {
		if rec.Kind == kind && rec.Call <= t && t <= a.ret(rec) {
			return true
		}
	}
	return false
}

// checkVersions checks the server's committed versions of every list,
// independently of what the clients saw.
func (a *analysis) checkVersions() {
	ptr, err := etagclient.ParsePointer(itemsPointer)
	if err != nil {
		a.violation("parse pointer: %v", err)
		return
	}
	for l, lst := range a.lists {
		seed, err := etagclient.ParseDocument(lst.seed, ptr)
		if err != nil {
			a.violation("the seed document of %s does not parse: %v", lst.path, err)
			continue
		}
		vs := a.versions[l]
		if len(vs) == 0 || !bytes.Equal(vs[0].Body, lst.seed) {
			a.violation("%s: the first version is not the seed document", lst.path)
			continue
		}
		prev := map[string]bool{}
		for _, id := range vs[0].items {
			prev[id] = true
		}
		for n, v := range vs[1:] {
			n++
			where := fmt.Sprintf("%s version %d (%s, t=%d)", lst.path, n, v.ETag, v.at)
			if v.Deleted || v.items == nil {
				a.violation("%s: deleted or not a list document", where)
				prev = map[string]bool{}
				continue
			}
			for _, p := range sameOutside(seed, v.Body, ptr) {
				a.violation("%s: %s", where, p)
			}
			for _, p := range a.checkItems(l, v.items) {
				a.violation("%s: %s", where, p)
			}
			cur := make(map[string]bool, len(v.items))
			for _, id := range v.items {
				cur[id] = true
			}
			added, removed := map[string]bool{}, map[string]bool{}
			for id := range cur {
				if !prev[id] {
					added[id] = true
				}
			}
			for id := range prev {
				if !cur[id] {
					removed[id] = true
				}
			}
			if len(added)+len(removed) == 0 {
				a.violation("%s: a commit that changed no ID", where)
			}
			for _, id := range sortedKeys(added) {
				if !a.inFlight(l, id, OpAdd, v.at) {
					a.violation("%s: %s appeared, but no add of it was in flight (resurrected or invented)", where, id)
				}
			}
			for _, id := range sortedKeys(removed) {
				if !a.inFlight(l, id, OpRemove, v.at) {
					a.violation("%s: %s disappeared, but no removal of it was in flight (lost)", where, id)
				}
			}
			prev = cur
		}
		a.checkAcknowledged(l)
		a.resolveAmbiguous(l)
	}
}

// sameOutside reports how a committed version differs from the seed where
// no write may change anything: the bytes before and after the items array,
// and the exact bytes of every bystander (its escapes included).
func sameOutside(seed *etagclient.Document, body []byte, ptr etagclient.Pointer) []string {
	doc, err := etagclient.ParseDocument(body, ptr)
	if err != nil {
		return []string{fmt.Sprintf("does not parse: %v", err)}
	}
	var problems []string
	sb, sa := seed.Outside()
	vb, va := doc.Outside()
	if !bytes.Equal(sb, vb) || !bytes.Equal(sa, va) {
		problems = append(problems, fmt.Sprintf("the bytes outside the items array differ from the seed document (before: %d vs %d bytes, after: %d vs %d)", len(sb), len(vb), len(sa), len(va)))
	}
	raw := make(map[string][]byte, len(doc.Items()))
	for i, id := range doc.Items() {
		raw[id] = doc.ItemBytes(i)
	}
	for i, id := range seed.Items() {
		if got, ok := raw[id]; ok && !bytes.Equal(got, seed.ItemBytes(i)) {
			problems = append(problems, fmt.Sprintf("bystander %q was re-encoded: %s, seeded as %s", id, got, seed.ItemBytes(i)))
		}
	}
	return problems
}

// versionAt returns the version of list l current at time t.
func (a *analysis) versionAt(l int, t int64) version {
	vs := a.versions[l]
	i, _ := slices.BinarySearchFunc(vs, t, func(v version, t int64) int {
		switch {
		case v.at <= t:
			return -1
		default:
			return 1
		}
	})
	return vs[max(i-1, 0)]
}

// checkAcknowledged checks that every change acknowledged ok is visible in
// the version current when it returned, unless another change of the same
// ID overlapped it.
func (a *analysis) checkAcknowledged(l int) {
	for _, id := range a.ops[l].order {
		ops := a.opsOf(l, id)
		for i, op := range ops {
			if op.Outcome != OutcomeOK {
				continue
			}
			alone := true
			for j, other := range ops {
				if j != i && other.Call <= op.Return && a.ret(other) >= op.Call {
					alone = false
				}
			}
			if !alone {
				continue
			}
			v := a.versionAt(l, op.Return)
			if slices.Contains(v.items, id) != (op.Kind == OpAdd) {
				a.violation("%s: %s(%s) by replica %d returned ok at t=%d, but the version current then (%s, t=%d) does not reflect it",
					a.lists[l].path, op.Kind, id, op.Replica, op.Return, v.ETag, v.at)
			}
		}
	}
}

// resolveAmbiguous counts whether the history shows each ambiguous change
// applied: an ambiguous add applied if the ID was ever on the list, an
// ambiguous removal if the ID left the list after its call.
func (a *analysis) resolveAmbiguous(l int) {
	for _, id := range a.ops[l].order {
		for _, op := range a.opsOf(l, id) {
			if op.Outcome != OutcomeAmbiguous {
				continue
			}
			applied := false
			vs := a.versions[l]
			for n := 1; n < len(vs) && !applied; n++ {
				if vs[n].at < op.Call {
					continue
				}
				before, after := slices.Contains(vs[n-1].items, id), slices.Contains(vs[n].items, id)
				applied = (op.Kind == OpAdd && !before && after) || (op.Kind == OpRemove && before && !after)
			}
			if applied {
				a.report.Totals.AmbiguousApplied++
			} else {
				a.report.Totals.AmbiguousNotApplied++
			}
		}
	}
}

// checkFinal checks the final reads and the server's final documents for
// lost and resurrected IDs: an ID added ok and never removed must be
// there, an ID added ok and then removed ok must not; in general, see
// finalPresence.
func (a *analysis) checkFinal() {
	for l, lst := range a.lists {
		type state struct {
			what  string
			items []string
		}
		states := []state{{"the server's final document", a.finals[l]}}
		for _, rec := range a.records {
			if rec.Final && rec.List == l && rec.Outcome == OutcomeOK {
				states = append(states, state{fmt.Sprintf("the final read by replica %d", rec.Replica), rec.Items})
			}
		}
		for _, s := range states {
			if s.items == nil {
				a.violation("%s: %s is missing or does not parse", lst.path, s.what)
				continue
			}
			for _, p := range a.checkItems(l, s.items) {
				a.violation("%s: %s: %s", lst.path, s.what, p)
			}
			present := make(map[string]bool, len(s.items))
			for _, id := range s.items {
				present[id] = true
			}
			var lost, resurrected []string
			for _, id := range a.ops[l].order {
				mayBePresent, mayBeAbsent := a.finalPresence(a.opsOf(l, id))
				switch {
				case !mayBeAbsent && !present[id]:
					lost = append(lost, id)
				case !mayBePresent && present[id]:
					resurrected = append(resurrected, id)
				}
			}
			if len(lost) > 0 {
				a.violation("%s: %s lacks %d ID(s) added ok and not removed since (lost updates): %s", lst.path, s.what, len(lost), shortList(lost))
			}
			if len(resurrected) > 0 {
				a.violation("%s: %s holds %d ID(s) removed ok and not added since (resurrected): %s", lst.path, s.what, len(resurrected), shortList(resurrected))
			}
		}
	}
}

// finalPresence returns whether the changes of an ID (none failed) allow it
// to be present at the end, and absent. The ID may end as any change left
// it that may have been the last to take effect: one such that no change
// acknowledged ok was called after it returned (an ambiguous change may
// land at any time after its call). It may also end absent, as it started,
// when no change was acknowledged ok. For an ID added once and removed
// after the addition returned, that is: added ok and not removed, present;
// removed ok, absent; anything ambiguous, either.
func (a *analysis) finalPresence(ops []Record) (mayBePresent, mayBeAbsent bool) {
	mayBeAbsent = !slices.ContainsFunc(ops, func(op Record) bool { return op.Outcome == OutcomeOK })
	for _, op := range ops {
		superseded := slices.ContainsFunc(ops, func(later Record) bool {
			return later.Outcome == OutcomeOK && later.Call > a.ret(op)
		})
		switch {
		case superseded:
		case op.Kind == OpAdd:
			mayBePresent = true
		default:
			mayBeAbsent = true
		}
	}
	return mayBePresent, mayBeAbsent
}
