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

package finalizerpolicy

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/listkeeper/listkeeper/internal/metrics"
)

// DefaultInterval is the default of Detector.Interval: a policy installed
// or removed after the manager started is seen within a minute.
const DefaultInterval = time.Minute

// DefaultProbeTimeout is the default of Detector.Timeout.
const DefaultProbeTimeout = 10 * time.Second

// Detector probes (Probe) at start and every Interval whether the API
// server adds the cleanup finalizer to every ListEntry at creation. Active
// reports the last outcome; it is false until a probe has seen the
// finalizer, and after a probe that failed, so that the operator falls back
// to patching the finalizer on itself whenever it cannot tell. Every probe
// sets the gauge metrics.FinalizerAtBirth, and each change of state is
// logged once.
//
// A Detector is a manager Runnable that runs on every replica
// (NeedLeaderElection is false). Active is safe for concurrent use; Start
// must be called once.
type Detector struct {
	// Client makes the dry-run creates. Required.
	Client client.Client
	// Namespace is where the probe's ListEntry is dry-run created: one the
	// operator serves and may create ListEntries in. Required.
	Namespace string
	// Interval is the time between probes. Default: DefaultInterval.
	Interval time.Duration
	// Timeout bounds one probe. Default: DefaultProbeTimeout.
	Timeout time.Duration
	// Log receives a record on each change of state. Default: none.
	Log logr.Logger

	active atomic.Bool
	state  state // the last probe's outcome; Start's goroutine only
}

var (
	_ manager.Runnable               = (*Detector)(nil)
	_ manager.LeaderElectionRunnable = (*Detector)(nil)
)

// state is what the last probe said.
type state int

const (
	stateUnknown  state = iota // no probe yet
	stateActive                // the finalizer came back
	stateInactive              // the entry came back without it
	stateFailing               // the probe failed
)

// Active reports whether the last probe saw the API server add the cleanup
// finalizer at creation. It is false before the first probe and after a
// failed one.
func (d *Detector) Active() bool { return d.active.Load() }

// NeedLeaderElection implements manager.LeaderElectionRunnable: every
// replica decides for itself.
func (d *Detector) NeedLeaderElection() bool { return false }

// Start implements manager.Runnable: it probes at once and then every
// Interval until ctx is done.
func (d *Detector) Start(ctx context.Context) error {
	if d.Client == nil || d.Namespace == "" {
		return errors.New("finalizerpolicy.Detector needs a Client and a Namespace")
	}
	interval := d.Interval
	if interval <= 0 {
		interval = DefaultInterval
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		d.probe(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// probe runs one Probe and records its outcome.
func (d *Detector) probe(ctx context.Context) {
	timeout := d.Timeout
	if timeout <= 0 {
		timeout = DefaultProbeTimeout
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	active, err := Probe(pctx, d.Client, d.Namespace)
	if err != nil && ctx.Err() != nil {
		return // stopping: the manager's shutdown is no failure of the probe
	}
	d.record(active, err)
}

// record makes the outcome of a probe the Detector's state: Active, the
// gauge, and a log record when the state changed.
func (d *Detector) record(active bool, err error) {
	next := stateInactive
	switch {
	case err != nil:
		next, active = stateFailing, false
	case active:
		next = stateActive
	}
	d.active.Store(active)
	if active {
		metrics.FinalizerAtBirth.Set(1)
	} else {
		metrics.FinalizerAtBirth.Set(0)
	}
	if next == d.state {
		return
	}
	d.state = next
	log := d.Log.WithValues("namespace", d.Namespace)
	switch next {
	case stateActive:
		log.Info("the API server adds the cleanup finalizer to every ListEntry at creation (MutatingAdmissionPolicy active): the operator skips its own finalizer patch")
	case stateInactive:
		log.Info("the API server does not add the cleanup finalizer at creation (no MutatingAdmissionPolicy; it needs Kubernetes 1.36 or later): the operator patches the finalizer on every new ListEntry itself")
	case stateFailing:
		log.Error(err, "cannot tell whether the API server adds the cleanup finalizer at creation: the operator patches the finalizer on itself until a probe succeeds")
	}
}
