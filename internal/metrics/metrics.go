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

// Package metrics defines listkeeper's Prometheus metrics and registers them
// on controller-runtime's registry, so the manager's metrics endpoint serves
// them beside the controller metrics. The names are exported constants: the
// alert rules and the dashboard (internal/monitoring) refer to them, and a
// test checks that every name they use is one the manager really exports.
package metrics

import (
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/version"
)

// Names of the process-wide metrics.
const (
	HTTPRequestsName     = "listkeeper_http_requests_total"
	ListWritesName       = "listkeeper_list_writes_total"
	BatchSizeName        = "listkeeper_batch_size"
	ChangeDurationName   = "listkeeper_change_duration_seconds"
	RequestDurationName  = "listkeeper_list_request_duration_seconds"
	BuildInfoName        = "listkeeper_build_info"
	FinalizerAtBirthName = "listkeeper_finalizer_at_birth"
	// MemoryBudgetName, MemoryReservedName and MemoryReservedHighName are
	// the replica's memory budget for list documents (--memory-budget-bytes
	// or derived from GOMEMLIMIT), the bytes of it reserved now (documents
	// cached and answers being read), and the most ever reserved at once.
	MemoryBudgetName       = "listkeeper_memory_budget_bytes"
	MemoryReservedName     = "listkeeper_memory_reserved_bytes"
	MemoryReservedHighName = "listkeeper_memory_reserved_high_water_bytes"
)

// Names of the per-list gauges (labels namespace and name; ListReadyName
// also reason). The ExternalList controller's collector computes them at
// scrape time; only the replica that owns a list exports its series.
const (
	ListReadyName                   = "listkeeper_list_ready"
	ListItemsName                   = "listkeeper_list_items"
	ListEntriesName                 = "listkeeper_list_entries"
	ListForeignItemsName            = "listkeeper_list_foreign_items"
	ListLastSyncName                = "listkeeper_list_last_sync_timestamp_seconds"
	ListEntriesPendingName          = "listkeeper_list_entries_pending"
	ListEntriesStuckTerminatingName = "listkeeper_list_entries_stuck_terminating"
)

// Label names.
const (
	LabelMethod    = "method"
	LabelCode      = "code"
	LabelResult    = "result"
	LabelNamespace = "namespace"
	LabelName      = "name"
	LabelReason    = "reason"
	LabelKind      = "kind"
)

var (
	// HTTPRequests counts HTTP attempts to list servers by method and status
	// code ("0" when no response arrived).
	HTTPRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: HTTPRequestsName,
		Help: "HTTP requests to list servers, by list (namespace, name, kind of the list whose claim the client serves; namespace \"\" for a ClusterExternalList), method and status code (0: no response).",
	}, []string{LabelNamespace, LabelName, LabelKind, LabelMethod, LabelCode})

	// ListWrites counts write decisions by result: written, unchanged,
	// conflict (412), ambiguous (no answer to a PUT) and error.
	ListWrites = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: ListWritesName,
		Help: "Read-modify-write outcomes by list (namespace, name, kind): written, unchanged, conflict (412), ambiguous, error.",
	}, []string{LabelNamespace, LabelName, LabelKind, LabelResult})

	// BatchSize observes how many changes each PUT carries.
	BatchSize = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    BatchSizeName,
		Help:    "Changes combined into one list write.",
		Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024},
	})

	// ChangeDuration observes the time from submitting a change to its
	// commit.
	ChangeDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    ChangeDurationName,
		Help:    "Time from submitting a change to its commit on the list.",
		Buckets: prometheus.ExponentialBuckets(0.001, 2, 16),
	})

	// RequestDuration observes the time from sending a request to a list
	// server until its response headers arrived (or it failed), by method.
	RequestDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    RequestDurationName,
		Help:    "Latency of HTTP requests to list servers until the response headers (or the failure), by method.",
		Buckets: prometheus.ExponentialBuckets(0.005, 2, 14),
	}, []string{LabelMethod})

	// BuildInfo is 1, labelled with the build's version, revision and Go
	// release (internal/version).
	BuildInfo = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: BuildInfoName,
		Help: "Always 1; the labels carry the manager's version, source revision and Go release.",
	}, []string{"version", "revision", "goversion"})

	// FinalizerAtBirth is 1 while the API server adds the cleanup
	// finalizer to every ListEntry on CREATE (the MutatingAdmissionPolicy
	// shipped with the install is active, as internal/finalizerpolicy
	// detects it), else 0: then the operator patches the finalizer on
	// itself.
	FinalizerAtBirth = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: FinalizerAtBirthName,
		Help: "1 when the API server adds the cleanup finalizer to every ListEntry at creation (the MutatingAdmissionPolicy is active) and the operator skips its own finalizer patch; 0 when the operator patches it on itself (no policy, or not known yet).",
	})
)

// The memory budget's gauges: see ObserveBudget.
var (
	MemoryBudget = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: MemoryBudgetName,
		Help: "The replica's memory budget for list documents, in bytes: what the documents its list clients cache and the answers they read may reserve together (--memory-budget-bytes, or half of GOMEMLIMIT).",
	})
	MemoryReserved = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: MemoryReservedName,
		Help: "Bytes of the memory budget reserved now, by cached list documents and answers being read.",
	})
	MemoryReservedHigh = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: MemoryReservedHighName,
		Help: "The most bytes of the memory budget ever reserved at once since the replica started.",
	})
)

// ObserveBudget makes the memory budget's gauges follow b.
func ObserveBudget(b *etagclient.Budget) {
	MemoryBudget.Set(float64(b.Limit()))
	var high atomic.Int64
	b.OnChange(func(reserved int64) {
		MemoryReserved.Set(float64(reserved))
		if reserved > high.Load() {
			high.Store(reserved)
			MemoryReservedHigh.Set(float64(reserved))
		}
	})
}

// Descriptions of the per-list gauges, for the collector that computes
// them.
var (
	listLabels = []string{LabelNamespace, LabelName}

	// ListReadyDesc: 1 when the ExternalList's Ready condition is True,
	// else 0; reason is the condition's reason. One series per list.
	ListReadyDesc = prometheus.NewDesc(ListReadyName,
		"1 when the ExternalList is Ready, else 0; reason is the Ready condition's reason.",
		[]string{LabelNamespace, LabelName, LabelReason}, nil)
	// ListItemsDesc: status.itemCount, the IDs on the list as last read.
	ListItemsDesc = prometheus.NewDesc(ListItemsName,
		"IDs on the list as last read or written (status.itemCount).", listLabels, nil)
	// ListEntriesDesc: live (not deleting) ListEntries of the list.
	ListEntriesDesc = prometheus.NewDesc(ListEntriesName,
		"Live (not deleting) ListEntries that refer to the ExternalList.", listLabels, nil)
	// ListForeignItemsDesc: status.foreignItemCount.
	ListForeignItemsDesc = prometheus.NewDesc(ListForeignItemsName,
		"IDs on the list that no live ListEntry of the document holds (status.foreignItemCount).", listLabels, nil)
	// ListLastSyncDesc: status.lastSyncTime as Unix seconds; absent before
	// the first successful read.
	ListLastSyncDesc = prometheus.NewDesc(ListLastSyncName,
		"When the list's last resync (read, compare, correct drift) succeeded (status.lastSyncTime), in Unix seconds.", listLabels, nil)
	// ListEntriesPendingDesc: live entries whose Synced condition is not
	// True.
	ListEntriesPendingDesc = prometheus.NewDesc(ListEntriesPendingName,
		"Live ListEntries whose Synced condition is not True: their ID is not known to be on the list.", listLabels, nil)
	// ListEntriesStuckTerminatingDesc: entries deleting for longer than the
	// manager's --stuck-terminating-after.
	ListEntriesStuckTerminatingDesc = prometheus.NewDesc(ListEntriesStuckTerminatingName,
		"ListEntries that have been deleting for longer than --stuck-terminating-after.", listLabels, nil)
)

func init() {
	ctrlmetrics.Registry.MustRegister(HTTPRequests, ListWrites, BatchSize, ChangeDuration, RequestDuration, BuildInfo, FinalizerAtBirth,
		MemoryBudget, MemoryReserved, MemoryReservedHigh)
	BuildInfo.WithLabelValues(version.Version, version.Revision, version.GoVersion()).Set(1)
}

// writeResults are every result of listkeeper_list_writes_total; a list's
// series are created at zero for each, so that a rate() exists from the
// start.
var writeResults = []etagclient.WriteResult{etagclient.WriteWritten, etagclient.WriteUnchanged,
	etagclient.WriteConflict, etagclient.WriteAmbiguous, etagclient.WriteError}

// Observer feeds the process-wide metrics (latencies, batch sizes) from
// the ETag clients; ListObserver feeds the per-list counters. It is safe
// for concurrent use.
type Observer struct{}

var _ etagclient.Observer = Observer{}

// Request implements etagclient.Observer.
func (Observer) Request(method string, _ int, d time.Duration) {
	RequestDuration.WithLabelValues(method).Observe(d.Seconds())
}

// Write implements etagclient.Observer; ListObserver counts writes.
func (Observer) Write(etagclient.WriteResult) {}

// Batch implements etagclient.Observer.
func (Observer) Batch(n int) { BatchSize.Observe(float64(n)) }

// Committed implements etagclient.Observer.
func (Observer) Committed(d time.Duration) { ChangeDuration.Observe(d.Seconds()) }

// Wrote implements etagclient.Observer: the audit log of commits is kept
// by the controller (it knows which lists a client serves); a commit adds
// nothing to the process-wide metrics.
func (Observer) Wrote(etagclient.Commit) {}

// List names a list in the per-list metrics.
type List struct{ Namespace, Name, Kind string }

// ListObserver counts one client's requests and write outcomes under the
// list it serves (listkeeper_http_requests_total,
// listkeeper_list_writes_total). The list can change (SetList): the list
// that holds a document's claim can change while its client stays. It is
// safe for concurrent use.
type ListObserver struct {
	etagclient.NopObserver
	list atomic.Pointer[List]
}

var _ etagclient.Observer = (*ListObserver)(nil)

// SetList makes o count under l from now on, and creates l's write series
// at zero.
func (o *ListObserver) SetList(l List) {
	if old := o.list.Swap(&l); old != nil && *old == l {
		return
	}
	for _, r := range writeResults {
		ListWrites.WithLabelValues(l.Namespace, l.Name, l.Kind, string(r))
	}
}

// Request implements etagclient.Observer.
func (o *ListObserver) Request(method string, code int, _ time.Duration) {
	if l := o.list.Load(); l != nil {
		HTTPRequests.WithLabelValues(l.Namespace, l.Name, l.Kind, method, strconv.Itoa(code)).Inc()
	}
}

// Write implements etagclient.Observer.
func (o *ListObserver) Write(r etagclient.WriteResult) {
	if l := o.list.Load(); l != nil {
		ListWrites.WithLabelValues(l.Namespace, l.Name, l.Kind, string(r)).Inc()
	}
}

// ForgetList drops the per-list counters of a list that is gone, so that
// its series go with it.
func ForgetList(l List) {
	labels := prometheus.Labels{LabelNamespace: l.Namespace, LabelName: l.Name, LabelKind: l.Kind}
	HTTPRequests.DeletePartialMatch(labels)
	ListWrites.DeletePartialMatch(labels)
}
