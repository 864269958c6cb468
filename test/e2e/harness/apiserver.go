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
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"k8s.io/client-go/rest"
)

// MetricAPIRequests is the API server's request counter.
const MetricAPIRequests = "apiserver_request_total"

// APIServerMetrics are the kube-apiserver's counters, as read or as the
// difference of two reads.
type APIServerMetrics struct {
	// Requests counts requests by resource and verb, keyed
	// "resource verb" or "resource/subresource verb", e.g.
	// "listentries PATCH" or "listentries/status PATCH"; WATCH and
	// WATCHLIST count watches opened, not events.
	Requests map[string]float64
	// CPUSeconds is the CPU time the API server used.
	CPUSeconds float64
}

// ScrapeAPIServer reads the kube-apiserver's /metrics as the cluster's
// admin user.
func (c *Cluster) ScrapeAPIServer(ctx context.Context) (APIServerMetrics, error) {
	hc, err := rest.HTTPClientFor(c.Config)
	if err != nil {
		return APIServerMetrics{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(c.Config.Host, "/")+"/metrics", nil)
	if err != nil {
		return APIServerMetrics{}, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return APIServerMetrics{}, fmt.Errorf("scrape kube-apiserver: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return APIServerMetrics{}, fmt.Errorf("scrape kube-apiserver: %s", resp.Status)
	}
	samples, err := ParseMetrics(resp.Body)
	if err != nil {
		return APIServerMetrics{}, fmt.Errorf("scrape kube-apiserver: %w", err)
	}
	return APIServerMetricsFrom(samples), nil
}

// APIServerMetricsFrom picks the API server's counters out of a scrape.
func APIServerMetricsFrom(samples []Sample) APIServerMetrics {
	m := APIServerMetrics{Requests: map[string]float64{}}
	for _, s := range samples {
		switch s.Name {
		case MetricCPU:
			m.CPUSeconds += s.Value
		case MetricAPIRequests:
			res := s.Labels["resource"]
			if sub := s.Labels["subresource"]; sub != "" {
				res += "/" + sub
			}
			m.Requests[res+" "+s.Labels["verb"]] += s.Value
		}
	}
	return m
}

// Sub returns m - o, the counts between two scrapes.
func (m APIServerMetrics) Sub(o APIServerMetrics) APIServerMetrics {
	out := APIServerMetrics{Requests: map[string]float64{}, CPUSeconds: m.CPUSeconds - o.CPUSeconds}
	for k, v := range m.Requests {
		if d := v - o.Requests[k]; d != 0 {
			out.Requests[k] = d
		}
	}
	return out
}

// RequestsTo sums the requests to resource (subresources included) whose
// verb is one of verbs, or of any verb when verbs is empty.
func (m APIServerMetrics) RequestsTo(resource string, verbs ...string) float64 {
	var n float64
	for k, v := range m.Requests {
		res, verb, _ := strings.Cut(k, " ")
		if res != resource && !strings.HasPrefix(res, resource+"/") {
			continue
		}
		if len(verbs) == 0 || slices.Contains(verbs, verb) {
			n += v
		}
	}
	return n
}
