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
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Output files.
const (
	markdownFile = "results.md"
	jsonFile     = "results.json"
	latestDir    = "latest-e2e"
)

// Targets of issue 16 (one writer per document).
const (
	// targetRequestsPerChange bounds the list requests per change at every
	// replica count, for create and for delete.
	targetRequestsPerChange = 0.05
	// targetConflictsPerWrite bounds the 412s per committed write at every
	// replica count, for create and for delete.
	targetConflictsPerWrite = 0.1
	// targetAPIPerEntry bounds the managers' Kubernetes API requests per
	// entry (create and delete together, every verb, Leases left out) at
	// every replica count.
	targetAPIPerEntry = 3.3
	// targetLatencyP99 bounds the p99 of the per-ID latency, in seconds,
	// at every replica count, for create and for delete.
	targetLatencyP99 = 2.0
	// With targetScaleReplicas, creating and deleting take at most
	// targetScaleFactor times as long as with one replica.
	targetScaleReplicas = 5
	targetScaleFactor   = 1.1
	// With targetLists lists and targetListsReplicas replicas, the list
	// requests per change stay within targetRequestsPerChange: many
	// documents spread over the replicas cost no more than one.
	targetLists         = 8
	targetListsReplicas = 5
)

// Targets of issue 23 (the finalizer from birth), where the API server runs
// the finalizer policy.
const (
	// targetCreateWrites bounds the operator's ListEntry writes per entry
	// in the create phase, at every replica count.
	targetCreateWrites = 1.3
	// targetCreateP99One bounds the p99 of the per-ID create latency, in
	// seconds, with one replica: it was 3.5 s while the operator patched
	// the finalizer on.
	targetCreateP99One = 3.5
)

// targetEntries is the number of entries the targets are set for.
const targetEntries = 1000

// reconcileResults are controller-runtime's reconcile results, in the
// order they are shown.
var reconcileResults = []string{"success", "error", "requeue", "requeue_after"}

// checkTargets compares the run with the targets.
func checkTargets(r *results) []target {
	var out []target
	for _, rr := range r.Rounds {
		create, del := r.phase(rr.Replicas, "create"), r.phase(rr.Replicas, "delete")
		rpc := bothPhases(fmt.Sprintf("list requests per change, R=%d (create, delete)", rr.Replicas),
			targetRequestsPerChange, "%.3f", create, del, func(p *phase) float64 { return p.RequestsPerChange })
		if r.Config.Entries != targetEntries {
			rpc.Want += fmt.Sprintf(" (the target is for %d entries)", targetEntries)
		}
		conflicts := bothPhases(fmt.Sprintf("412s per committed write, R=%d (create, delete)", rr.Replicas),
			targetConflictsPerWrite, "%.3f", create, del, func(p *phase) float64 { return p.ConflictsPerWrite })
		api := target{Name: fmt.Sprintf("Kubernetes API requests per entry, R=%d (create + delete, every verb, Leases left out)", rr.Replicas),
			Want: fmt.Sprintf("≤ %.1f", targetAPIPerEntry)}
		if v, leasesOut, ok := rr.apiPerEntry(); ok {
			api.Known, api.Met = true, v <= targetAPIPerEntry
			api.Got = fmt.Sprintf("%.2f", v)
			if !leasesOut {
				api.Got += " (Leases included: the API server's metrics could not be read)"
			}
		}
		p99 := bothPhases(fmt.Sprintf("per-ID latency p99, R=%d (create, delete)", rr.Replicas),
			targetLatencyP99, "%.2fs", create, del, func(p *phase) float64 { return p.Latency.P99 })
		for _, p := range []*phase{create, del} {
			switch {
			case p == nil:
			case p.Latency.Unsettled > 0:
				p99.Known, p99.Met, p99.Got = false, false, fmt.Sprintf("%s: %d IDs never settled in the list history", p.Name, p.Latency.Unsettled)
			case p.Latency.IDs == 0:
				p99.Known, p99.Met, p99.Got = false, false, p.Name+": no list history"
			}
		}
		out = append(out, rpc, conflicts, api, p99, createWritesTarget(rr, create))
	}
	return append(out, createP99Target(r),
		scaleTarget(r, "create", targetScaleReplicas, targetScaleFactor),
		scaleTarget(r, "delete", targetScaleReplicas, targetScaleFactor),
		listsTarget(r))
}

// createWritesTarget is the target on the operator's ListEntry writes per
// entry while creating, with the finalizer policy.
func createWritesTarget(rr round, create *phase) target {
	t := target{Name: fmt.Sprintf("operator's ListEntry writes per entry, create, R=%d (finalizer policy)", rr.Replicas),
		Want: fmt.Sprintf("≤ %.1f", targetCreateWrites)}
	switch {
	case !rr.FinalizerPolicy:
		t.Got = "not measured: the API server ran without the finalizer policy"
	case create == nil || !create.API.Known:
		t.Got = "not measured: the API server's metrics could not be read"
	default:
		v := ratio(create.API.OperatorWrites, float64(create.Changes))
		t.Known, t.Met, t.Got = true, v <= targetCreateWrites, fmt.Sprintf("%.2f", v)
	}
	return t
}

// createP99Target is the target on the per-ID create latency's p99 with
// one replica and the finalizer policy.
func createP99Target(r *results) target {
	t := target{Name: "per-ID create latency p99, R=1 (finalizer policy)", Want: fmt.Sprintf("< %.1fs", targetCreateP99One)}
	var one *round
	for i := range r.Rounds {
		if r.Rounds[i].Replicas == 1 {
			one = &r.Rounds[i]
		}
	}
	create := r.phase(1, "create")
	switch {
	case one == nil || create == nil:
		t.Got = "run with --replicas 1 to measure"
	case !one.FinalizerPolicy:
		t.Got = "not measured: the API server ran without the finalizer policy"
	case create.Latency.IDs == 0 || create.Latency.Unsettled > 0:
		t.Got = fmt.Sprintf("not measured: %d IDs settled, %d never did", create.Latency.IDs, create.Latency.Unsettled)
	default:
		t.Known, t.Met, t.Got = true, create.Latency.P99 < targetCreateP99One, fmt.Sprintf("%.2fs", create.Latency.P99)
	}
	return t
}

// writesPerEntry renders the operator's ListEntry writes per entry of p,
// or "-" when the API server's metrics are unknown.
func writesPerEntry(p *phase) string {
	if !p.API.Known {
		return "-"
	}
	return fmt.Sprintf("%.2f", ratio(p.API.OperatorWrites, float64(p.Changes)))
}

// bothPhases is the target that value of the create and of the delete
// phase are each at most limit.
func bothPhases(name string, limit float64, format string, create, del *phase, value func(*phase) float64) target {
	t := target{Name: name, Want: fmt.Sprintf("≤ "+format+" each", limit)}
	if create != nil && del != nil {
		c, d := value(create), value(del)
		t.Known, t.Met = true, c <= limit && d <= limit
		t.Got = fmt.Sprintf(format+", "+format, c, d)
	}
	return t
}

// listsTarget is the target for many documents: with targetLists lists at
// targetListsReplicas replicas, the list requests per change stay within
// targetRequestsPerChange. Only a run with --lists 8 measures it.
func listsTarget(r *results) target {
	name := fmt.Sprintf("list requests per change with %d lists, R=%d (create, delete)", targetLists, targetListsReplicas)
	if r.Config.Lists != targetLists {
		return target{Name: name, Want: fmt.Sprintf("≤ %.3f each", targetRequestsPerChange),
			Got: fmt.Sprintf("run with --lists %d to measure", targetLists)}
	}
	return bothPhases(name, targetRequestsPerChange, "%.3f",
		r.phase(targetListsReplicas, "create"), r.phase(targetListsReplicas, "delete"), func(p *phase) float64 { return p.RequestsPerChange })
}

// scaleTarget compares the time of phase name with replicas and with one.
func scaleTarget(r *results, name string, replicas int, factor float64) target {
	t := target{Name: fmt.Sprintf("%s time, R=%d vs R=1", name, replicas), Want: fmt.Sprintf("≤ %.1f× R=1", factor)}
	one, many := r.phase(1, name), r.phase(replicas, name)
	if one != nil && many != nil {
		t.Known = true
		t.Got = fmt.Sprintf("%.2fs vs %.2fs (%.2f×)", many.Seconds, one.Seconds, many.Seconds/one.Seconds)
		t.Met = many.Seconds <= factor*one.Seconds
	}
	return t
}

// writeMarkdown writes the report.
func writeMarkdown(w io.Writer, r *results) {
	fmt.Fprintf(w, "# listkeeper end to end on a real control plane\n\n")
	fmt.Fprintf(w, "%s UTC · %s · GOMAXPROCS %d · %.0f s in total · host load average %.2f → %.2f (start → end)\n\n",
		r.Started.UTC().Format(time.DateTime), r.Host.GoVersion, r.Host.GOMAXPROCS, r.Elapsed, r.Host.LoadStart[0], r.Host.LoadEnd[0])
	if max(r.Host.LoadStart[0], r.Host.LoadEnd[0]) > 2*float64(r.Host.GOMAXPROCS) {
		fmt.Fprintf(w, "> **Noisy host**: the load average exceeded twice GOMAXPROCS, so other processes competed for the CPUs; times are pessimistic and vary between runs.\n\n")
	}
	c := r.Config
	fmt.Fprintf(w, "Workload: %d ListEntries %s; each list's document starts with %d bystander IDs. The entries are created by %d goroutines, then deleted. "+
		"Fake list server (`cmd/fakeapi`): %s latency per request. Managers (`cmd/manager`, all active): `--max-concurrent-reconciles %d`, `--batch-interval` %s. "+
		"Each replica count R gets a fresh kube-apiserver, etcd, list server and managers.\n\n",
		c.Entries, onLists(c.Lists), c.Bystanders, c.Clients, c.Latency, c.Workers, c.BatchInterval)
	fmt.Fprintf(w, "Time: create, until the commit that put the last ID on its list; delete, until every list held only its bystanders and no entry was left. "+
		"*list s* is that commit (from the server's history), *entries s* when every entry was Synced or gone (polled every %s). "+
		"Requests, 412s and commits are counted by the fake server, without the benchmark's own reads, until the entries were done; "+
		"reconciles (`controller_runtime_reconcile_total`), writes and batch sizes (`listkeeper_batch_size`) come from the managers' metrics. "+
		"*Per-ID latency* runs, for each ID, from the return of the API call that created (deleted) its entry to the first commit of its list's document that holds (no longer holds) the ID, "+
		"from the server's history; a commit before the call returned counts as 0.\n\n",
		entriesPoll)

	fmt.Fprintf(w, "The operator's Kubernetes API requests are the managers' own client metrics (`rest_client_requests_total`, every verb, a watch counted when opened), "+
		"summed over the replicas for the same span; *Leases left out* subtracts the kube-apiserver's count of requests to Leases (`apiserver_request_total{resource=\"leases\"}`): "+
		"the members' renewals and reads, and the API server's own identity Lease, about one renewal every 10 s.\n\n")

	writeSummary(w, r)
	writeLatency(w, r)
	writePhases(w, r)
	writeOperatorAPI(w, r)
	writeReplicas(w, r)
	writeControlPlane(w, r)
	writeTargets(w, r)
}

func writeSummary(w io.Writer, r *results) {
	fmt.Fprintf(w, "## Summary\n\n")
	fmt.Fprintf(w, "| R | phase | finalizer policy | time s | list requests per change | 412s | 412s per write | ID latency p50 / p99 s | API requests per entry, Leases left out | API requests per entry, all | operator's ListEntry writes per entry |\n")
	fmt.Fprintf(w, "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, rr := range r.Rounds {
		for _, p := range rr.Phases {
			if !p.Finished {
				fmt.Fprintf(w, "| %d | %s | %s | failed | | | | | | | |\n", rr.Replicas, p.Name, yesNo(rr.FinalizerPolicy))
				continue
			}
			fmt.Fprintf(w, "| %d | %s | %s | %.2f | %.3f | %d | %.3f | %s | %s | %.2f | %s |\n", rr.Replicas, p.Name, yesNo(rr.FinalizerPolicy),
				p.Seconds, p.RequestsPerChange, p.Conflicts, p.ConflictsPerWrite, p50p99(p.Latency), leavingLeases(p.Operator, p.Changes),
				ratio(p.Operator.Total, float64(p.Changes)), writesPerEntry(&p))
		}
		if v, leasesOut, ok := rr.apiPerEntry(); ok {
			note := ""
			if !leasesOut {
				note = " (Leases included)"
			}
			fmt.Fprintf(w, "| %d | **create + delete** | | | | | | | **%.2f**%s | | |\n", rr.Replicas, v, note)
		}
	}
	fmt.Fprintln(w)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// onLists describes where the entries go, for the workload paragraph.
func onLists(n int) string {
	if n <= 1 {
		return "on one ExternalList"
	}
	return fmt.Sprintf("dealt round-robin over %d ExternalLists, each on its own document", n)
}

// p50p99 renders the latency's p50 and p99, or "-" when nothing was
// measured.
func p50p99(l latencyFigures) string {
	if l.IDs == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f / %.2f", l.P50, l.P99)
}

func writeLatency(w io.Writer, r *results) {
	fmt.Fprintf(w, "## Per-ID latency\n\n")
	fmt.Fprintf(w, "| R | phase | IDs | p50 s | p99 s | max s | not settled |\n|---:|---|---:|---:|---:|---:|---:|\n")
	for _, rr := range r.Rounds {
		for _, p := range rr.Phases {
			if !p.Finished {
				continue
			}
			l := p.Latency
			if l.IDs == 0 {
				fmt.Fprintf(w, "| %d | %s | - | - | - | - | %d |\n", rr.Replicas, p.Name, l.Unsettled)
				continue
			}
			fmt.Fprintf(w, "| %d | %s | %d | %.2f | %.2f | %.2f | %d |\n", rr.Replicas, p.Name, l.IDs, l.P50, l.P99, l.Max, l.Unsettled)
		}
	}
	fmt.Fprintln(w)
}

// leavingLeases renders the API requests per entry without the Leases, or
// "-" when the Lease requests are unknown.
func leavingLeases(o operatorAPI, changes int) string {
	if !o.LeasesKnown {
		return "-"
	}
	return fmt.Sprintf("%.2f", ratio(o.Entries, float64(changes)))
}

// apiMethods are the HTTP methods shown in their own columns.
var apiMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

func writeOperatorAPI(w io.Writer, r *results) {
	fmt.Fprintf(w, "## The operator's Kubernetes API requests\n\n")
	fmt.Fprintf(w, "| R | phase | all | GET | POST | PUT | PATCH | DELETE | 409s | Lease requests | Leases left out | per entry |\n")
	fmt.Fprintf(w, "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, rr := range r.Rounds {
		for _, p := range rr.Phases {
			if !p.Finished {
				continue
			}
			o := p.Operator
			var b strings.Builder
			for _, m := range apiMethods {
				fmt.Fprintf(&b, " %.0f |", o.ByMethod[m])
			}
			leases, left := "-", "-"
			if o.LeasesKnown {
				leases, left = fmt.Sprintf("%.0f", o.Leases), fmt.Sprintf("%.0f", o.Entries)
			}
			fmt.Fprintf(w, "| %d | %s | %.0f |%s %.0f | %s | %s | %s |\n", rr.Replicas, p.Name, o.Total, b.String(), o.Conflicts,
				leases, left, leavingLeases(o, p.Changes))
		}
	}
	fmt.Fprintln(w)
}

func writePhases(w io.Writer, r *results) {
	fmt.Fprintf(w, "## Phases\n\n")
	fmt.Fprintf(w, "| R | phase | time s | list s | entries s | changes | list requests | req/change | 412s | commits | writes | mean batch | listentry reconciles | externallist reconciles | status |\n")
	fmt.Fprintf(w, "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|\n")
	for _, rr := range r.Rounds {
		for _, p := range rr.Phases {
			status := "ok"
			if !p.Finished {
				fmt.Fprintf(w, "| %d | %s | | | | %d | | | | | | | | | failed |\n", rr.Replicas, p.Name, p.Changes)
				continue
			}
			fmt.Fprintf(w, "| %d | %s | %.2f | %.2f | %.2f | %d | %d | %.3f | %d | %d | %.0f | %.1f | %s | %.0f | %s |\n",
				rr.Replicas, p.Name, p.Seconds, p.ListSeconds, p.EntriesSeconds, p.Changes, p.Requests, p.RequestsPerChange,
				p.Conflicts, p.Commits, p.Total.Writes, p.Total.MeanBatch, byResult(p.Total.Reconciles["listentry"]),
				p.Total.reconciles("externallist"), status)
		}
		if rr.Error != "" {
			fmt.Fprintf(w, "| %d | | | | | | | | | | | | | | **failed**: %s |\n", rr.Replicas, escape(rr.Error))
		}
	}
	fmt.Fprintln(w)
}

func writeReplicas(w io.Writer, r *results) {
	fmt.Fprintf(w, "## Per replica\n\n")
	fmt.Fprintf(w, "| R | phase | replica | listentry reconciles | externallist reconciles | list requests | 412s | writes | mean batch | API requests |\n")
	fmt.Fprintf(w, "|---:|---|---|---|---:|---:|---:|---:|---:|---:|\n")
	for _, rr := range r.Rounds {
		for _, p := range rr.Phases {
			if !p.Finished {
				continue
			}
			rows := p.Replicas
			if len(rows) > 1 {
				rows = append(slices.Clone(rows), p.Total)
			}
			for _, f := range rows {
				fmt.Fprintf(w, "| %d | %s | %s | %s | %.0f | %.0f | %.0f | %.0f | %.1f | %.0f |\n",
					rr.Replicas, p.Name, f.Name, byResult(f.Reconciles["listentry"]), f.reconciles("externallist"),
					f.Requests, f.Conflicts, f.Writes, f.MeanBatch, f.APIRequests)
			}
		}
	}
	fmt.Fprintln(w)
}

func writeControlPlane(w io.Writer, r *results) {
	fmt.Fprintf(w, "## Control plane and CPU\n\n")
	fmt.Fprintf(w, "From the start of the phase until the entries were done (*entries s*). API requests are the kube-apiserver's `apiserver_request_total` for listentries and their status, the benchmark's own creates (POST) and deletes (DELETE) included; CPU is `process_cpu_seconds_total` of the API server and of the managers (etcd, the list server and the benchmark itself are not counted).\n\n")
	fmt.Fprintf(w, "| R | phase | entries s | listentries API writes | writes/change | listentries API reads | apiserver CPU s | managers CPU s | CPU s per second |\n")
	fmt.Fprintf(w, "|---:|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, rr := range r.Rounds {
		for _, p := range rr.Phases {
			if !p.Finished {
				continue
			}
			if !p.API.Known {
				fmt.Fprintf(w, "| %d | %s | %.2f | - | - | - | - | %.1f | - |\n", rr.Replicas, p.Name, p.EntriesSeconds, p.Total.CPUSeconds)
				continue
			}
			fmt.Fprintf(w, "| %d | %s | %.2f | %.0f | %.2f | %.0f | %.1f | %.1f | %.2f |\n",
				rr.Replicas, p.Name, p.EntriesSeconds, p.API.Writes, ratio(p.API.Writes, float64(p.Changes)), p.API.Reads,
				p.API.CPUSeconds, p.Total.CPUSeconds, ratio(p.API.CPUSeconds+p.Total.CPUSeconds, p.EntriesSeconds))
		}
	}
	fmt.Fprintln(w)
}

// ratio is a/b, 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func writeTargets(w io.Writer, r *results) {
	fmt.Fprintf(w, "## Targets\n\n| target | want | got | verdict |\n|---|---|---|---|\n")
	for _, t := range r.Targets {
		verdict := "not measured"
		switch {
		case t.Known && t.Met:
			verdict = "met"
		case t.Known:
			verdict = "**not met**"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", t.Name, t.Want, t.Got, verdict)
	}
}

// byResult renders reconcile counts as "total (success a, error b, ...)",
// leaving out results that did not occur.
func byResult(m map[string]float64) string {
	var total float64
	var parts []string
	var extra []string
	for k := range m {
		if !slices.Contains(reconcileResults, k) {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	for _, k := range append(slices.Clone(reconcileResults), extra...) {
		if v := m[k]; v != 0 {
			total += v
			parts = append(parts, fmt.Sprintf("%s %.0f", k, v))
		}
	}
	if len(parts) == 0 {
		return "0"
	}
	return fmt.Sprintf("%.0f (%s)", total, strings.Join(parts, ", "))
}

// escape keeps a message on one table row.
func escape(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ").Replace(s)
}

// writeFiles writes the report and the JSON to out/stamp and out/latest-e2e,
// and returns the first directory.
func writeFiles(out, stamp string, r *results, md string) (string, error) {
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", err
	}
	stamped := filepath.Join(out, stamp)
	for _, d := range []string{stamped, filepath.Join(out, latestDir)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", err
		}
		for name, data := range map[string][]byte{markdownFile: []byte(md), jsonFile: append(js, '\n')} {
			if err := os.WriteFile(filepath.Join(d, name), data, 0o644); err != nil {
				return "", fmt.Errorf("write %s: %w", name, err)
			}
		}
	}
	return stamped, nil
}
