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
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

// results is everything one run measured; it is written as JSON.
type results struct {
	Started time.Time    `json:"started"`
	Elapsed float64      `json:"elapsedSeconds"`
	Config  publicConfig `json:"config"`
	Host    host         `json:"host"`
	Rounds  []round      `json:"rounds"`
	Targets []target     `json:"targets"`
}

// publicConfig is the configuration as reported.
type publicConfig struct {
	Replicas      []int  `json:"replicas"`
	Entries       int    `json:"entries"`
	Lists         int    `json:"lists"`
	Bystanders    int    `json:"bystanders"`
	Latency       string `json:"latency"`
	BatchInterval string `json:"batchInterval"`
	Workers       int    `json:"maxConcurrentReconciles"`
	Clients       int    `json:"clients"`
	PhaseTimeout  string `json:"phaseTimeout"`
}

func (c config) public() publicConfig {
	bi := c.batchInterval
	if bi == "" {
		bi = "manager default"
	}
	return publicConfig{Replicas: c.replicas, Entries: c.entries, Lists: c.lists, Bystanders: c.bystanders, Latency: c.latency.String(),
		BatchInterval: bi, Workers: c.workers, Clients: c.clients, PhaseTimeout: c.timeout.String()}
}

// host describes the machine.
type host struct {
	GoVersion  string     `json:"goVersion"`
	GOMAXPROCS int        `json:"gomaxprocs"`
	LoadStart  [3]float64 `json:"loadAverageStart"`
	LoadEnd    [3]float64 `json:"loadAverageEnd"`
}

func hostInfo() host {
	return host{GoVersion: runtime.Version(), GOMAXPROCS: runtime.GOMAXPROCS(0), LoadStart: loadAverage()}
}

// loadAverage reads /proc/loadavg; zeros where it cannot.
func loadAverage() [3]float64 {
	var out [3]float64
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return out
	}
	for i, f := range strings.Fields(string(b)) {
		if i == len(out) {
			break
		}
		out[i], _ = strconv.ParseFloat(f, 64)
	}
	return out
}

// round is one replica count's run.
type round struct {
	Replicas int     `json:"replicas"`
	Phases   []phase `json:"phases"`
	// Error says why the round failed; "" when it passed.
	Error string `json:"error,omitempty"`
	// Evidence is the directory with the logs of a failed round.
	Evidence string `json:"evidence,omitempty"`
	// FinalizerPolicy is whether the API server put the cleanup
	// finalizer on every ListEntry at creation (the MutatingAdmissionPolicy
	// of config/finalizer-policy), so that the operator did not patch it on.
	FinalizerPolicy bool `json:"finalizerPolicy"`
}

// phase is what one phase of a round measured.
type phase struct {
	Name     string `json:"name"`
	Changes  int    `json:"changes"`
	Finished bool   `json:"finished"`
	// Seconds is the phase's time: create, until every list held its
	// IDs; delete, until every list held only the bystanders and no entry
	// was left.
	Seconds float64 `json:"seconds"`
	// ListSeconds is until the commit that completed (create) or cleaned
	// (delete) the last list, from the fake server's history.
	ListSeconds float64 `json:"listSeconds"`
	// EntriesSeconds is until every entry was Synced (create) or gone
	// (delete), as polled.
	EntriesSeconds float64 `json:"entriesSeconds"`
	// Requests are the operator's list requests (without the benchmark's
	// own reads), Conflicts the 412s and Commits the versions written, all
	// counted by the fake server over every list from the start of the
	// phase until the entries were done.
	Requests          int64   `json:"requests"`
	RequestsPerChange float64 `json:"requestsPerChange"`
	Conflicts         int64   `json:"conflicts"`
	Commits           int64   `json:"commits"`
	// ConflictsPerWrite is Conflicts per committed write (Commits).
	ConflictsPerWrite float64 `json:"conflictsPerWrite"`
	// Latency is the per-ID latency: from the return of the API call that
	// created (deleted) an entry to the first commit of its list's
	// document that holds (no longer holds) its ID, from the fake
	// server's history.
	Latency latencyFigures `json:"idLatency"`
	// API is what the kube-apiserver served for ListEntries, and its CPU
	// time, over the same span.
	API apiFigures `json:"apiServer"`
	// Operator is what the managers asked of the kube-apiserver over the
	// same span, by their own client metrics.
	Operator operatorAPI `json:"operatorAPI"`
	// Total sums the replicas' figures.
	Total figures `json:"total"`
	// Replicas are each replica's figures.
	Replicas []figures `json:"replicas"`
}

// figures are a replica's (or the sum of the replicas') metrics during a
// phase.
type figures struct {
	Name      string  `json:"name"`
	Requests  float64 `json:"requests"`
	Conflicts float64 `json:"conflicts"`
	Writes    float64 `json:"writes"`
	Batches   float64 `json:"batches"`
	MeanBatch float64 `json:"meanBatch"`
	// Reconciles counts controller_runtime_reconcile_total by controller
	// and result.
	Reconciles map[string]map[string]float64 `json:"reconciles"`
	// CPUSeconds is process_cpu_seconds_total.
	CPUSeconds float64 `json:"cpuSeconds"`
	// APIRequests are the replica's requests to the Kubernetes API server
	// (rest_client_requests_total, every method, Lease renewals included).
	APIRequests float64 `json:"apiRequests"`
}

func figuresOf(name string, m harness.ManagerMetrics) figures {
	f := figures{Name: name, Requests: m.Requests, Conflicts: m.Conflicts, Writes: m.Writes, Batches: m.Batches,
		MeanBatch: m.MeanBatch(), Reconciles: map[string]map[string]float64{}, CPUSeconds: m.CPUSeconds,
		APIRequests: m.APIRequestTotal()}
	for k, v := range m.Reconciles {
		if v == 0 {
			continue
		}
		if f.Reconciles[k.Controller] == nil {
			f.Reconciles[k.Controller] = map[string]float64{}
		}
		f.Reconciles[k.Controller][k.Result] = v
	}
	return f
}

// apiFigures are the kube-apiserver's figures during a phase.
type apiFigures struct {
	// Known is false when the API server could not be scraped.
	Known bool `json:"known"`
	// Requests counts the requests to listentries (and its
	// subresources) by "resource verb".
	Requests map[string]float64 `json:"listEntryRequests"`
	// Writes are the POST, PUT, PATCH and DELETE requests among them,
	// Reads the GET and LIST requests.
	Writes     float64 `json:"listEntryWrites"`
	Reads      float64 `json:"listEntryReads"`
	CPUSeconds float64 `json:"cpuSeconds"`
	// OperatorWrites are the writes among Writes that were not the
	// benchmark's own: the benchmark makes one per entry (its create or
	// its delete), the rest are the operator's (finalizer patches, status
	// updates, the finalizer's removal).
	OperatorWrites float64 `json:"operatorListEntryWrites"`
}

// apiFiguresOf keeps the ListEntry requests of d.
// own is the number of the benchmark's own writes to ListEntries.
func apiFiguresOf(d harness.APIServerMetrics, own int) apiFigures {
	f := apiFigures{Known: true, Requests: map[string]float64{}, CPUSeconds: d.CPUSeconds,
		Writes: d.RequestsTo("listentries", "POST", "PUT", "PATCH", "DELETE"),
		Reads:  d.RequestsTo("listentries", "GET", "LIST")}
	f.OperatorWrites = max(f.Writes-float64(own), 0)
	for k, v := range d.Requests {
		if strings.HasPrefix(k, "listentries ") || strings.HasPrefix(k, "listentries/") {
			f.Requests[k] = v
		}
	}
	return f
}

// operatorAPI are the managers' own requests to the Kubernetes API server
// during a phase.
type operatorAPI struct {
	// ByMethod sums every replica's rest_client_requests_total by HTTP
	// method; Total is their sum and Conflicts the 409s among them. They
	// include the membership's Lease renewals and reads.
	ByMethod  map[string]float64 `json:"byMethod"`
	Total     float64            `json:"total"`
	Conflicts float64            `json:"conflicts"`
	// Leases are the kube-apiserver's requests to Leases
	// (apiserver_request_total, resource leases), when LeasesKnown: the
	// managers' renewals and reads, and the API server's own identity
	// Lease (one renewal every 10 s).
	Leases      float64 `json:"leases"`
	LeasesKnown bool    `json:"leasesKnown"`
	// Entries is Total without Leases (Total when they are unknown): the
	// requests the entries cost.
	Entries float64 `json:"entries"`
}

// operatorAPIOf sums the managers' API requests of d and leaves out the
// Lease requests that the API server counted, when it could be read.
func operatorAPIOf(d harness.Counters, api harness.APIServerMetrics, apiKnown bool) operatorAPI {
	t := d.ManagerTotal()
	o := operatorAPI{ByMethod: t.APIRequests, Total: t.APIRequestTotal(), Conflicts: t.APIConflicts}
	o.Entries = o.Total
	if apiKnown {
		o.Leases, o.LeasesKnown = api.RequestsTo("leases"), true
		o.Entries = max(o.Total-o.Leases, 0)
	}
	return o
}

// apiPerEntry is the operator's API requests per entry over the round's
// create and delete phases, Leases left out when leasesOut; ok is false
// unless both phases finished.
func (rr round) apiPerEntry() (perEntry float64, leasesOut, ok bool) {
	var sum float64
	changes, found := 0, 0
	leasesOut = true
	for _, p := range rr.Phases {
		if !p.Finished {
			continue
		}
		switch p.Name {
		case "create":
			changes = p.Changes
		case "delete":
		default:
			continue
		}
		sum += p.Operator.Entries
		leasesOut = leasesOut && p.Operator.LeasesKnown
		found++
	}
	if found != 2 || changes == 0 {
		return 0, false, false
	}
	return sum / float64(changes), leasesOut, true
}

// reconciles returns the reconciles of controller, of every result.
func (f figures) reconciles(controller string) float64 {
	var n float64
	for _, v := range f.Reconciles[controller] {
		n += v
	}
	return n
}

// target is one goal the issue sets, and whether the run met it.
type target struct {
	Name  string `json:"name"`
	Want  string `json:"want"`
	Got   string `json:"got"`
	Known bool   `json:"known"` // the run measured what the target needs
	Met   bool   `json:"met"`
}

// failed reports whether a round failed.
func (r *results) failed() bool {
	for _, rr := range r.Rounds {
		if rr.Error != "" {
			return true
		}
	}
	return false
}

// phase returns round R's phase name, or nil.
func (r *results) phase(replicas int, name string) *phase {
	for i := range r.Rounds {
		if r.Rounds[i].Replicas != replicas {
			continue
		}
		for j := range r.Rounds[i].Phases {
			if p := &r.Rounds[i].Phases[j]; p.Name == name && p.Finished {
				return p
			}
		}
	}
	return nil
}

func seconds(d time.Duration) float64 { return d.Seconds() }
