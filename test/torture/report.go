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
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// Totals counts what one or more rounds did and found. Add sums them.
type Totals struct {
	Rounds int64
	// Changes and reads issued, and the outcomes of the changes.
	Adds, Removes, Reads        int64
	OK, Ambiguous, Failed       int64
	ReadErrors                  int64
	CrossReplicaRemoves         int64 // removals by another replica than the one that added the ID
	HotAdds, HotRemoves         int64 // changes of hot IDs, included in Adds and Removes
	Submitted                   int64 // changes made with Submit (the others with Update)
	OrderChecked                int64 // IDs whose changes were checked for submission order
	AmbiguousApplied            int64 // ambiguous changes the server history shows applied
	AmbiguousNotApplied         int64 // ambiguous changes it shows never applied
	ClientAmbiguousWrites       int64 // PUTs without an answer that a client resolved by re-reading
	ClientConflicts             int64 // PUTs a client lost to another writer
	Puts, Gets, Status412       int64 // as the server counted them
	Commits, Versions           int64
	Faults                      map[fakeapi.FaultKind]int64
	Checks, Violations, Unknown int64 // porcupine checks run; problems found; checks that timed out
}

// Add adds o to t.
func (t *Totals) Add(o Totals) {
	t.Rounds += o.Rounds
	t.Adds += o.Adds
	t.Removes += o.Removes
	t.Reads += o.Reads
	t.OK += o.OK
	t.Ambiguous += o.Ambiguous
	t.Failed += o.Failed
	t.ReadErrors += o.ReadErrors
	t.CrossReplicaRemoves += o.CrossReplicaRemoves
	t.HotAdds += o.HotAdds
	t.HotRemoves += o.HotRemoves
	t.Submitted += o.Submitted
	t.OrderChecked += o.OrderChecked
	t.AmbiguousApplied += o.AmbiguousApplied
	t.AmbiguousNotApplied += o.AmbiguousNotApplied
	t.ClientAmbiguousWrites += o.ClientAmbiguousWrites
	t.ClientConflicts += o.ClientConflicts
	t.Puts += o.Puts
	t.Gets += o.Gets
	t.Status412 += o.Status412
	t.Commits += o.Commits
	t.Versions += o.Versions
	if t.Faults == nil {
		t.Faults = map[fakeapi.FaultKind]int64{}
	}
	for k, v := range o.Faults {
		t.Faults[k] += v
	}
	t.Checks += o.Checks
	t.Violations += o.Violations
	t.Unknown += o.Unknown
}

// Summary is one line with the most important totals.
func (t Totals) Summary() string {
	return fmt.Sprintf("rounds=%d ops=%d (ok=%d ambiguous=%d failed=%d reads=%d hot=%d submitted=%d) faults[%s] 412s=%d ambiguous-resolved=%d checks=%d order-checked=%d violations=%d unknown=%d",
		t.Rounds, t.Adds+t.Removes+t.Reads, t.OK, t.Ambiguous, t.Failed, t.Reads, t.HotAdds+t.HotRemoves, t.Submitted, t.faults(), t.Status412,
		t.ClientAmbiguousWrites+t.AmbiguousApplied+t.AmbiguousNotApplied, t.Checks, t.OrderChecked, t.Violations, t.Unknown)
}

func (t Totals) faults() string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(t.Faults)) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, t.Faults[k]))
	}
	return strings.Join(parts, " ")
}

// Write prints every total, one per line.
func (t Totals) Write(w io.Writer) {
	p := func(name string, format string, args ...any) {
		fmt.Fprintf(w, "  %-36s "+format+"\n", append([]any{name}, args...)...)
	}
	p("rounds", "%d", t.Rounds)
	p("operations", "%d", t.Adds+t.Removes+t.Reads)
	p("  adds / removes / reads", "%d / %d / %d", t.Adds, t.Removes, t.Reads)
	p("  changes ok / ambiguous / failed", "%d / %d / %d", t.OK, t.Ambiguous, t.Failed)
	p("  read errors", "%d", t.ReadErrors)
	p("  cross-replica removals", "%d", t.CrossReplicaRemoves)
	p("  hot-ID adds / removes", "%d / %d", t.HotAdds, t.HotRemoves)
	p("  submitted without waiting", "%d", t.Submitted)
	p("faults injected", "%s", t.faults())
	p("ambiguous outcomes resolved", "%d", t.ClientAmbiguousWrites+t.AmbiguousApplied+t.AmbiguousNotApplied)
	p("  by the client re-reading", "%d PUTs without an answer", t.ClientAmbiguousWrites)
	p("  returned to callers, then", "%d applied, %d never applied", t.AmbiguousApplied, t.AmbiguousNotApplied)
	p("412s (server) / conflicts (clients)", "%d / %d", t.Status412, t.ClientConflicts)
	p("PUTs / GETs / commits / versions", "%d / %d / %d / %d", t.Puts, t.Gets, t.Commits, t.Versions)
	p("porcupine checks run", "%d", t.Checks)
	p("IDs checked for submission order", "%d", t.OrderChecked)
	p("violations", "%d", t.Violations)
	p("unknown results", "%d", t.Unknown)
}

// Report is the outcome of one round.
type Report struct {
	Seed    int64
	Elapsed time.Duration // the workload
	Checked time.Duration // the checks
	Totals  Totals
	// Problems describes every violation and every porcupine check that
	// timed out.
	Problems []string
	// Artifacts are the files written for the problems (visualisations,
	// the round's history).
	Artifacts []string
}

// Passed reports whether the round found no violation and every check
// reached a verdict.
func (r *Report) Passed() bool { return r.Totals.Violations == 0 && r.Totals.Unknown == 0 }
