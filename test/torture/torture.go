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
	"context"
	"net/http"
	"time"
)

// Run plays one torture round with cfg and checks it. It returns an error
// only when the round could not be played (a bad configuration, ctx ended);
// what the checks found is in the Report, see Report.Passed.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	r, err := start(cfg)
	if err != nil {
		return nil, err
	}
	defer r.ts.Close()
	began := time.Now()
	runErr := r.run(ctx)
	// Closing the clients cancels the cycles that still carry abandoned
	// changes, so the server's documents and history are final afterwards.
	r.closeClients()
	if runErr != nil {
		return nil, runErr
	}
	report := &Report{Seed: cfg.Seed, Elapsed: time.Since(began)}
	a := newAnalysis(cfg, r.lists, r.rec.snapshot(), report)
	for _, lst := range r.lists {
		var vs []version
		for _, v := range r.api.History(lst.path) {
			items, err := parseItems(v.Body)
			if err != nil {
				items = nil
			}
			vs = append(vs, version{Version: v, at: r.rec.at(v.Time), items: items})
		}
		a.versions = append(a.versions, vs)
		body, _, ok := r.api.Get(lst.path)
		var final []string
		if ok {
			final, _ = parseItems(body)
		}
		a.finals = append(a.finals, final)
	}
	r.count(report)
	checked := time.Now()
	a.run()
	report.Checked = time.Since(checked)
	return report, nil
}

// count fills the report's totals from the records, the server's stats and
// the clients' counters.
func (r *round) count(report *Report) {
	t := &report.Totals
	t.Rounds = 1
	for _, rec := range r.rec.snapshot() {
		switch {
		case rec.Kind == OpAdd && rec.Hot:
			t.HotAdds++
		case rec.Kind == OpRemove && rec.Hot:
			t.HotRemoves++
		}
		if rec.Submitted {
			t.Submitted++
		}
		switch rec.Kind {
		case OpAdd:
			t.Adds++
		case OpRemove:
			t.Removes++
		case OpRead:
			t.Reads++
			if rec.Outcome != OutcomeOK {
				t.ReadErrors++
			}
			continue
		}
		switch rec.Outcome {
		case OutcomeOK:
			t.OK++
		case OutcomeAmbiguous:
			t.Ambiguous++
		default:
			t.Failed++
		}
	}
	r.mu.Lock()
	t.CrossReplicaRemoves = r.crossRemoves
	r.mu.Unlock()
	st := r.api.Stats()
	for _, byCode := range st.Requests[http.MethodPut] {
		t.Puts += byCode
	}
	for _, byCode := range st.Requests[http.MethodGet] {
		t.Gets += byCode
	}
	t.Status412 = st.Count(http.MethodPut, http.StatusPreconditionFailed)
	t.Commits = st.Commits
	t.Faults = st.Faults
	for _, lst := range r.lists {
		t.Versions += int64(len(r.api.History(lst.path)))
	}
	for _, rep := range r.replicas {
		t.ClientAmbiguousWrites += rep.counters.Ambiguous.Load()
		t.ClientConflicts += rep.counters.Conflicts.Load()
	}
}
