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
	"strings"
	"testing"
)

func TestAPIServerMetrics(t *testing.T) {
	const text = `process_cpu_seconds_total 40
apiserver_request_total{code="200",resource="listentries",group="listkeeper.dev",verb="LIST"} 3
apiserver_request_total{code="200",resource="listentries",group="listkeeper.dev",verb="PATCH"} 10
apiserver_request_total{code="409",resource="listentries",group="listkeeper.dev",verb="PATCH"} 2
apiserver_request_total{code="200",resource="listentries",subresource="status",verb="PATCH"} 7
apiserver_request_total{code="200",resource="listentriesx",verb="PATCH"} 100
apiserver_request_total{code="200",resource="secrets",verb="GET"} 1
`
	samples, err := ParseMetrics(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	m := APIServerMetricsFrom(samples)
	if m.CPUSeconds != 40 || m.Requests["listentries PATCH"] != 12 || m.Requests["listentries/status PATCH"] != 7 {
		t.Errorf("APIServerMetricsFrom = %+v", m)
	}
	if n := m.RequestsTo("listentries", "PATCH"); n != 19 {
		t.Errorf("PATCHes of listentries = %v, want 19", n)
	}
	if n := m.RequestsTo("listentries"); n != 22 {
		t.Errorf("requests to listentries = %v, want 22", n)
	}
	before := APIServerMetrics{Requests: map[string]float64{"listentries PATCH": 2, "secrets GET": 1}, CPUSeconds: 15}
	d := m.Sub(before)
	if d.CPUSeconds != 25 || d.Requests["listentries PATCH"] != 10 || len(d.Requests) != 4 {
		t.Errorf("Sub = %+v", d)
	}
}
