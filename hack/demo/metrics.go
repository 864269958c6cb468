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
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The manager's metrics the demo reads (internal/metrics).
const (
	metricRequests  = "listkeeper_http_requests_total"
	metricWrites    = "listkeeper_list_writes_total"
	metricBatchSize = "listkeeper_batch_size"
)

// sample is one line of the Prometheus text exposition format.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// replicaMetrics are one replica's counters, as read or as the difference
// of two reads.
type replicaMetrics struct {
	Requests  float64 // HTTP requests to list servers, any code
	Conflicts float64 // of which answered 412 Precondition Failed
	Writes    float64 // list writes with result "written"
	Batches   float64 // observations of the batch size histogram (PUTs)
	Changes   float64 // sum of the batch sizes (changes carried by PUTs)
}

// metricsFrom picks the listkeeper counters out of a scrape.
func metricsFrom(samples []sample) replicaMetrics {
	var m replicaMetrics
	for _, s := range samples {
		switch {
		case s.name == metricRequests:
			m.Requests += s.value
			if s.labels["code"] == "412" {
				m.Conflicts += s.value
			}
		case s.name == metricWrites && s.labels["result"] == "written":
			m.Writes += s.value
		case s.name == metricBatchSize+"_count":
			m.Batches += s.value
		case s.name == metricBatchSize+"_sum":
			m.Changes += s.value
		}
	}
	return m
}

// sub returns m - o, the counts between two scrapes.
func (m replicaMetrics) sub(o replicaMetrics) replicaMetrics {
	return replicaMetrics{
		Requests: m.Requests - o.Requests, Conflicts: m.Conflicts - o.Conflicts,
		Writes: m.Writes - o.Writes, Batches: m.Batches - o.Batches, Changes: m.Changes - o.Changes,
	}
}

// add returns m + o.
func (m replicaMetrics) add(o replicaMetrics) replicaMetrics {
	return replicaMetrics{
		Requests: m.Requests + o.Requests, Conflicts: m.Conflicts + o.Conflicts,
		Writes: m.Writes + o.Writes, Batches: m.Batches + o.Batches, Changes: m.Changes + o.Changes,
	}
}

// meanBatch is the mean number of changes per write, 0 without writes.
func (m replicaMetrics) meanBatch() float64 {
	if m.Batches == 0 {
		return 0
	}
	return m.Changes / m.Batches
}

// parseMetrics parses the Prometheus text exposition format (version
// 0.0.4): comments and blank lines are skipped, every other line is
// name[{labels}] value [timestamp].
func parseMetrics(r io.Reader) ([]sample, error) {
	var out []sample
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, err := parseSample(line)
		if err != nil {
			return nil, fmt.Errorf("metrics line %d: %w", n, err)
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

// parseSample parses one sample line.
func parseSample(line string) (sample, error) {
	end := strings.IndexAny(line, "{ \t")
	if end <= 0 {
		return sample{}, fmt.Errorf("no value in %q", line)
	}
	s := sample{name: line[:end], labels: map[string]string{}}
	rest := line[end:]
	if rest[0] == '{' {
		var err error
		if s.labels, rest, err = parseLabels(rest[1:]); err != nil {
			return sample{}, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 || len(fields) > 2 {
		return sample{}, fmt.Errorf("%s: want a value and an optional timestamp, got %q", s.name, rest)
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return sample{}, fmt.Errorf("%s: value: %w", s.name, err)
	}
	s.value = v
	return s, nil
}

var errLabels = errors.New("malformed labels")

// parseLabels parses name="value" pairs up to the closing brace and returns
// them with the text after the brace. Values may hold \\, \" and \n.
func parseLabels(s string) (map[string]string, string, error) {
	labels := map[string]string{}
	for {
		s = strings.TrimLeft(s, " ,")
		if s == "" {
			return nil, "", fmt.Errorf("%w: no closing brace", errLabels)
		}
		if s[0] == '}' {
			return labels, s[1:], nil
		}
		name, rest, ok := strings.Cut(s, "=")
		if !ok || !strings.HasPrefix(rest, `"`) {
			return nil, "", fmt.Errorf("%w: want name=\"value\" at %q", errLabels, s)
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
				return "", "", fmt.Errorf("%w: dangling escape", errLabels)
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
	return "", "", fmt.Errorf("%w: unterminated value", errLabels)
}
