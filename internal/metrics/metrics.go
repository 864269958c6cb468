// Package metrics defines listkeeper's Prometheus metrics and registers them
// on controller-runtime's registry, so the manager's metrics endpoint serves
// them beside the controller metrics.
package metrics

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

var (
	// HTTPRequests counts HTTP attempts to list servers by method and status
	// code ("0" when no response arrived).
	HTTPRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "listkeeper_http_requests_total",
		Help: "HTTP requests to list servers, by method and status code (0: no response).",
	}, []string{"method", "code"})

	// ListWrites counts write decisions by result: written, unchanged,
	// conflict (412), ambiguous (no answer to a PUT) and error.
	ListWrites = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "listkeeper_list_writes_total",
		Help: "Read-modify-write outcomes: written, unchanged, conflict (412), ambiguous, error.",
	}, []string{"result"})

	// BatchSize observes how many changes each PUT carries.
	BatchSize = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "listkeeper_batch_size",
		Help:    "Changes combined into one list write.",
		Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024},
	})

	// ChangeDuration observes the time from submitting a change to its
	// commit.
	ChangeDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "listkeeper_change_duration_seconds",
		Help:    "Time from submitting a change to its commit on the list.",
		Buckets: prometheus.ExponentialBuckets(0.001, 2, 16),
	})
)

func init() {
	ctrlmetrics.Registry.MustRegister(HTTPRequests, ListWrites, BatchSize, ChangeDuration)
	// Pre-create the series users alert on, so a rate() exists from the start.
	for _, r := range []etagclient.WriteResult{etagclient.WriteWritten, etagclient.WriteUnchanged,
		etagclient.WriteConflict, etagclient.WriteAmbiguous, etagclient.WriteError} {
		ListWrites.WithLabelValues(string(r))
	}
}

// Observer feeds the metrics from the ETag clients. It is safe for
// concurrent use.
type Observer struct{}

var _ etagclient.Observer = Observer{}

// Request implements etagclient.Observer.
func (Observer) Request(method string, code int, _ time.Duration) {
	HTTPRequests.WithLabelValues(method, strconv.Itoa(code)).Inc()
}

// Write implements etagclient.Observer.
func (Observer) Write(r etagclient.WriteResult) { ListWrites.WithLabelValues(string(r)).Inc() }

// Batch implements etagclient.Observer.
func (Observer) Batch(n int) { BatchSize.Observe(float64(n)) }

// Committed implements etagclient.Observer.
func (Observer) Committed(d time.Duration) { ChangeDuration.Observe(d.Seconds()) }

// Wrote implements etagclient.Observer.
func (Observer) Wrote(etagclient.Commit) {}
