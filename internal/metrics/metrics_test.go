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

package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/version"
)

// histogramCount returns the observations of RequestDuration for method.
func histogramCount(t *testing.T, method string) (uint64, float64) {
	t.Helper()
	fams, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != RequestDurationName {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == LabelMethod && l.GetValue() == method {
					return m.GetHistogram().GetSampleCount(), m.GetHistogram().GetSampleSum()
				}
			}
		}
	}
	return 0, 0
}

func TestObserverRequest(t *testing.T) {
	nGet, sumGet := histogramCount(t, "GET")
	nPut, _ := histogramCount(t, "PUT")
	Observer{}.Request("GET", 200, 30*time.Millisecond)
	Observer{}.Request("PUT", 412, 70*time.Millisecond)
	Observer{}.Request("PUT", 0, 2*time.Second)
	n, sum := histogramCount(t, "GET")
	if n-nGet != 1 || sum-sumGet < 0.029 || sum-sumGet > 0.031 {
		t.Errorf("GET latency: %d observations adding %vs, want 1 of 0.03s", n-nGet, sum-sumGet)
	}
	if n, _ := histogramCount(t, "PUT"); n-nPut != 2 {
		t.Errorf("PUT latency: %d observations, want 2 (answered or not)", n-nPut)
	}
}

// TestListObserverCountsUnderItsList: requests and write outcomes are
// counted under the list the client serves, under the new list once it
// changes, not at all before it has one, and a forgotten list's series go.
func TestListObserverCountsUnderItsList(t *testing.T) {
	a := List{Namespace: "team-a", Name: "allow", Kind: "ExternalList"}
	b := List{Name: "shared", Kind: "ClusterExternalList"}
	requests := func(l List, method, code string) float64 {
		return testutil.ToFloat64(HTTPRequests.WithLabelValues(l.Namespace, l.Name, l.Kind, method, code))
	}
	var o ListObserver
	o.Request("GET", 200, time.Millisecond) // no list yet: not counted
	o.SetList(a)
	o.Request("GET", 200, time.Millisecond)
	o.Request("PUT", 412, time.Millisecond)
	o.Write(etagclient.WriteConflict)
	o.SetList(b)
	o.Request("PUT", 200, time.Millisecond)
	if got := requests(a, "GET", "200"); got != 1 {
		t.Errorf("GET 200 of %v counted %v times, want 1", a, got)
	}
	if got := requests(a, "PUT", "412"); got != 1 {
		t.Errorf("PUT 412 of %v counted %v times, want 1", a, got)
	}
	if got := requests(b, "PUT", "200"); got != 1 {
		t.Errorf("PUT 200 of %v counted %v times, want 1", b, got)
	}
	if got := testutil.ToFloat64(ListWrites.WithLabelValues(a.Namespace, a.Name, a.Kind, string(etagclient.WriteConflict))); got != 1 {
		t.Errorf("conflicts of %v: %v, want 1", a, got)
	}
	ForgetList(a)
	if got := requests(a, "GET", "200"); got != 0 {
		t.Errorf("GET 200 of %v after ForgetList: %v, want a new series at 0", a, got)
	}
	ForgetList(a)
	ForgetList(b)
}

func TestBuildInfo(t *testing.T) {
	expected := "# HELP " + BuildInfoName + " Always 1; the labels carry the manager's version, source revision and Go release.\n" +
		"# TYPE " + BuildInfoName + " gauge\n" +
		BuildInfoName + "{goversion=\"" + version.GoVersion() + "\",revision=\"" + version.Revision + "\",version=\"" + version.Version + "\"} 1\n"
	if err := testutil.GatherAndCompare(ctrlmetrics.Registry, strings.NewReader(expected), BuildInfoName); err != nil {
		t.Error(err)
	}
}

// TestFinalizerAtBirthRegistered: the gauge is served (at 0, the safe
// default, until internal/finalizerpolicy's Detector sets it).
func TestFinalizerAtBirthRegistered(t *testing.T) {
	expected := "# HELP " + FinalizerAtBirthName + " " + "1 when the API server adds the cleanup finalizer to every ListEntry at creation (the MutatingAdmissionPolicy is active) and the operator skips its own finalizer patch; 0 when the operator patches it on itself (no policy, or not known yet).\n" +
		"# TYPE " + FinalizerAtBirthName + " gauge\n" +
		FinalizerAtBirthName + " 0\n"
	if err := testutil.GatherAndCompare(ctrlmetrics.Registry, strings.NewReader(expected), FinalizerAtBirthName); err != nil {
		t.Error(err)
	}
}

// TestMemoryBudgetGauges: the budget's gauges are registered and follow
// the budget: its size, what is reserved now, and the most ever reserved.
func TestMemoryBudgetGauges(t *testing.T) {
	b := etagclient.NewBudget(1000)
	ObserveBudget(b)
	if err := b.Acquire(t.Context(), 600); err != nil {
		t.Fatal(err)
	}
	b.Release(400)
	for _, tc := range []struct {
		name string
		g    prometheus.Collector
		want float64
	}{{MemoryBudgetName, MemoryBudget, 1000}, {MemoryReservedName, MemoryReserved, 200}, {MemoryReservedHighName, MemoryReservedHigh, 600}} {
		if got := testutil.ToFloat64(tc.g); got != tc.want {
			t.Errorf("%s = %v, want %v", tc.name, got, tc.want)
		}
	}
	if n, err := testutil.GatherAndCount(ctrlmetrics.Registry, MemoryBudgetName, MemoryReservedName, MemoryReservedHighName); err != nil || n != 3 {
		t.Errorf("gathered %d series of the budget's gauges (%v), want 3", n, err)
	}
}
