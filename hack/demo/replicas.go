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
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

const (
	// replicaReadyTimeout bounds how long a manager may take to serve /readyz.
	replicaReadyTimeout = time.Minute
	// replicaWorkers is each replica's --max-concurrent-reconciles.
	replicaWorkers = 8
)

// scrapeClient reads the replicas' metrics.
var scrapeClient = &http.Client{Timeout: 10 * time.Second}

// replica is one manager process with its metrics and probe endpoints.
type replica struct {
	proc       *proc
	metricsURL string
	readyzURL  string
}

// startReplicas starts n managers from bin against kubeconfig, each with its
// own metrics and probe ports, and waits until every one is ready.
func startReplicas(ctx context.Context, sup *supervisor, bin, kubeconfig string, n int) ([]*replica, error) {
	replicas := make([]*replica, 0, n)
	for i := range n {
		r, err := startReplica(sup, bin, kubeconfig, fmt.Sprintf("manager-%d", i+1))
		if err != nil {
			return replicas, err
		}
		replicas = append(replicas, r)
	}
	for _, r := range replicas {
		if err := waitReady(ctx, r.proc, r.readyzURL, replicaReadyTimeout); err != nil {
			return replicas, err
		}
	}
	return replicas, nil
}

func startReplica(sup *supervisor, bin, kubeconfig, name string) (*replica, error) {
	metricsPort, err := freePort()
	if err != nil {
		return nil, err
	}
	probePort, err := freePort()
	if err != nil {
		return nil, err
	}
	metricsAddr := "127.0.0.1:" + strconv.Itoa(metricsPort)
	probeAddr := "127.0.0.1:" + strconv.Itoa(probePort)
	p, err := sup.start(name, bin,
		"--kubeconfig", kubeconfig,
		"--metrics-bind-address", metricsAddr, "--metrics-secure=false",
		"--health-probe-bind-address", probeAddr,
		"--max-concurrent-reconciles", strconv.Itoa(replicaWorkers))
	if err != nil {
		return nil, err
	}
	return &replica{proc: p, metricsURL: "http://" + metricsAddr + "/metrics", readyzURL: "http://" + probeAddr + "/readyz"}, nil
}

// name is the replica's process name, e.g. manager-1.
func (r *replica) name() string { return r.proc.name }

// scrape reads the replica's listkeeper metrics.
func (r *replica) scrape(ctx context.Context) (replicaMetrics, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.metricsURL, nil)
	if err != nil {
		return replicaMetrics{}, err
	}
	resp, err := scrapeClient.Do(req)
	if err != nil {
		return replicaMetrics{}, fmt.Errorf("scrape %s: %w", r.name(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return replicaMetrics{}, fmt.Errorf("scrape %s: %s", r.name(), resp.Status)
	}
	samples, err := parseMetrics(resp.Body)
	if err != nil {
		return replicaMetrics{}, fmt.Errorf("scrape %s: %w", r.name(), err)
	}
	return metricsFrom(samples), nil
}

// procsOf returns the replicas' processes.
func procsOf(replicas []*replica) []*proc {
	out := make([]*proc, len(replicas))
	for i, r := range replicas {
		out[i] = r.proc
	}
	return out
}
