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

package bench

import (
	"net/http"
	"time"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// RunResult is one strategy at one grid point.
type RunResult struct {
	Strategy string `json:"strategy"`
	// Variant is the conflict policy for listkeeper, "" otherwise.
	Variant string `json:"variant,omitempty"`
	Point
	// Repeat numbers the repeats of a policy sweep run (0 in the grid).
	Repeat int `json:"repeat,omitempty"`

	// TimedOut is true when the time cap ended the run before every change
	// returned.
	TimedOut   bool    `json:"timedOut"`
	TimeCapSec float64 `json:"timeCapSec"`
	// Succeeded removals returned nil; GivenUp returned an error before the
	// cap; Unfinished were in flight or never started when the cap hit.
	Succeeded  int `json:"succeeded"`
	GivenUp    int `json:"givenUp"`
	Unfinished int `json:"unfinished"`
	// Lost counts targets reported removed that are on the final list.
	Lost int `json:"lost"`
	// TargetsLeft counts every target on the final list, lost or not.
	TargetsLeft int `json:"targetsLeft"`
	// BystandersMissing counts bystanders no longer on the list (must be 0).
	BystandersMissing int `json:"bystandersMissing"`

	Server ServerCounts `json:"server"`
	Client ClientCounts `json:"client"`
	// Product holds the listkeeper client's own counters, summed over the
	// replicas; nil for the baselines.
	Product *productStats `json:"product,omitempty"`
	// CountsMatch reports whether the server counted as many requests as
	// the clients' transports sent (and, for listkeeper, as its observer).
	CountsMatch bool `json:"countsMatch"`

	// ReqPerChange is server requests per change that returned.
	ReqPerChange float64 `json:"reqPerChange"`
	// Latency is over changes that returned (succeeded or gave up).
	Latency       Summary `json:"latency"`
	ChangesPerSec float64 `json:"changesPerSec"`
	WallSec       float64 `json:"wallSec"`
	// AvgBatch is succeeded changes per committed write.
	AvgBatch    float64 `json:"avgBatch"`
	PeakHeapMiB float64 `json:"peakHeapMiB"`
	AllocMiB    float64 `json:"allocMiB"`

	PerReplica []ReplicaResult `json:"perReplica"`
	// Stragglers is true when goroutines were still busy (for example
	// decoding a large list) stopGrace after the cap; the server was stopped
	// before the final document was read, so the figures are still exact.
	Stragglers bool `json:"stragglers,omitempty"`
	// Errors holds up to a few distinct error messages of given-up changes.
	Errors []string `json:"errors,omitempty"`
}

// Name is the strategy with its variant, for reports.
func (r RunResult) Name() string {
	if r.Variant == "" || r.Variant == "default" {
		return r.Strategy
	}
	return r.Strategy + "[" + r.Variant + "]"
}

// ServerCounts are the fake server's counters for one run.
type ServerCounts struct {
	Requests  int64 `json:"requests"`
	Gets      int64 `json:"gets"`
	Puts      int64 `json:"puts"`
	Status412 int64 `json:"status412"`
	Commits   int64 `json:"commits"`
	// NoAnswer counts requests the server never answered (the client went
	// away during the injected latency).
	NoAnswer int64 `json:"noAnswer"`
}

// ClientCounts are the attempts counted at the replicas' transports.
type ClientCounts struct {
	Requests  int64 `json:"requests"`
	Gets      int64 `json:"gets"`
	Puts      int64 `json:"puts"`
	Status412 int64 `json:"status412"`
	NoAnswer  int64 `json:"noAnswer"`
}

// ReplicaResult shows one replica, so starvation is visible.
type ReplicaResult struct {
	Index      int `json:"index"`
	Assigned   int `json:"assigned"`
	Succeeded  int `json:"succeeded"`
	GivenUp    int `json:"givenUp"`
	Unfinished int `json:"unfinished"`
	// CompletionSec is when the replica's last change returned, from the
	// start of the run.
	CompletionSec float64 `json:"completionSec"`
	Latency       Summary `json:"latency"`
	Requests      int64   `json:"requests"`
}

// fill computes the result from the replicas, the final document and the
// server's stats.
func (r *RunResult) fill(reps []*replicaRun, out outcome, st fakeapi.Stats, product *productStats, wall time.Duration) {
	var all []time.Duration
	var client reqCounts
	for i, rep := range reps {
		rep.mu.Lock()
		defer rep.mu.Unlock()
		rr := ReplicaResult{
			Index: i, Assigned: len(rep.queue), Succeeded: len(rep.succeeded), GivenUp: rep.givenUp,
			CompletionSec: rep.lastDone.Seconds(), Requests: rep.counts.total.Load(),
		}
		rr.Unfinished = rr.Assigned - rr.Succeeded - rr.GivenUp
		all = append(all, rep.lat...)
		rr.Latency = summarize(rep.lat)
		r.PerReplica = append(r.PerReplica, rr)
		r.Succeeded += rr.Succeeded
		r.GivenUp += rr.GivenUp
		r.Unfinished += rr.Unfinished
		for _, id := range rep.succeeded {
			if out.targetsLeft[id] {
				r.Lost++
			}
		}
		for e := range rep.errs {
			if len(r.Errors) < 5 {
				r.Errors = append(r.Errors, e)
			}
		}
		client.add(&rep.counts)
	}
	r.TimedOut = r.Unfinished > 0
	r.TargetsLeft = len(out.targetsLeft)
	r.BystandersMissing = out.bystandersMissed
	r.Latency = summarize(all)
	r.WallSec = wall.Seconds()
	if r.TimedOut {
		r.WallSec = min(r.WallSec, r.TimeCapSec)
	}

	for _, n := range st.Requests[http.MethodGet] {
		r.Server.Gets += n
	}
	for _, n := range st.Requests[http.MethodPut] {
		r.Server.Puts += n
	}
	r.Server.Requests = st.Total
	r.Server.Status412 = st.Count(http.MethodPut, http.StatusPreconditionFailed)
	r.Server.Commits = st.Commits
	r.Server.NoAnswer = st.CountCode(0)
	r.Client = ClientCounts{
		Requests: client.total.Load(), Gets: client.gets.Load(), Puts: client.puts.Load(),
		Status412: client.status412.Load(), NoAnswer: client.noAnswer.Load(),
	}
	r.Product = product
	r.CountsMatch = r.Server.Requests == r.Client.Requests && r.Server.Puts == r.Client.Puts &&
		r.Server.Gets == r.Client.Gets && r.Server.Status412 == r.Client.Status412 &&
		(product == nil || product.Requests == r.Client.Requests)

	if done := r.Succeeded + r.GivenUp; done > 0 {
		r.ReqPerChange = float64(r.Server.Requests) / float64(done)
	}
	if r.WallSec > 0 {
		r.ChangesPerSec = float64(r.Succeeded) / r.WallSec
	}
	if r.Server.Commits > 0 {
		r.AvgBatch = float64(r.Succeeded) / float64(r.Server.Commits)
	}
}
