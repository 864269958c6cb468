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
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/anishathalye/porcupine"
)

// clientIDs hands out porcupine client IDs (rows of the visualisation):
// one per worker, one per replica for the quiescent reads, and one per
// change made with Submit, which overlaps the other change of its pair.
type clientIDs struct {
	workers, replicas, next int
}

func (c *clientIDs) of(rec Record) int {
	switch {
	case rec.Kind != OpRead && rec.Submitted:
		c.next++
		return c.workers + c.replicas + c.next - 1
	case rec.Worker < 0:
		return c.workers + rec.Replica
	default:
		return rec.Worker
	}
}

// listUniverses numbers, per list, the bystanders first and then every ID
// any change touched.
func (a *analysis) listUniverses() []*universe {
	us := make([]*universe, len(a.lists))
	for l, lst := range a.lists {
		us[l] = newUniverse(lst.path)
		for _, id := range lst.bystanders {
			us[l].bit(id)
		}
		for _, id := range a.ops[l].order {
			us[l].bit(id)
		}
	}
	return us
}

// readSet converts what a read returned to a bitset over u, or says why it
// can be no set at all.
func readSet(u *universe, nbits int, items []string) (string, string) {
	set := []byte(bitset(nbits))
	for _, id := range items {
		bit, ok := u.index[id]
		if !ok {
			return "", fmt.Sprintf("unknown ID %q", id)
		}
		if set[bit/8]&(1<<(bit%8)) != 0 {
			return "", fmt.Sprintf("duplicate ID %q", id)
		}
		set[bit/8] |= 1 << (bit % 8)
	}
	return string(set), ""
}

// setUniverses numbers the IDs of the set check's partitions: per list,
// the bystanders and the IDs of the rest of the workload, and, when the
// list has hot IDs, the bystanders and the hot IDs. ofList gives each
// list's partitions.
func (a *analysis) setUniverses() (us []*universe, ofList [][]int) {
	for l, lst := range a.lists {
		rest, hot := newUniverse("list "+lst.path), newUniverse("list "+lst.path+", hot IDs")
		for _, id := range lst.bystanders {
			rest.bit(id)
			hot.bit(id)
		}
		for _, id := range a.ops[l].order {
			if a.ops[l].hot[id] {
				hot.bit(id)
			} else {
				rest.bit(id)
			}
		}
		parts := []int{len(us)}
		us = append(us, rest)
		if len(hot.ids) > len(lst.bystanders) {
			parts = append(parts, len(us))
			us = append(us, hot)
		}
		ofList = append(ofList, parts)
	}
	return us, ofList
}

// project returns the items that belong to universe us[part] or to none of
// the universes parts of the same list: an ID that no universe knows makes
// the read invalid in each.
func project(us []*universe, parts []int, part int, items []string) []string {
	if len(parts) == 1 {
		return items
	}
	out := make([]string, 0, len(items))
	for _, id := range items {
		keep := true
		for _, p := range parts {
			if _, ok := us[p].index[id]; ok {
				keep = p == part
				if keep {
					break
				}
			}
		}
		if keep {
			out = append(out, id)
		}
	}
	return out
}

// checkSetModel checks every change and every quiescent read against the
// set model, partitioned by list, and each list's hot IDs apart from its
// other IDs, the reads projected on each.
//
// That split checks exactly what one partition per list would. Every
// change returns before a quiescent read is called or is called after it
// returned (an ambiguous one too: its effect, not its return, may come
// later), and the quiescent reads of one list never overlap each other
// (checkQuiescence makes sure). So the reads of a list are totally ordered
// and every change lies between two of them; a set is the product of its
// elements' membership, each change touches one element, and a history of
// such changes is linearizable if and only if each of its projections on
// a set of elements is (linearizability is local). Checked as one, the
// list would make porcupine try every interleaving of the other IDs'
// changes each time it has to revise the order of a hot ID's concurrent
// changes, and time out.
func (a *analysis) checkSetModel() {
	us, ofList := a.setUniverses()
	nbits := 0
	for _, u := range us {
		nbits = max(nbits, len(u.ids))
	}
	init := []byte(bitset(nbits))
	for bit := 0; bit < a.cfg.Bystanders; bit++ {
		init[bit/8] |= 1 << (bit % 8)
	}
	ids := clientIDs{workers: a.cfg.workers(), replicas: a.cfg.Replicas}
	var history []porcupine.Operation
	for i, rec := range a.records {
		parts := ofList[rec.List]
		switch {
		case rec.Outcome == OutcomeFailed:
			continue // a failed change provably did nothing; a failed read saw nothing
		case rec.Kind == OpRead:
			if !rec.Quiescent {
				continue // checked per ID by checkPerID
			}
			client := ids.of(rec)
			for _, p := range parts {
				var out opOutput
				out.items, out.invalid = readSet(us[p], nbits, project(us, parts, p, rec.Items))
				history = append(history, porcupine.Operation{ClientId: client, Input: opInput{kind: OpRead, part: p, rec: i}, Call: rec.Call, Output: out, Return: rec.Return})
			}
		default:
			p := parts[0]
			if a.ops[rec.List].hot[rec.ID] {
				p = parts[1]
			}
			in := opInput{kind: rec.Kind, part: p, bit: us[p].index[rec.ID], ambiguous: rec.Outcome == OutcomeAmbiguous, rec: i}
			history = append(history, porcupine.Operation{ClientId: ids.of(rec), Input: in, Call: rec.Call, Output: opOutput{}, Return: rec.Return})
		}
	}
	model := setModel(us, string(init), a.records, a.cfg.Bystanders)
	a.porcupine("set", model, history, func(part int) string { return us[part].name })
}

// checkQuiescence makes sure of what splitting the set check needs: on
// each list, the quiescent reads overlap neither each other nor any
// change.
func (a *analysis) checkQuiescence() {
	for l, lst := range a.lists {
		var reads []Record
		for _, rec := range a.records {
			if rec.List == l && rec.Kind == OpRead && rec.Quiescent {
				reads = append(reads, rec)
			}
		}
		slices.SortFunc(reads, func(x, y Record) int { return cmp.Compare(x.Call, y.Call) })
		for i, rd := range reads {
			if i > 0 && reads[i-1].Return >= rd.Call {
				a.violation("%s: the quiescent reads by replicas %d and %d overlap: the set check cannot split the list", lst.path, reads[i-1].Replica, rd.Replica)
			}
			for _, rec := range a.records {
				if rec.List == l && rec.Kind != OpRead && rec.Call <= rd.Return && rec.Return >= rd.Call {
					a.violation("%s: the quiescent read by replica %d overlaps %s(%s): the set check cannot split the list", lst.path, rd.Replica, rec.Kind, rec.ID)
				}
			}
		}
	}
}

// checkPerID checks every read, including those made while changes were in
// flight, projected on each ID: a set's membership of one element is
// independent of the others (linearizability is local, and a set is the
// product of its elements' membership registers), so each ID is its own
// partition and the check stays small however many operations overlap.
//
// Reads that end before any change of the ID was called must not contain it,
// and reads that start after every change of the ID returned (none
// ambiguous) must agree with each other; so only the first of those enters
// the partition, with any read that breaks these rules.
func (a *analysis) checkPerID() {
	us := a.listUniverses()
	var parts []*universe
	var history []porcupine.Operation
	ids := clientIDs{workers: a.cfg.workers(), replicas: a.cfg.Replicas}
	// reads per list, by call time, with their bitsets
	type readOf struct {
		idx int
		set string
	}
	reads := make([][]readOf, len(a.lists))
	for i, rec := range a.records {
		if rec.Kind != OpRead || rec.Outcome != OutcomeOK {
			continue
		}
		set, invalid := readSet(us[rec.List], len(us[rec.List].ids), rec.Items)
		if invalid != "" {
			continue // reported by checkReads
		}
		reads[rec.List] = append(reads[rec.List], readOf{i, set})
	}
	for l := range a.lists {
		slices.SortFunc(reads[l], func(x, y readOf) int { return cmp.Compare(a.records[x.idx].Call, a.records[y.idx].Call) })
		for _, id := range a.ops[l].order {
			bit := us[l].index[id]
			p := len(parts)
			parts = append(parts, &universe{name: a.lists[l].path + " " + id, ids: []string{id}, index: map[string]int{id: 0}})
			first, last := int64(1<<62), int64(0)
			for _, i := range a.ops[l].byID[id] {
				rec := a.records[i]
				if rec.Outcome == OutcomeFailed {
					continue
				}
				first, last = min(first, rec.Call), max(last, a.ret(rec))
				in := opInput{kind: rec.Kind, part: p, bit: 0, rec: i, ambiguous: rec.Outcome == OutcomeAmbiguous}
				history = append(history, porcupine.Operation{ClientId: ids.of(rec), Input: in, Call: rec.Call, Output: opOutput{}, Return: rec.Return})
			}
			// Reads outside [first, last] are decided without the others:
			// before, the ID must be absent; after, all agree. Only the
			// first read after, and the reads that break the rule (a few),
			// enter the partition, where porcupine gives the verdict.
			const maxOutliers = 3
			after, outliers := -1, 0
			for k, rd := range reads[l] {
				rec := a.records[rd.idx]
				present := hasBit(rd.set, bit)
				switch {
				case rec.Return < first && !present:
					continue
				case rec.Return < first:
					if outliers++; outliers > maxOutliers {
						continue
					}
				case rec.Call > last && after < 0:
					after = k
				case rec.Call > last && present == hasBit(reads[l][after].set, bit):
					continue
				case rec.Call > last:
					if outliers++; outliers > maxOutliers {
						continue
					}
				}
				out := opOutput{items: "\x00"}
				if present {
					out.items = "\x01"
				}
				history = append(history, porcupine.Operation{ClientId: ids.of(rec), Input: opInput{kind: OpRead, part: p, rec: rd.idx}, Call: rec.Call, Output: out, Return: rec.Return})
			}
		}
	}
	if len(history) == 0 {
		return
	}
	model := setModel(parts, "\x00", a.records, 0)
	a.porcupine("per-id", model, history, func(part int) string { return parts[part].name })
}

// porcupine runs one check. Each partition is checked on its own, all at
// once as porcupine itself would, each within CheckTimeout: a violation
// then names its partitions, with a visualisation of each (at most a few),
// without a second check that a partition slow to refute would make cost
// one more timeout. A partition that times out, when none is illegal,
// makes the check Unknown.
func (a *analysis) porcupine(name string, model porcupine.Model, history []porcupine.Operation, partName func(int) string) {
	a.report.Totals.Checks++
	byPart := map[int][]porcupine.Operation{}
	var order []int
	for _, op := range history {
		p := op.Input.(opInput).part
		if _, ok := byPart[p]; !ok {
			order = append(order, p)
		}
		byPart[p] = append(byPart[p], op)
	}
	results := make([]porcupine.CheckResult, len(order))
	infos := make([]porcupine.LinearizationInfo, len(order))
	var wg sync.WaitGroup
	for i, p := range order {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], infos[i] = porcupine.CheckOperationsVerbose(model, byPart[p], a.cfg.CheckTimeout)
		}()
	}
	wg.Wait()
	const maxVisualized = 5
	var failing []string
	unknown := 0
	for i, p := range order {
		switch results[i] {
		case porcupine.Unknown:
			unknown++
			continue
		case porcupine.Ok:
			continue
		}
		desc := partName(p)
		if len(failing) < maxVisualized {
			path, err := a.artifactPath(fmt.Sprintf("%s-%s.html", name, sanitize(desc)))
			if err == nil {
				err = porcupine.VisualizePath(model, infos[i], path)
			}
			if err != nil {
				desc += " (visualisation failed: " + err.Error() + ")"
			} else {
				desc += " (visualisation: " + path + ")"
			}
		}
		failing = append(failing, desc)
	}
	switch {
	case len(failing) > 0:
		a.violation("porcupine %s check: history is not linearizable in %d partition(s): %s", name, len(failing), strings.Join(failing, "; "))
	case unknown > 0:
		a.unknown("porcupine %s check of %d operations timed out after %s in %d of %d partition(s): linearizability not verified", name, len(history), a.cfg.CheckTimeout, unknown, len(order))
	}
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-':
			return r
		}
		return '_'
	}, s)
}
