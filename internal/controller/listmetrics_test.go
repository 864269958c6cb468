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
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/listconfig"
	"github.com/listkeeper/listkeeper/internal/metrics"
)

// listSeries is what a gatherer reports for the lists of one namespace:
// metric name -> "name" or "name/reason" (for listkeeper_list_ready) -> value.
type listSeries map[string]map[string]float64

func (s listSeries) get(metric, list string) (float64, bool) {
	v, ok := s[metric][list]
	return v, ok
}

// gatherLists gathers g and keeps the listkeeper_list_* series of ns.
func gatherLists(t *testing.T, g prometheus.Gatherer, ns string) listSeries {
	t.Helper()
	fams, err := g.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	out := listSeries{}
	for _, f := range fams {
		if !strings.HasPrefix(f.GetName(), "listkeeper_list_") || f.GetType() != dto.MetricType_GAUGE {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels[metrics.LabelNamespace] != ns {
				continue
			}
			key := labels[metrics.LabelName]
			if r, ok := labels[metrics.LabelReason]; ok {
				key += "/" + r
			}
			if out[f.GetName()] == nil {
				out[f.GetName()] = map[string]float64{}
			}
			out[f.GetName()][key] = m.GetGauge().GetValue()
		}
	}
	return out
}

// TestListMetrics runs the real controllers (wired by Setup, as cmd/manager
// is) against the fake list server, scrapes controller-runtime's registry
// and checks the per-list gauges of a ready list, a failing list, pending
// and stuck-terminating entries, and that a deleted list's series go.
func TestListMetrics(t *testing.T) {
	ns := newNamespace(t)
	rep := startManager(t, managerConfig{namespace: ns})
	goodPath, badPath := listPath(t, ns)+"-good", listPath(t, ns)+"-missing"
	setDoc(t, sharedLists, goodPath, []string{"x", "y"})

	good := newExternalList(ns, "good", sharedListsURL+goodPath)
	bad := newExternalList(ns, "bad", sharedListsURL+badPath) // 404, createIfMissing false
	create(t, good)
	create(t, bad)
	waitCondition(t, good, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, 30*time.Second)
	waitCondition(t, bad, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonListNotFound, 30*time.Second)

	a, b := newListEntry(ns, "a", "good", "a"), newListEntry(ns, "b", "good", "b")
	// held carries a finalizer the operator does not own: once deleted it
	// stays Terminating after the operator has removed its ID.
	held := newListEntry(ns, "held", "good", "held")
	held.Finalizers = []string{"example.com/hold"}
	pending := newListEntry(ns, "pending", "bad", "p")
	for _, e := range []*v1alpha1.ListEntry{a, b, held, pending} {
		create(t, e)
	}
	for _, e := range []*v1alpha1.ListEntry{a, b, held} {
		waitCondition(t, e, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, 30*time.Second)
	}
	deleteObj(t, held)
	waitOnList(t, sharedLists, goodPath, "", "held", false, 30*time.Second)
	eventually(t, 30*time.Second, "the operator to release held", func() error {
		if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(held), held); err != nil {
			return err
		}
		if len(held.Finalizers) != 1 || held.DeletionTimestamp.IsZero() {
			return fmt.Errorf("finalizers %v, deletion %v", held.Finalizers, held.DeletionTimestamp)
		}
		return nil
	})
	t.Cleanup(func() {
		held.Finalizers = nil
		if err := k8sClient.Update(context.Background(), held); err != nil {
			t.Logf("release held: %v", err)
		}
	})

	// The gauges follow the cache: poll until they show the state above.
	want := map[string]map[string]float64{
		metrics.ListReadyName:                   {"good/Ready": 1, "bad/ListNotFound": 0},
		metrics.ListEntriesName:                 {"good": 2, "bad": 1},
		metrics.ListEntriesPendingName:          {"good": 0, "bad": 1},
		metrics.ListEntriesStuckTerminatingName: {"good": 0, "bad": 0}, // deleting for less than 5m
		metrics.ListForeignItemsName:            {"good": 2, "bad": 0}, // the bystanders x and y
	}
	var got listSeries
	eventually(t, 30*time.Second, "the per-list gauges", func() error {
		got = gatherLists(t, ctrlmetrics.Registry, ns)
		for metric, series := range want {
			if len(got[metric]) != len(series) {
				return fmt.Errorf("%s: got %v, want %v", metric, got[metric], series)
			}
			for k, v := range series {
				if g, ok := got.get(metric, k); !ok || g != v {
					return fmt.Errorf("%s{%s}: got %v (present %t), want %v", metric, k, g, ok, v)
				}
			}
		}
		return nil
	})

	// items and last sync time are the status's, as the API server has it.
	for _, xl := range []*v1alpha1.ExternalList{good, bad} {
		if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(xl), xl); err != nil {
			t.Fatal(err)
		}
	}
	if v, _ := got.get(metrics.ListItemsName, "good"); v != float64(good.Status.ItemCount) || v < 2 {
		t.Errorf("items{good} = %v, want status.itemCount %d (at least the 2 IDs the document started with)", v, good.Status.ItemCount)
	}
	if v, ok := got.get(metrics.ListLastSyncName, "good"); !ok || good.Status.LastSyncTime == nil ||
		int64(v) != good.Status.LastSyncTime.Unix() {
		t.Errorf("last sync{good} = %v (present %t), want status.lastSyncTime %v", v, ok, good.Status.LastSyncTime)
	}
	if bad.Status.LastSyncTime == nil {
		if v, ok := got.get(metrics.ListLastSyncName, "bad"); ok {
			t.Errorf("last sync{bad} = %v, want no series for a list never synced", v)
		}
	}

	// Past the threshold, the entry held in deletion counts as stuck.
	later := &ListMetrics{Reader: rep.mgr.GetCache(), Owner: SoleOwner{},
		Now: func() time.Time { return time.Now().Add(DefaultStuckTerminatingAfter + time.Minute) }}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(later)
	stuck := gatherLists(t, reg, ns)
	if v, _ := stuck.get(metrics.ListEntriesStuckTerminatingName, "good"); v != 1 {
		t.Errorf("stuck terminating{good} %s later = %v, want 1", DefaultStuckTerminatingAfter, v)
	}
	if v, _ := stuck.get(metrics.ListEntriesStuckTerminatingName, "bad"); v != 0 {
		t.Errorf("stuck terminating{bad} = %v, want 0", v)
	}

	// A deleted list's series disappear.
	deleteObj(t, pending)
	deleteObj(t, bad)
	waitGone(t, bad, 30*time.Second)
	eventually(t, 30*time.Second, "the deleted list's series to go", func() error {
		got := gatherLists(t, ctrlmetrics.Registry, ns)
		var left []string
		for metric, series := range got {
			for k := range series {
				if strings.HasPrefix(k, "bad") {
					left = append(left, metric+"{"+k+"}")
				}
			}
		}
		if _, ok := got.get(metrics.ListReadyName, "good/Ready"); !ok {
			return fmt.Errorf("the good list's series went too: %v", got)
		}
		if len(left) > 0 {
			sort.Strings(left)
			return fmt.Errorf("still there: %v", left)
		}
		return nil
	})

	// An entry stuck deleting still counts once its list is gone, under
	// the name it refers to: nothing else would report it.
	deleteObj(t, good)
	waitGone(t, good, 30*time.Second)
	eventually(t, 30*time.Second, "the stuck entry of the deleted list", func() error {
		got := gatherLists(t, reg, ns)
		if v, ok := got.get(metrics.ListEntriesStuckTerminatingName, "good"); !ok || v != 1 {
			return fmt.Errorf("stuck terminating{good} = %v (present %t), want 1: %v", v, ok, got)
		}
		if _, ok := got.get(metrics.ListReadyName, "good/Ready"); ok {
			return fmt.Errorf("the deleted list still has a ready series: %v", got)
		}
		return nil
	})
}

// TestListMetricsOwnerOnly checks that a replica exports only the lists
// whose bucket it owns.
func TestListMetricsOwnerOnly(t *testing.T) {
	ns := newNamespace(t)
	rep := startManager(t, managerConfig{namespace: ns})
	buckets := map[string]int{}
	for i, name := range []string{"mine", "theirs"} {
		path := listPath(t, ns) + "-" + name
		setDoc(t, sharedLists, path, []string{})
		xl := newExternalList(ns, name, sharedListsURL+path)
		create(t, xl)
		waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, 30*time.Second)
		buckets[listconfig.DocumentBucketKey(listconfig.DocumentIDOfURL(xl.Spec.URL))] = i + 1
	}
	owner := bucketOwner{buckets: buckets, owned: 1}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(&ListMetrics{Reader: rep.mgr.GetCache(), Owner: owner})
	got := gatherLists(t, reg, ns)
	if _, ok := got.get(metrics.ListReadyName, "mine/Ready"); !ok {
		t.Errorf("the owned list has no ready series: %v", got)
	}
	for metric, series := range got {
		for k := range series {
			if strings.HasPrefix(k, "theirs") {
				t.Errorf("%s{%s} exported by a replica that does not own the list", metric, k)
			}
		}
	}
}

// bucketOwner owns one bucket; keys map to buckets by a table.
type bucketOwner struct {
	SoleOwner
	buckets map[string]int
	owned   int
}

func (o bucketOwner) Bucket(key string) int { return o.buckets[key] }
func (o bucketOwner) Owns(b int) bool       { return b == o.owned }

func TestStatsOf(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	deleting := func(ago time.Duration) *metav1.Time { ts := metav1.NewTime(now.Add(-ago)); return &ts }
	synced := func(s metav1.ConditionStatus) []metav1.Condition {
		return []metav1.Condition{{Type: v1alpha1.ConditionSynced, Status: s, Reason: "R"}}
	}
	entries := []v1alpha1.ListEntry{
		{Status: v1alpha1.ListEntryStatus{Conditions: synced(metav1.ConditionTrue)}},
		{Status: v1alpha1.ListEntryStatus{Conditions: synced(metav1.ConditionFalse)}},
		{}, // no condition yet: pending
		{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: deleting(time.Minute)}},
		{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: deleting(10 * time.Minute)}},
	}
	tests := []struct {
		name       string
		conditions []metav1.Condition
		wantReady  string
		wantReason string
	}{
		{"no condition", nil, "Unknown", "Unknown"},
		{"ready", []metav1.Condition{{Type: v1alpha1.ConditionReady, Status: metav1.ConditionTrue, Reason: v1alpha1.ReasonReady}}, "True", v1alpha1.ReasonReady},
		{"failing", []metav1.Condition{{Type: v1alpha1.ConditionReady, Status: metav1.ConditionFalse, Reason: v1alpha1.ReasonUnauthorized}}, "False", v1alpha1.ReasonUnauthorized},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			xl := &v1alpha1.ExternalList{Status: v1alpha1.ExternalListStatus{Conditions: tc.conditions, ItemCount: 7, ForeignItemCount: 3}}
			s := statsOf(xl, entries, now, 5*time.Minute)
			if s.ready != tc.wantReady || s.readyReason != tc.wantReason {
				t.Errorf("ready = %s/%s, want %s/%s", s.ready, s.readyReason, tc.wantReady, tc.wantReason)
			}
			if s.live != 3 || s.pending != 2 || s.stuckTerminating != 1 || s.items != 7 || s.foreign != 3 {
				t.Errorf("stats = %+v, want live 3, pending 2, stuck 1, items 7, foreign 3", s)
			}
		})
	}
}

// BenchmarkListMetricsCollect measures one scrape of the per-list gauges
// over 50 lists of 20 entries each, read from a real manager cache (envtest)
// through the list-name index, as in production.
func BenchmarkListMetricsCollect(b *testing.B) {
	const lists, perList = 50, 20
	testEnv.Require(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "lk-bench-"}}
	if err := k8sClient.Create(ctx, ns); err != nil {
		b.Fatal(err)
	}
	for i := range lists {
		name := fmt.Sprintf("list-%d", i)
		if err := k8sClient.Create(ctx, newExternalList(ns.Name, name, "http://127.0.0.1/"+name)); err != nil {
			b.Fatal(err)
		}
		for j := range perList {
			if err := k8sClient.Create(ctx, newListEntry(ns.Name, fmt.Sprintf("%s-e%d", name, j), name, fmt.Sprint(j))); err != nil {
				b.Fatal(err)
			}
		}
	}
	mgr, err := ctrl.NewManager(restConfig, ctrl.Options{
		Scheme: testScheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Cache: cache.Options{DefaultNamespaces: map[string]cache.Config{ns.Name: {}}},
	})
	if err != nil {
		b.Fatal(err)
	}
	if err := addIndexes(ctx, mgr.GetFieldIndexer(), append(entryIndexes(), listIndexes("default")...)); err != nil {
		b.Fatal(err)
	}
	go func() { _ = mgr.Start(ctx) }()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		b.Fatal("cache did not sync")
	}
	m := &ListMetrics{Reader: mgr.GetCache(), Owner: SoleOwner{}}
	ch := make(chan prometheus.Metric, 8*lists)
	b.ResetTimer()
	for range b.N {
		m.Collect(ch)
		if len(ch) < 6*lists {
			b.Fatalf("collected %d series, want %d", len(ch), 6*lists)
		}
		for len(ch) > 0 {
			<-ch
		}
	}
}
