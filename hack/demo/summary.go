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

package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

// summary is what the demo reports at the end.
type summary struct {
	phases   []phaseResult
	replicas []string    // replica names, in the order of phaseResult.replicas
	final    *finalCheck // nil when the phases did not all finish
	store    string      // the --store value; "" shows no store section
	// race says how the store answers a lost race; the zero value means
	// the fake server's 412.
	race lostRace
	// outside is what the writer outside listkeeper did; nil when there
	// was none.
	outside *outsideReport
}

// finalCheck is a last look at the list, a moment after the last phase.
type finalCheck struct {
	after     time.Duration
	items     int
	ownerKept bool // the field beside the items array survived every write
	missing   []string
	leftover  []string
	// outsideLeft are the IDs the outside writer's own writes left on the
	// list; outsideMissing those of them that are gone, outsideUnexpected
	// IDs of its own it removed that are back. Someone else touched them.
	outsideLeft, outsideMissing, outsideUnexpected []string
}

// lost counts the lost updates: IDs that should be on the list and are not,
// and IDs that should be gone and are not, per phase and at the final check
// (an ID counts once even if both saw it).
func (s summary) lost() int {
	n := 0
	for _, p := range s.phases {
		n += p.lost()
	}
	if s.final != nil && len(s.phases) > 0 {
		last := s.phases[len(s.phases)-1]
		n += len(newIn(s.final.missing, last.missing)) + len(newIn(s.final.leftover, last.leftover))
	}
	if s.final != nil {
		n += len(s.final.outsideMissing) + len(s.final.outsideUnexpected)
	}
	return n
}

// newIn returns the IDs of a that are not in b.
func newIn(a, b []string) []string {
	seen := make(map[string]bool, len(b))
	for _, id := range b {
		seen[id] = true
	}
	var out []string
	for _, id := range a {
		if !seen[id] {
			out = append(out, id)
		}
	}
	return out
}

// render writes the summary tables.
func (s summary) render(w io.Writer) {
	s.renderPhases(w)
	if s.outside != nil {
		fmt.Fprintln(w)
		s.renderOutside(w)
	}
	fmt.Fprintln(w)
	s.renderReplicas(w)
	fmt.Fprintln(w)
	s.renderLost(w)
	if s.store != "" {
		fmt.Fprintln(w)
		s.renderStore(w)
	}
}

// renderStore writes the store's requests by method and status code, per
// phase and in total, then its error answers by error code when it has
// such codes; the rows where a lost race is counted are always there.
func (s summary) renderStore(w io.Writer) {
	seen := map[requestRow]bool{}
	for _, r := range s.race.rows {
		seen[r] = true
	}
	codes := map[string]bool{}
	for _, p := range s.phases {
		for m, byCode := range p.store.Requests {
			for c := range byCode {
				seen[requestRow{m, c}] = true
			}
		}
		for code := range p.store.Codes {
			codes[code] = true
		}
	}
	keys := slices.SortedFunc(maps.Keys(seen), func(a, b requestRow) int {
		return cmp.Or(cmp.Compare(a.method, b.method), cmp.Compare(a.code, b.code))
	})
	head := []string{s.store + " requests"}
	for _, p := range s.phases {
		head = append(head, p.name)
	}
	rows := [][]string{append(head, "total")}
	row := func(label string, count func(storeStats) int64) {
		cells := []string{label}
		var total int64
		for _, p := range s.phases {
			n := count(p.store)
			total += n
			cells = append(cells, strconv.FormatInt(n, 10))
		}
		rows = append(rows, append(cells, strconv.FormatInt(total, 10)))
	}
	for _, k := range keys {
		row(fmt.Sprintf("%s %d", k.method, k.code), func(st storeStats) int64 { return st.Requests[k.method][k.code] })
	}
	for _, code := range slices.Sorted(maps.Keys(codes)) {
		row("  "+code, func(st storeStats) int64 { return st.Codes[code] })
	}
	what := "by method and status"
	if len(codes) > 0 {
		what = "by operation and status, then the errors by error code"
	}
	fmt.Fprintf(w, "list store: %s (the operator's requests only, %s)\n", s.store, what)
	writeTable(w, rows)
}

func (s summary) renderPhases(w io.Writer) {
	rows := [][]string{{"phase", "time", "changes", "requests", "req/change", s.race.heading(), "lost"}}
	for _, p := range s.phases {
		t := p.elapsed.Round(10 * time.Millisecond).String()
		lost := strconv.Itoa(p.lost())
		if !p.finished {
			t, lost = t+" (failed)", "-"
		}
		rows = append(rows, []string{p.name, t, strconv.Itoa(p.changes), fmt.Sprint(p.requests),
			fmt.Sprintf("%.2f", ratio(float64(p.requests), float64(p.changes))), fmt.Sprint(p.conflicts), lost})
	}
	writeTable(w, rows)
}

func (s summary) renderReplicas(w io.Writer) {
	// A replica counts the writes it lost whatever the store answered;
	// the column is headed by what the store answers.
	rows := [][]string{{"replica", "requests", "writes", s.race.heading(), "mean batch"}}
	var total harness.ManagerMetrics
	totalKnown := true
	for i, name := range s.replicas {
		m, known := s.replicaTotal(i)
		if !known {
			rows = append(rows, []string{name, "-", "-", "-", "-"})
			totalKnown = false
			continue
		}
		total = total.Add(m)
		rows = append(rows, replicaRow(name, m))
	}
	if totalKnown {
		rows = append(rows, replicaRow("total", total))
	}
	writeTable(w, rows)
}

// replicaTotal sums replica i's figures over the phases; known is false
// when a phase could not read them.
func (s summary) replicaTotal(i int) (m harness.ManagerMetrics, known bool) {
	for _, p := range s.phases {
		if i >= len(p.replicas) || p.replicas[i] == nil {
			return harness.ManagerMetrics{}, false
		}
		m = m.Add(*p.replicas[i])
	}
	return m, true
}

func replicaRow(name string, m harness.ManagerMetrics) []string {
	return []string{name, fmt.Sprintf("%.0f", m.Requests), fmt.Sprintf("%.0f", m.Writes),
		fmt.Sprintf("%.0f", m.LostWrites), fmt.Sprintf("%.1f", m.MeanBatch())}
}

// writeTable writes rows as columns two spaces apart, the first column
// aligned left and the others right.
func writeTable(w io.Writer, rows [][]string) {
	var widths []int
	for _, row := range rows {
		for i, cell := range row {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], len(cell))
		}
	}
	for _, row := range rows {
		var b strings.Builder
		for i, cell := range row {
			pad := strings.Repeat(" ", widths[i]-len(cell))
			if i == 0 {
				b.WriteString(cell + pad)
			} else {
				b.WriteString("  " + pad + cell)
			}
		}
		fmt.Fprintln(w, b.String())
	}
}

func (s summary) renderLost(w io.Writer) {
	for _, p := range s.phases {
		if !p.finished {
			fmt.Fprintf(w, "lost updates: not measured, phase %s did not finish\n", p.name)
			return
		}
	}
	var missing, leftover []string
	for _, p := range s.phases {
		missing = append(missing, p.missing...)
		leftover = append(leftover, p.leftover...)
	}
	if f := s.final; f != nil {
		missing = append(missing, f.outsideMissing...)
		leftover = append(leftover, f.outsideUnexpected...)
	}
	fmt.Fprintf(w, "lost updates: %d (IDs missing from the list: %d%s; IDs left on it: %d%s)\n",
		s.lost(), len(missing), harness.IDList(missing), len(leftover), harness.IDList(leftover))
	if f := s.final; f != nil {
		verdict := "as expected"
		if len(f.outsideLeft) > 0 {
			verdict = fmt.Sprintf("as expected (%d of them the outside writer's)", len(f.outsideLeft))
		}
		if len(f.missing)+len(f.leftover) > 0 || !f.ownerKept {
			verdict = fmt.Sprintf("WRONG: %d missing%s, %d left over%s, field \"owner\" kept: %v",
				len(f.missing), harness.IDList(f.missing), len(f.leftover), harness.IDList(f.leftover), f.ownerKept)
		}
		fmt.Fprintf(w, "final list, %v after the last phase: %d items, %s\n", f.after, f.items, verdict)
	}
}

// ratio is a/b, 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
