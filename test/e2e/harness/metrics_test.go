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
	"reflect"
	"strings"
	"testing"
)

const scrape = `# HELP listkeeper_http_requests_total HTTP requests to list servers.
# TYPE listkeeper_http_requests_total counter
listkeeper_http_requests_total{code="200",method="GET"} 120
listkeeper_http_requests_total{code="200",method="PUT"} 40
listkeeper_http_requests_total{code="412",method="PUT"} 7
listkeeper_http_requests_total{method="GET",code="0"} 1 1700000000000
# TYPE listkeeper_list_writes_total counter
listkeeper_list_writes_total{result="written"} 40
listkeeper_list_writes_total{result="conflict"} 6
# TYPE listkeeper_batch_size histogram
listkeeper_batch_size_bucket{le="1"} 20
listkeeper_batch_size_bucket{le="+Inf"} 40
listkeeper_batch_size_sum 90
listkeeper_batch_size_count 40
controller_runtime_reconcile_total{controller="listentry",result="success"} 300
controller_runtime_reconcile_total{controller="listentry",result="error"} 4
controller_runtime_reconcile_total{controller="externallist",result="success"} 2
process_cpu_seconds_total 12.5
rest_client_requests_total{code="200",host="127.0.0.1:6443",method="GET"} 30
rest_client_requests_total{code="200",host="127.0.0.1:6443",method="PATCH"} 20
rest_client_requests_total{code="409",host="127.0.0.1:6443",method="PATCH"} 2
rest_client_requests_total{code="200",host="127.0.0.1:6443",method="PUT"} 5
other_metric{path="/a \"quoted\" \\ b\n",le="+Inf"} +Inf
go_goroutines 42
`

func TestParseMetrics(t *testing.T) {
	samples, err := ParseMetrics(strings.NewReader(scrape))
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 20 {
		t.Fatalf("got %d samples, want 20", len(samples))
	}
	got := MetricsFrom(samples)
	want := ManagerMetrics{Requests: 168, Conflicts: 7, Writes: 40, LostWrites: 6, Batches: 40, Changes: 90, CPUSeconds: 12.5,
		Reconciles: map[ReconcileKey]float64{
			{"listentry", "success"}: 300, {"listentry", "error"}: 4, {"externallist", "success"}: 2,
		},
		APIRequests: map[string]float64{"GET": 30, "PATCH": 22, "PUT": 5}, APIConflicts: 2}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("MetricsFrom = %+v, want %+v", got, want)
	}
	if mb := got.MeanBatch(); mb != 2.25 {
		t.Errorf("MeanBatch = %v, want 2.25", mb)
	}
	if n := got.ReconcileCount("listentry", ""); n != 304 {
		t.Errorf("ReconcileCount(listentry) = %v, want 304", n)
	}
	if n := got.ReconcileCount("listentry", "error"); n != 4 {
		t.Errorf("ReconcileCount(listentry, error) = %v, want 4", n)
	}
	if n := got.APIRequestTotal(); n != 57 {
		t.Errorf("APIRequestTotal = %v, want 57", n)
	}
	other := samples[18]
	if other.Labels["path"] != "/a \"quoted\" \\ b\n" || other.Labels["le"] != "+Inf" {
		t.Errorf("escaped labels = %q", other.Labels)
	}
}

func TestParseSampleErrors(t *testing.T) {
	for _, line := range []string{
		"novalue",
		`m{a="1"`,
		`m{a=1} 2`,
		`m{a="1} 2`,
		`m{a="1\`,
		"m notanumber",
		"m 1 2 3",
	} {
		t.Run(line, func(t *testing.T) {
			if s, err := ParseSample(line); err == nil {
				t.Errorf("ParseSample(%q) = %+v, want an error", line, s)
			}
		})
	}
}

func TestManagerMetricsArithmetic(t *testing.T) {
	a := ManagerMetrics{Requests: 10, Conflicts: 2, Writes: 5, LostWrites: 4, Batches: 5, Changes: 9, CPUSeconds: 3,
		Reconciles:  map[ReconcileKey]float64{{"listentry", "success"}: 7},
		APIRequests: map[string]float64{"GET": 6}, APIConflicts: 1}
	b := ManagerMetrics{Requests: 4, Conflicts: 1, Writes: 2, LostWrites: 1, Batches: 2, Changes: 3, CPUSeconds: 1,
		Reconciles:  map[ReconcileKey]float64{{"listentry", "success"}: 3, {"listentry", "error"}: 1},
		APIRequests: map[string]float64{"GET": 2, "PATCH": 3}}
	got := a.Sub(b).Add(b)
	want := a
	want.Reconciles = map[ReconcileKey]float64{{"listentry", "success"}: 7, {"listentry", "error"}: 0}
	want.APIRequests = map[string]float64{"GET": 6, "PATCH": 0}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("a - b + b = %+v, want %+v", got, want)
	}
	if a.Reconciles[ReconcileKey{"listentry", "success"}] != 7 {
		t.Errorf("Sub changed its receiver's map: %v", a.Reconciles)
	}
	if got := (ManagerMetrics{}).MeanBatch(); got != 0 {
		t.Errorf("MeanBatch without writes = %v, want 0", got)
	}
	if got := (ManagerMetrics{}).Add(ManagerMetrics{}); got.Reconciles != nil || got.APIRequests != nil {
		t.Errorf("zero + zero has Reconciles %v and APIRequests %v, want nil", got.Reconciles, got.APIRequests)
	}
}
