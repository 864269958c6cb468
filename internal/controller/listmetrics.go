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

package controller

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/listconfig"
	"github.com/listkeeper/listkeeper/internal/metrics"
)

// DefaultStuckTerminatingAfter is how long a ListEntry may be deleting
// before listkeeper_list_entries_stuck_terminating counts it.
const DefaultStuckTerminatingAfter = 5 * time.Minute

// listMetricsTimeout bounds one scrape's reads of the cache.
const listMetricsTimeout = 10 * time.Second

// ListMetrics is a prometheus.Collector of the per-list gauges
// (listkeeper_list_*{namespace,name}), computed at scrape time from the
// manager's cache, so the series are always fresh and a deleted list's
// series disappear with it. Only the replica that owns an ExternalList's
// bucket exports its series: across replicas each list has one series,
// except briefly during a handover (zero or two). It is safe for concurrent
// use.
type ListMetrics struct {
	// Reader reads ExternalLists and ListEntries, normally the manager's
	// cache (ListEntries by the spec.listRef.name index).
	Reader client.Reader
	// Owner decides which lists this replica reports.
	Owner Owner
	// StuckAfter is how long an entry may be deleting before it counts as
	// stuck. Default: DefaultStuckTerminatingAfter.
	StuckAfter time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Log reports a scrape that could not read the cache.
	Log logr.Logger
}

var _ prometheus.Collector = (*ListMetrics)(nil)

// listStats are the gauges of one list.
type listStats struct {
	ready, readyReason              string
	items, foreign                  int32
	lastSync                        *metav1.Time
	live, pending, stuckTerminating int
}

// Describe implements prometheus.Collector.
func (m *ListMetrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{
		metrics.ListReadyDesc, metrics.ListItemsDesc, metrics.ListEntriesDesc, metrics.ListForeignItemsDesc,
		metrics.ListLastSyncDesc, metrics.ListEntriesPendingDesc, metrics.ListEntriesStuckTerminatingDesc,
	} {
		ch <- d
	}
}

// Collect implements prometheus.Collector. A list whose entries cannot be
// read is left out of this scrape (and logged); the others are reported.
func (m *ListMetrics) Collect(ch chan<- prometheus.Metric) {
	m.collect(ch, map[listconfig.Ref]bool{})
}

// collect reports the lists (both kinds; a ClusterExternalList with an
// empty namespace label) this replica owns that are not in seen yet, and
// adds them to seen.
func (m *ListMetrics) collect(ch chan<- prometheus.Metric, seen map[listconfig.Ref]bool) {
	ctx, cancel := context.WithTimeout(context.Background(), listMetricsTimeout)
	defer cancel()
	lists, err := allLists(ctx, m.Reader, client.UnsafeDisableDeepCopy)
	if err != nil {
		m.Log.Error(err, "per-list metrics: list the lists")
		return
	}
	now := time.Now
	if m.Now != nil {
		now = m.Now
	}
	stuckAfter := m.StuckAfter
	if stuckAfter <= 0 {
		stuckAfter = DefaultStuckTerminatingAfter
	}
	for _, l := range lists {
		ref := listconfig.RefOf(l)
		if seen[ref] || !m.Owner.Owns(m.Owner.Bucket(listBucketKey(l))) {
			continue
		}
		var entries v1alpha1.ListEntryList
		if err := m.Reader.List(ctx, &entries, client.MatchingFields{listField: ref.Key()}, client.UnsafeDisableDeepCopy); err != nil {
			m.Log.Error(err, "per-list metrics: list entries", "list", ref.String(), "namespace", ref.Namespace)
			continue
		}
		seen[ref] = true
		emitList(ch, l, statsOf(l, entries.Items, now(), stuckAfter))
	}
	m.collectOrphans(ctx, ch, lists, seen, now(), stuckAfter)
}

// collectOrphans reports entries stuck terminating whose list is gone,
// under the name they refer to: they are the ones most likely stuck
// (nothing else reports them), and the name is bounded by the lists that
// existed. A series shows only while such entries exist. The replica that
// reports them is the one that owns them (see fallbackKey).
func (m *ListMetrics) collectOrphans(ctx context.Context, ch chan<- prometheus.Metric, lists []v1alpha1.List,
	seen map[listconfig.Ref]bool, now time.Time, stuckAfter time.Duration) {
	exists := make(map[listconfig.Ref]bool, len(lists))
	for _, l := range lists {
		exists[listconfig.RefOf(l)] = true
	}
	var entries v1alpha1.ListEntryList
	if err := m.Reader.List(ctx, &entries, client.UnsafeDisableDeepCopy); err != nil {
		m.Log.Error(err, "per-list metrics: list entries")
		return
	}
	stuck := map[listconfig.Ref]int{}
	for i := range entries.Items {
		e := &entries.Items[i]
		ref := entryListRef(e)
		if isLive(e) || exists[ref] || seen[ref] || now.Sub(e.DeletionTimestamp.Time) <= stuckAfter {
			continue
		}
		if m.Owner.Owns(m.Owner.Bucket(fallbackKey(ref))) {
			stuck[ref]++
		}
	}
	for ref, n := range stuck {
		seen[ref] = true
		ch <- prometheus.MustNewConstMetric(metrics.ListEntriesStuckTerminatingDesc, prometheus.GaugeValue, float64(n), ref.Namespace, ref.Name)
	}
}

// statsOf computes a list's gauges from its status and its entries.
func statsOf(l v1alpha1.List, entries []v1alpha1.ListEntry, now time.Time, stuckAfter time.Duration) listStats {
	st := l.ListStatus()
	s := listStats{
		ready: string(metav1.ConditionUnknown), readyReason: "Unknown",
		items: st.ItemCount, foreign: st.ForeignItemCount, lastSync: st.LastSyncTime,
	}
	if c := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionReady); c != nil {
		s.ready, s.readyReason = string(c.Status), c.Reason
	}
	for i := range entries {
		e := &entries[i]
		if !isLive(e) {
			if now.Sub(e.DeletionTimestamp.Time) > stuckAfter {
				s.stuckTerminating++
			}
			continue
		}
		s.live++
		if !meta.IsStatusConditionTrue(e.Status.Conditions, v1alpha1.ConditionSynced) {
			s.pending++
		}
	}
	return s
}

func emitList(ch chan<- prometheus.Metric, l v1alpha1.List, s listStats) {
	ns, name := l.GetNamespace(), l.GetName()
	ready := 0.0
	if s.ready == string(metav1.ConditionTrue) {
		ready = 1
	}
	ch <- prometheus.MustNewConstMetric(metrics.ListReadyDesc, prometheus.GaugeValue, ready, ns, name, s.readyReason)
	ch <- prometheus.MustNewConstMetric(metrics.ListItemsDesc, prometheus.GaugeValue, float64(s.items), ns, name)
	ch <- prometheus.MustNewConstMetric(metrics.ListEntriesDesc, prometheus.GaugeValue, float64(s.live), ns, name)
	ch <- prometheus.MustNewConstMetric(metrics.ListForeignItemsDesc, prometheus.GaugeValue, float64(s.foreign), ns, name)
	ch <- prometheus.MustNewConstMetric(metrics.ListEntriesPendingDesc, prometheus.GaugeValue, float64(s.pending), ns, name)
	ch <- prometheus.MustNewConstMetric(metrics.ListEntriesStuckTerminatingDesc, prometheus.GaugeValue, float64(s.stuckTerminating), ns, name)
	if s.lastSync != nil {
		ch <- prometheus.MustNewConstMetric(metrics.ListLastSyncDesc, prometheus.GaugeValue,
			float64(s.lastSync.UnixNano())/1e9, ns, name)
	}
}

// processListMetrics is the one collector of per-list gauges on
// controller-runtime's registry. Every manager set up in the process adds
// its ListMetrics while it runs: one in production, several in tests. A
// list that two of them report (two managers of one process both owning
// it) is reported once.
var processListMetrics = &listMetricsSet{members: map[*ListMetrics]struct{}{}}

type listMetricsSet struct {
	once sync.Once
	err  error

	mu      sync.Mutex
	members map[*ListMetrics]struct{}
}

// register puts the set on controller-runtime's registry, once.
func (s *listMetricsSet) register() error {
	s.once.Do(func() {
		err := ctrlmetrics.Registry.Register(s)
		if are := (prometheus.AlreadyRegisteredError{}); errors.As(err, &are) {
			err = nil
		}
		s.err = err
	})
	return s.err
}

func (s *listMetricsSet) add(m *ListMetrics) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.members[m] = struct{}{}
}

func (s *listMetricsSet) remove(m *ListMetrics) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.members, m)
}

// Describe implements prometheus.Collector.
func (s *listMetricsSet) Describe(ch chan<- *prometheus.Desc) { (&ListMetrics{}).Describe(ch) }

// Collect implements prometheus.Collector.
func (s *listMetricsSet) Collect(ch chan<- prometheus.Metric) {
	s.mu.Lock()
	members := make([]*ListMetrics, 0, len(s.members))
	for m := range s.members {
		members = append(members, m)
	}
	s.mu.Unlock()
	seen := map[listconfig.Ref]bool{}
	for _, m := range members {
		m.collect(ch, seen)
	}
}

// listMetricsRunnable reports a manager's lists from when its cache has
// synced until it stops, on every replica (leader election or not).
type listMetricsRunnable struct{ m *ListMetrics }

// Start implements manager.Runnable.
func (r listMetricsRunnable) Start(ctx context.Context) error {
	processListMetrics.add(r.m)
	<-ctx.Done()
	processListMetrics.remove(r.m)
	return nil
}

// NeedLeaderElection implements manager.LeaderElectionRunnable.
func (listMetricsRunnable) NeedLeaderElection() bool { return false }

// addListMetrics registers the per-list gauges of mgr's lists on
// controller-runtime's registry, for as long as mgr runs.
func addListMetrics(mgr ctrl.Manager, owner Owner, stuckAfter time.Duration) error {
	if err := processListMetrics.register(); err != nil {
		return fmt.Errorf("register the per-list metrics: %w", err)
	}
	m := &ListMetrics{Reader: mgr.GetCache(), Owner: owner, StuckAfter: stuckAfter,
		Log: mgr.GetLogger().WithName("listmetrics")}
	if err := mgr.Add(listMetricsRunnable{m: m}); err != nil {
		return fmt.Errorf("add the per-list metrics: %w", err)
	}
	return nil
}
