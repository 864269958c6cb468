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
	"math"
	"slices"
	"strings"
	"time"
)

// The submission-order check.
//
// Porcupine cannot see a client that applies two changes of one ID in the
// wrong order while both were in flight: concurrent operations may
// linearize in any order. The client promises more than linearizability:
// changes to one Client that name the same ID take effect in the order in
// which they were submitted. For the owned hot IDs, whose changes all come
// from one replica and carry their submission sequence (Record.Seq),
// checkOrder holds the client to that promise against the server's
// committed versions. With o1..on an ID's changes in submission order:
//
//   - final: with ok the last change acknowledged ok, the ID's final
//     presence is ok's effect or that of an ambiguous change after ok; with
//     none ok, it is the initial presence or the effect of an ambiguous
//     change. An earlier change never takes effect after a later one.
//   - acknowledged: when a change returns ok, the version current then
//     shows its effect, or that of a later change of the ID already
//     submitted.
//   - history: every change of the ID's presence in the server's versions
//     is explained by o1..on taking effect one after the other in
//     submission order, each between its call and return (an ambiguous one
//     at any time after its call, or never; a failed one never), every
//     acknowledged one taking effect. Changes that take effect at one
//     instant (one write) leave the last one's effect.
//
// The history rule implies the other two; they are checked first because
// what they report is easier to read, and the history rule reports only
// when they pass.

// flip is a change of an ID's presence on the server: from at on (the
// commit time of a version) the ID is present or not. The first flip of a
// timeline is the presence at the start, at math.MinInt64; the last is the
// final presence.
type flip struct {
	at      int64
	present bool
}

// timelineOf returns id's presence over the committed versions of a list,
// oldest first. Versions committed at the same instant count as one, the
// last.
func timelineOf(vs []version, id string) []flip {
	var tl []flip
	for n, v := range vs {
		f := flip{at: v.at, present: slices.Contains(v.items, id)}
		if n == 0 {
			f.at = math.MinInt64
		}
		switch last := len(tl) - 1; {
		case last < 0:
			tl = append(tl, f)
		case tl[last].present == f.present:
		case tl[last].at == f.at:
			if tl = tl[:last]; last > 0 && tl[last-1].present == f.present {
				continue // the two flips cancel out
			}
			tl = append(tl, f)
		default:
			tl = append(tl, f)
		}
	}
	return tl
}

// presenceAt returns the presence in effect at time t.
func presenceAt(tl []flip, t int64) bool {
	p := tl[0].present
	for _, f := range tl[1:] {
		if f.at > t {
			break
		}
		p = f.present
	}
	return p
}

// checkOrder checks the changes of every ID whose submission order was
// recorded.
func (a *analysis) checkOrder() {
	for l, lst := range a.lists {
		for _, id := range a.ops[l].order {
			var ops []Record
			sequenced := false
			for _, i := range a.ops[l].byID[id] {
				ops = append(ops, a.records[i])
				sequenced = sequenced || a.records[i].Seq > 0
			}
			if !sequenced {
				continue
			}
			if err := sameClientSequence(ops); err != "" {
				a.violation("%s %s: cannot check the submission order: %s", lst.path, id, err)
				continue
			}
			a.report.Totals.OrderChecked++
			tl := timelineOf(a.versions[l], id)
			if len(tl) == 0 {
				continue // no versions: reported by checkVersions
			}
			for _, p := range orderProblems(ops, tl) {
				a.violation("submission order of %s on %s (replica %d): %s", id, lst.path, ops[0].Replica, p)
			}
		}
	}
}

// sameClientSequence says why ops cannot be ordered as one client received
// them: they come from several replicas, or some carry no or the same
// sequence number.
func sameClientSequence(ops []Record) string {
	seen := map[int64]bool{}
	for _, op := range ops {
		switch {
		case op.Replica != ops[0].Replica:
			return fmt.Sprintf("changed by replicas %d and %d", ops[0].Replica, op.Replica)
		case op.Seq <= 0:
			return fmt.Sprintf("%s by replica %d carries no sequence number", op.Kind, op.Replica)
		case seen[op.Seq]:
			return fmt.Sprintf("sequence number %d appears twice", op.Seq)
		}
		seen[op.Seq] = true
	}
	return ""
}

// orderProblems checks the changes of one ID, all submitted to one client,
// against the ID's presence on the server over the round, and returns one
// line per broken rule.
func orderProblems(ops []Record, tl []flip) []string {
	ops = slices.SortedFunc(slices.Values(ops), func(x, y Record) int { return cmp.Compare(x.Seq, y.Seq) })
	final := tl[len(tl)-1].present
	var problems []string

	k := -1 // the last change acknowledged ok
	for i, op := range ops {
		if op.Outcome == OutcomeOK {
			k = i
		}
	}
	allowed := map[bool]bool{}
	if k < 0 {
		allowed[tl[0].present] = true
	} else {
		allowed[effect(ops[k])] = true
	}
	for _, op := range ops[k+1:] {
		if op.Outcome == OutcomeAmbiguous {
			allowed[effect(op)] = true
		}
	}
	if !allowed[final] {
		if k < 0 {
			problems = append(problems, fmt.Sprintf("the ID ends %s, but no change of it was acknowledged ok and no ambiguous one would leave it so", presence(final)))
		} else {
			problems = append(problems, fmt.Sprintf("the ID ends %s, but the last change acknowledged ok is #%d (%s) and no ambiguous change after it would leave it so: an earlier change took effect after it (or something else changed the ID)", presence(final), k+1, ops[k].Kind))
		}
	}

	for i, op := range ops {
		if op.Outcome != OutcomeOK {
			continue
		}
		now := presenceAt(tl, op.Return)
		explained := now == effect(op)
		for _, later := range ops[i+1:] {
			explained = explained || (later.Outcome != OutcomeFailed && later.Call <= op.Return && effect(later) == now)
		}
		if !explained {
			problems = append(problems, fmt.Sprintf("#%d (%s) returned ok at %s, when the ID was %s, and no later change of it submitted by then leaves it so", i+1, op.Kind, at(op.Return), presence(now)))
		}
	}

	if len(problems) == 0 && !explainable(ops, tl) {
		problems = append(problems, "the ID's presence over the server's versions cannot come from its changes taking effect in submission order, each between its call and return")
	}
	for i := range problems {
		problems[i] += "; " + describeOrder(ops, tl)
	}
	return problems
}

// explainable reports whether the timeline can come from the changes
// (sorted by Seq) taking effect in order, each at an instant between its
// call and return (an ambiguous one after its call, or never; a failed one
// never), every acknowledged one taking effect. Several changes may take
// effect at one instant, which leaves the last one's effect; every flip of
// the timeline is the instant of some changes, and between flips only
// changes that leave the presence as it is take effect.
//
// It is a dynamic program over (changes handled, flips explained) that
// keeps the earliest instant reached: an earlier instant never allows less.
func explainable(ops []Record, tl []flip) bool {
	type change struct {
		call, ret int64
		present   bool
		ok        bool
	}
	var cs []change
	for _, op := range ops {
		switch op.Outcome {
		case OutcomeOK:
			cs = append(cs, change{op.Call, op.Return, effect(op), true})
		case OutcomeAmbiguous:
			cs = append(cs, change{op.Call, math.MaxInt64, effect(op), false})
		}
	}
	n, q := len(cs), len(tl)-1
	const unreached = math.MaxInt64
	// reached[i][j]: the earliest instant at which cs[:i] can be done with
	// the flips tl[1..j] explained and no later one.
	reached := make([][]int64, n+1)
	for i := range reached {
		reached[i] = slices.Repeat([]int64{unreached}, q+1)
	}
	reached[0][0] = math.MinInt64
	reach := func(i, j int, t int64) { reached[i][j] = min(reached[i][j], t) }
	end := func(j int) int64 { // when flip j stops holding
		if j < q {
			return tl[j+1].at
		}
		return math.MaxInt64
	}
	for i := 0; i < n; i++ {
		for j := 0; j <= q; j++ {
			now := reached[i][j]
			if now == unreached {
				continue
			}
			if !cs[i].ok {
				reach(i+1, j, now) // never takes effect
			}
			// cs[i..e] take effect at one instant t: every acknowledged
			// one, the ambiguous ones before e not at all, and e last.
			lo, hi := now, int64(math.MaxInt64) // bounds on t from the acknowledged ones before e
			for e := i; e < n && lo <= hi; e++ {
				c := cs[e]
				from, to := max(lo, c.call), min(hi, c.ret)
				if t := max(from, tl[j].at); c.present == tl[j].present && t <= to && t < end(j) {
					reach(e+1, j, t) // within flip j: nothing shows
				}
				if j < q && c.present == tl[j+1].present && from <= tl[j+1].at && tl[j+1].at <= to {
					reach(e+1, j+1, tl[j+1].at) // the next flip
				}
				if c.ok {
					lo, hi = from, to
				}
			}
		}
	}
	return reached[n][q] != unreached
}

func effect(op Record) bool { return op.Kind == OpAdd }

func presence(present bool) string {
	if present {
		return "present"
	}
	return "absent"
}

// at prints a time of the round.
func at(t int64) string {
	if t == math.MaxInt64 {
		return "never"
	}
	return time.Duration(t).String()
}

// describeOrder prints the changes in submission order with their outcomes
// and the ID's presence on the server.
func describeOrder(ops []Record, tl []flip) string {
	var b strings.Builder
	b.WriteString("changes in submission order:")
	for i, op := range ops {
		via := "update"
		if op.Submitted {
			via = "submit"
		}
		ret := at(op.Return)
		if op.Outcome == OutcomeAmbiguous {
			ret = "(" + ret + ")"
		}
		fmt.Fprintf(&b, " #%d seq=%d %s by %s w%d %s [%s, %s]", i+1, op.Seq, op.Kind, via, op.Worker, op.Outcome, at(op.Call), ret)
		if i < len(ops)-1 {
			b.WriteString(";")
		}
	}
	b.WriteString("; on the server: " + presence(tl[0].present))
	for _, f := range tl[1:] {
		fmt.Fprintf(&b, ", %s at %s", presence(f.present), at(f.at))
	}
	fmt.Fprintf(&b, "; final: %s", presence(tl[len(tl)-1].present))
	return b.String()
}
