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

package harness

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"
)

// The manager's metrics the harness reads (internal/metrics and
// controller-runtime).
const (
	MetricRequests   = "listkeeper_http_requests_total"
	MetricWrites     = "listkeeper_list_writes_total"
	MetricBatchSize  = "listkeeper_batch_size"
	MetricReconciles = "controller_runtime_reconcile_total"
	MetricCPU        = "process_cpu_seconds_total"
	// MetricAPIClient is client-go's count of the process's own requests
	// to the Kubernetes API server, by code, host and method, which
	// controller-runtime exposes.
	MetricAPIClient = "rest_client_requests_total"
)

// Sample is one line of the Prometheus text exposition format.
type Sample struct {
	Name   string
	Labels map[string]string
	Value  float64
}

// ReconcileKey names a series of controller_runtime_reconcile_total.
type ReconcileKey struct {
	Controller string // e.g. listentry, externallist
	Result     string // success, error, requeue, requeue_after
}

// ManagerMetrics are one replica's counters, as read or as the difference
// of two reads. The zero value is ready to use.
type ManagerMetrics struct {
	Requests  float64 // HTTP requests to list servers, any code
	Conflicts float64 // of which answered 412 Precondition Failed
	Writes    float64 // list writes with result "written"
	// LostWrites are the list writes with result "conflict": writes that
	// lost a race to another writer, whatever the store answered (a 412,
	// S3's 409, WAF's WAFOptimisticLockException).
	LostWrites float64
	Batches    float64 // observations of the batch size histogram (PUTs)
	Changes    float64 // sum of the batch sizes (changes carried by PUTs)
	// Reconciles counts reconciles by controller and result.
	Reconciles map[ReconcileKey]float64
	// CPUSeconds is the CPU time the process used (user and system).
	CPUSeconds float64
	// APIRequests counts the replica's own requests to the Kubernetes API
	// server (rest_client_requests_total) by HTTP method: every client of
	// the process, so the controllers' reads and writes, events, and the
	// membership's Lease reads and renewals; a watch counts once, when it
	// is opened.
	APIRequests map[string]float64
	// APIConflicts are those answered 409 Conflict.
	APIConflicts float64
}

// MetricsFrom picks the counters out of a scrape.
func MetricsFrom(samples []Sample) ManagerMetrics {
	var m ManagerMetrics
	for _, s := range samples {
		switch {
		case s.Name == MetricRequests:
			m.Requests += s.Value
			if s.Labels["code"] == "412" {
				m.Conflicts += s.Value
			}
		case s.Name == MetricWrites && s.Labels["result"] == "written":
			m.Writes += s.Value
		case s.Name == MetricWrites && s.Labels["result"] == "conflict":
			m.LostWrites += s.Value
		case s.Name == MetricBatchSize+"_count":
			m.Batches += s.Value
		case s.Name == MetricBatchSize+"_sum":
			m.Changes += s.Value
		case s.Name == MetricCPU:
			m.CPUSeconds += s.Value
		case s.Name == MetricAPIClient:
			if m.APIRequests == nil {
				m.APIRequests = map[string]float64{}
			}
			m.APIRequests[s.Labels["method"]] += s.Value
			if s.Labels["code"] == "409" {
				m.APIConflicts += s.Value
			}
		case s.Name == MetricReconciles:
			if m.Reconciles == nil {
				m.Reconciles = map[ReconcileKey]float64{}
			}
			m.Reconciles[ReconcileKey{Controller: s.Labels["controller"], Result: s.Labels["result"]}] += s.Value
		}
	}
	return m
}

// Sub returns m - o, the counts between two scrapes.
func (m ManagerMetrics) Sub(o ManagerMetrics) ManagerMetrics {
	return m.combine(o, -1)
}

// Add returns m + o.
func (m ManagerMetrics) Add(o ManagerMetrics) ManagerMetrics {
	return m.combine(o, 1)
}

func (m ManagerMetrics) combine(o ManagerMetrics, sign float64) ManagerMetrics {
	out := ManagerMetrics{
		Requests: m.Requests + sign*o.Requests, Conflicts: m.Conflicts + sign*o.Conflicts,
		Writes: m.Writes + sign*o.Writes, LostWrites: m.LostWrites + sign*o.LostWrites, Batches: m.Batches + sign*o.Batches, Changes: m.Changes + sign*o.Changes,
		CPUSeconds: m.CPUSeconds + sign*o.CPUSeconds, APIConflicts: m.APIConflicts + sign*o.APIConflicts,
	}
	out.APIRequests = combineMaps(m.APIRequests, o.APIRequests, sign)
	out.Reconciles = combineMaps(m.Reconciles, o.Reconciles, sign)
	return out
}

// combineMaps returns a + sign*b, nil when both are empty.
func combineMaps[K comparable](a, b map[K]float64, sign float64) map[K]float64 {
	if len(a)+len(b) == 0 {
		return nil
	}
	out := maps.Clone(a)
	if out == nil {
		out = map[K]float64{}
	}
	for k, v := range b {
		out[k] += sign * v
	}
	return out
}

// APIRequestTotal is the number of API requests, of every method.
func (m ManagerMetrics) APIRequestTotal() float64 {
	var n float64
	for _, v := range m.APIRequests {
		n += v
	}
	return n
}

// MeanBatch is the mean number of changes per write, 0 without writes.
func (m ManagerMetrics) MeanBatch() float64 {
	if m.Batches == 0 {
		return 0
	}
	return m.Changes / m.Batches
}

// ReconcileCount returns the reconciles of controller with result, or of
// every result when result is "".
func (m ManagerMetrics) ReconcileCount(controller, result string) float64 {
	var n float64
	for k, v := range m.Reconciles {
		if k.Controller == controller && (result == "" || k.Result == result) {
			n += v
		}
	}
	return n
}

// ParseMetrics parses the Prometheus text exposition format (version
// 0.0.4): comments and blank lines are skipped, every other line is
// name[{labels}] value [timestamp].
func ParseMetrics(r io.Reader) ([]Sample, error) {
	var out []Sample
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, err := ParseSample(line)
		if err != nil {
			return nil, fmt.Errorf("metrics line %d: %w", n, err)
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

// ParseSample parses one sample line.
func ParseSample(line string) (Sample, error) {
	end := strings.IndexAny(line, "{ \t")
	if end <= 0 {
		return Sample{}, fmt.Errorf("no value in %q", line)
	}
	s := Sample{Name: line[:end], Labels: map[string]string{}}
	rest := line[end:]
	if rest[0] == '{' {
		var err error
		if s.Labels, rest, err = parseLabels(rest[1:]); err != nil {
			return Sample{}, fmt.Errorf("%s: %w", s.Name, err)
		}
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 || len(fields) > 2 {
		return Sample{}, fmt.Errorf("%s: want a value and an optional timestamp, got %q", s.Name, rest)
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return Sample{}, fmt.Errorf("%s: value: %w", s.Name, err)
	}
	s.Value = v
	return s, nil
}

// ErrMalformedLabels is returned for a label set that cannot be parsed.
var ErrMalformedLabels = errors.New("malformed labels")

// parseLabels parses name="value" pairs up to the closing brace and returns
// them with the text after the brace. Values may hold \\, \" and \n.
func parseLabels(s string) (map[string]string, string, error) {
	labels := map[string]string{}
	for {
		s = strings.TrimLeft(s, " ,")
		if s == "" {
			return nil, "", fmt.Errorf("%w: no closing brace", ErrMalformedLabels)
		}
		if s[0] == '}' {
			return labels, s[1:], nil
		}
		name, rest, ok := strings.Cut(s, "=")
		if !ok || !strings.HasPrefix(rest, `"`) {
			return nil, "", fmt.Errorf("%w: want name=\"value\" at %q", ErrMalformedLabels, s)
		}
		value, rest, err := unquote(rest[1:])
		if err != nil {
			return nil, "", err
		}
		labels[strings.TrimSpace(name)] = value
		s = rest
	}
}

// unquote reads a label value up to its closing quote and returns it with
// the text after the quote.
func unquote(s string) (string, string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), s[i+1:], nil
		case '\\':
			if i+1 == len(s) {
				return "", "", fmt.Errorf("%w: dangling escape", ErrMalformedLabels)
			}
			i++
			if s[i] == 'n' {
				b.WriteByte('\n')
			} else {
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", "", fmt.Errorf("%w: unterminated value", ErrMalformedLabels)
}
