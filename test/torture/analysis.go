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
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// failedRoundCheckTimeout bounds the set check of a round that already
// failed.
const failedRoundCheckTimeout = 2 * time.Second

// version is a committed version of a list, on the round's time base.
type version struct {
	fakeapi.Version
	at    int64
	items []string // nil when the body does not parse
}

// listOps indexes the changes of one list by ID.
type listOps struct {
	byID  map[string][]int // record indices of the adds and removes of each ID
	order []string         // IDs in order of first change
	hot   map[string]bool  // the hot IDs
}

// analysis checks one finished round.
type analysis struct {
	cfg      Config
	lists    []*list
	records  []Record
	versions [][]version // per list, oldest first
	finals   [][]string  // per list: the items of the server's document after the clients closed
	ops      []listOps

	report *Report
	dir    string // artifact directory, made on the first problem
}

func newAnalysis(cfg Config, lists []*list, records []Record, report *Report) *analysis {
	a := &analysis{cfg: cfg, lists: lists, records: records, report: report}
	a.ops = make([]listOps, len(lists))
	for l := range a.ops {
		a.ops[l].byID = map[string][]int{}
		a.ops[l].hot = map[string]bool{}
	}
	for i, rec := range records {
		if rec.Kind == OpRead {
			continue
		}
		lo := &a.ops[rec.List]
		if _, ok := lo.byID[rec.ID]; !ok {
			lo.order = append(lo.order, rec.ID)
		}
		lo.byID[rec.ID] = append(lo.byID[rec.ID], i)
		if rec.Hot {
			lo.hot[rec.ID] = true
		}
	}
	return a
}

// ret returns when a change's effect can no longer land: its return, or
// infinity when its outcome is ambiguous.
func (a *analysis) ret(rec Record) int64 {
	if rec.Kind != OpRead && rec.Outcome == OutcomeAmbiguous {
		return math.MaxInt64
	}
	return rec.Return
}

// violation records a problem that the round found.
func (a *analysis) violation(format string, args ...any) {
	a.report.Totals.Violations++
	a.report.Problems = append(a.report.Problems, fmt.Sprintf(format, args...))
}

// unknown records a check that reached no verdict.
func (a *analysis) unknown(format string, args ...any) {
	a.report.Totals.Unknown++
	a.report.Problems = append(a.report.Problems, "UNKNOWN: "+fmt.Sprintf(format, args...))
}

// artifactDir returns the directory for artifacts, making it on first use.
func (a *analysis) artifactDir() (string, error) {
	if a.dir != "" {
		return a.dir, nil
	}
	dir := a.cfg.ArtifactDir
	if dir == "" {
		d, err := os.MkdirTemp("", "listkeeper-torture-*")
		if err != nil {
			return "", err
		}
		dir = d
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	a.dir = dir
	return dir, nil
}

// artifactPath returns a path for a new artifact named name.
func (a *analysis) artifactPath(name string) (string, error) {
	dir, err := a.artifactDir()
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, fmt.Sprintf("seed%d-%s", a.cfg.Seed, name))
	a.report.Artifacts = append(a.report.Artifacts, p)
	return p, nil
}

// saveHistory writes the records and versions of the round as JSON.
func (a *analysis) saveHistory() {
	path, err := a.artifactPath("history.json")
	if err != nil {
		a.report.Problems = append(a.report.Problems, "cannot save the history: "+err.Error())
		return
	}
	type listDump struct {
		Path       string            `json:"path"`
		Bystanders []string          `json:"bystanders"`
		Versions   []fakeapi.Version `json:"versions"`
	}
	dump := struct {
		Seed    int64      `json:"seed"`
		Records []Record   `json:"records"`
		Lists   []listDump `json:"lists"`
	}{Seed: a.cfg.Seed, Records: a.records}
	for l, lst := range a.lists {
		ld := listDump{Path: lst.path, Bystanders: lst.bystanders}
		if l < len(a.versions) {
			for _, v := range a.versions[l] {
				ld.Versions = append(ld.Versions, v.Version)
			}
		}
		dump.Lists = append(dump.Lists, ld)
	}
	data, err := json.MarshalIndent(dump, "", " ")
	if err == nil {
		err = os.WriteFile(path, data, 0o644)
	}
	if err != nil {
		a.report.Problems = append(a.report.Problems, "cannot save the history: "+err.Error())
	}
}

// run runs every check.
//
// The per-ID check runs first: it is fast whether the history is
// linearizable or not. The set check finds a linearizable history as fast,
// but to refute one porcupine must try every order of the changes that
// overlap (about 2^16 per list here) and times out instead. A round that
// already failed therefore gives it a short timeout: its Unknown still
// counts, and the per-ID check has named the culprits.
func (a *analysis) run() {
	a.checkPerID()
	if a.report.Totals.Violations > 0 {
		a.cfg.CheckTimeout = min(a.cfg.CheckTimeout, failedRoundCheckTimeout)
	}
	a.checkQuiescence()
	a.checkSetModel()
	a.checkReads()
	a.checkVersions()
	a.checkFinal()
	a.checkOrder()
	if len(a.report.Problems) > 0 {
		a.saveHistory()
	}
}

// parseItems returns the items of a stored document, or an error.
func parseItems(body []byte) ([]string, error) {
	p, err := etagclient.ParsePointer(itemsPointer)
	if err != nil {
		return nil, err
	}
	d, err := etagclient.ParseDocument(body, p)
	if err != nil {
		return nil, err
	}
	return d.Items(), nil
}

// shortList prints at most a few IDs.
func shortList(ids []string) string {
	const limit = 8
	if len(ids) <= limit {
		return fmt.Sprint(ids)
	}
	return fmt.Sprintf("%v... (%d in all)", ids[:limit], len(ids))
}

// sortedKeys returns the keys of a set, sorted.
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
