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
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// Defaults of ManagerOptions.
const (
	// DefaultManagerReady bounds how long a manager may take to serve
	// /readyz.
	DefaultManagerReady = time.Minute
	// DefaultManagerWorkers is each manager's --max-concurrent-reconciles.
	DefaultManagerWorkers = 8
	// scrapeBeforeStop bounds the scrape before a stop or a kill.
	scrapeBeforeStop = 2 * time.Second
)

// ManagerOptions configure the manager replicas.
type ManagerOptions struct {
	// Bin is the manager binary. Required.
	Bin string
	// Kubeconfig is the kubeconfig file of the cluster. Required.
	Kubeconfig string
	// Workers is --max-concurrent-reconciles; default
	// DefaultManagerWorkers.
	Workers int
	// Args are extra flags, e.g. --batch-interval=100ms.
	Args []string
	// ReadyTimeout bounds the wait for /readyz; default
	// DefaultManagerReady.
	ReadyTimeout time.Duration
}

// Manager is one manager replica: a process with its own metrics and probe
// ports, serving metrics over plain HTTP. It runs with POD_NAME set to its
// name, so its membership identity, and the name of its Lease, start with
// that name (see MemberLease.Of). It is safe for concurrent use.
type Manager struct {
	name string
	sup  *Supervisor
	opts ManagerOptions

	mu         sync.Mutex
	proc       *Proc
	metricsURL string
	readyzURL  string
	restarts   int
	past       ManagerMetrics // summed metrics of the processes before this one
	signalled  time.Time      // when the last stop or kill signal was sent
}

// StartManagers starts n managers named manager-1 onwards and waits until
// every one is ready. It returns those it started even on error.
func StartManagers(ctx context.Context, sup *Supervisor, opts ManagerOptions, n int) ([]*Manager, error) {
	managers := make([]*Manager, 0, n)
	for i := range n {
		m, err := NewManager(sup, opts, fmt.Sprintf("manager-%d", i+1))
		if err != nil {
			return managers, err
		}
		if err := m.start(); err != nil {
			return managers, err
		}
		managers = append(managers, m)
	}
	for _, m := range managers {
		if err := m.WaitReady(ctx); err != nil {
			return managers, err
		}
	}
	return managers, nil
}

// NewManager returns a replica called name that is not started yet; Start
// starts it.
func NewManager(sup *Supervisor, opts ManagerOptions, name string) (*Manager, error) {
	if opts.Bin == "" || opts.Kubeconfig == "" {
		return nil, errors.New("ManagerOptions need Bin and Kubeconfig")
	}
	opts.Workers = orDefault(opts.Workers, DefaultManagerWorkers)
	opts.ReadyTimeout = orDefault(opts.ReadyTimeout, DefaultManagerReady)
	return &Manager{name: name, sup: sup, opts: opts}, nil
}

// Start starts the replica and waits until it is ready.
func (m *Manager) Start(ctx context.Context) error {
	if err := m.start(); err != nil {
		return err
	}
	return m.WaitReady(ctx)
}

// start starts the process on fresh ports, without waiting.
func (m *Manager) start() error {
	metricsAddr, err := FreeAddr()
	if err != nil {
		return err
	}
	probeAddr, err := FreeAddr()
	if err != nil {
		return err
	}
	args := append([]string{
		"--kubeconfig", m.opts.Kubeconfig,
		"--metrics-bind-address", metricsAddr, "--metrics-secure=false",
		"--health-probe-bind-address", probeAddr,
		"--max-concurrent-reconciles", strconv.Itoa(m.opts.Workers),
	}, m.opts.Args...)
	p, err := m.sup.StartEnv(m.name, []string{"POD_NAME=" + m.name}, m.opts.Bin, args...)
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.proc = p
	m.metricsURL = "http://" + metricsAddr + "/metrics"
	m.readyzURL = "http://" + probeAddr + "/readyz"
	m.mu.Unlock()
	return nil
}

// WaitReady waits until the replica's /readyz answers 200 (its caches are
// synced), bounded by ManagerOptions.ReadyTimeout.
func (m *Manager) WaitReady(ctx context.Context) error {
	m.mu.Lock()
	p, url := m.proc, m.readyzURL
	m.mu.Unlock()
	if p == nil {
		return fmt.Errorf("%s was never started", m.name)
	}
	return WaitReady(ctx, p, url, m.opts.ReadyTimeout)
}

// Name is the replica's name, e.g. manager-1.
func (m *Manager) Name() string { return m.name }

// Proc is the current process, nil before the first start.
func (m *Manager) Proc() *Proc {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.proc
}

// MetricsURL is the current process's metrics endpoint.
func (m *Manager) MetricsURL() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.metricsURL
}

// Restarts is how often the replica was restarted.
func (m *Manager) Restarts() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.restarts
}

// Scrape reads the replica's metrics, summed over its processes since the
// first start (see the package doc for what a kill loses).
func (m *Manager) Scrape(ctx context.Context) (ManagerMetrics, error) {
	cur, err := m.scrapeCurrent(ctx)
	if err != nil {
		return ManagerMetrics{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.past.Add(cur), nil
}

// scrapeCurrent reads the current process's metrics.
func (m *Manager) scrapeCurrent(ctx context.Context) (ManagerMetrics, error) {
	body, err := get(ctx, m.MetricsURL(), nil)
	if err != nil {
		return ManagerMetrics{}, fmt.Errorf("scrape %s: %w", m.name, err)
	}
	defer func() { _ = body.Close() }()
	samples, err := ParseMetrics(body)
	if err != nil {
		return ManagerMetrics{}, fmt.Errorf("scrape %s: %w", m.name, err)
	}
	return MetricsFrom(samples), nil
}

// Stop stops the replica gracefully (SIGTERM), after scraping it.
func (m *Manager) Stop() { m.end((*Proc).Stop) }

// Kill kills the replica with SIGKILL, right after scraping it.
func (m *Manager) Kill() { m.end((*Proc).Kill) }

func (m *Manager) end(how func(*Proc)) {
	p := m.Proc()
	if p == nil || p.Exited() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), scrapeBeforeStop)
	last, err := m.scrapeCurrent(ctx)
	cancel()
	m.mu.Lock()
	m.signalled = time.Now()
	m.mu.Unlock()
	how(p)
	if err == nil {
		m.mu.Lock()
		m.past = m.past.Add(last)
		m.mu.Unlock()
	}
}

// Pause stops the replica's process with SIGSTOP (see Proc.Pause); it
// does not count as a stop or a kill (Signalled).
func (m *Manager) Pause() error {
	p := m.Proc()
	if p == nil {
		return fmt.Errorf("%s was never started", m.name)
	}
	return p.Pause()
}

// Resume continues the paused replica's process with SIGCONT.
func (m *Manager) Resume() error {
	p := m.Proc()
	if p == nil {
		return fmt.Errorf("%s was never started", m.name)
	}
	return p.Resume()
}

// Signalled returns when the replica's process was last sent SIGTERM or
// SIGKILL by Stop, Kill or Restart (after their scrape, so a caller can
// time what follows the signal); zero before.
func (m *Manager) Signalled() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.signalled
}

// Restart stops the replica if it runs, starts it again with the same
// flags on fresh ports and waits until it is ready.
func (m *Manager) Restart(ctx context.Context) error {
	m.Stop()
	m.mu.Lock()
	m.restarts++
	m.mu.Unlock()
	return m.Start(ctx)
}

// StopManagers stops the replicas in parallel.
func StopManagers(managers ...*Manager) {
	var wg sync.WaitGroup
	for _, m := range managers {
		if m != nil {
			wg.Go(m.Stop)
		}
	}
	wg.Wait()
}

// ScrapeAll reads every replica's metrics. A replica that cannot be read
// gets nil, and the first such error is returned.
func ScrapeAll(ctx context.Context, managers []*Manager) ([]*ManagerMetrics, error) {
	out := make([]*ManagerMetrics, len(managers))
	var first error
	for i, m := range managers {
		mm, err := m.Scrape(ctx)
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		out[i] = &mm
	}
	return out, first
}
