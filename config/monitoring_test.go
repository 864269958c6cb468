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

package config_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/listkeeper/listkeeper/internal/monitoring"
)

// TestMonitoringRenders: config/prometheus renders a ServiceMonitor that
// selects the metrics Service of config/default by its labels and port, in
// its namespace, and the PrometheusRule; config/grafana renders the
// dashboard ConfigMap that Grafana's sidecar picks up.
func TestMonitoringRenders(t *testing.T) {
	var service *unstructured.Unstructured
	for _, d := range split(t, render(t, "default")) {
		if d.obj.GetKind() == "Service" {
			service = d.obj
		}
	}
	if service == nil {
		t.Fatal("config/default renders no Service")
	}
	ports, _, _ := unstructured.NestedSlice(service.Object, "spec", "ports")

	kinds := map[string]*unstructured.Unstructured{}
	for _, d := range split(t, render(t, "prometheus")) {
		kinds[d.obj.GetKind()] = d.obj
	}
	sm, rule := kinds["ServiceMonitor"], kinds["PrometheusRule"]
	if sm == nil || rule == nil || len(kinds) != 2 {
		t.Fatalf("config/prometheus renders %v, want a ServiceMonitor and a PrometheusRule", kinds)
	}
	if sm.GetNamespace() != service.GetNamespace() || rule.GetNamespace() != service.GetNamespace() {
		t.Errorf("namespaces: ServiceMonitor %q, PrometheusRule %q, Service %q", sm.GetNamespace(), rule.GetNamespace(), service.GetNamespace())
	}
	selector, _, _ := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
	for k, v := range selector {
		if service.GetLabels()[k] != v {
			t.Errorf("ServiceMonitor selects %s=%s; the Service has %v", k, v, service.GetLabels())
		}
	}
	endpoints, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
	if len(endpoints) != 1 {
		t.Fatalf("ServiceMonitor endpoints: %v", endpoints)
	}
	ep := endpoints[0].(map[string]any)
	portFound := false
	for _, p := range ports {
		if p.(map[string]any)["name"] == ep["port"] {
			portFound = true
		}
	}
	if !portFound || ep["scheme"] != "https" || ep["honorLabels"] != true {
		t.Errorf("ServiceMonitor endpoint %v: want the Service's port (%v) over https with honorLabels", ep, ports)
	}
	// The Prometheus Operator names the job after the Service unless
	// jobLabel says otherwise: ListkeeperAbsent must look for that job.
	if jobLabel, ok := sm.Object["spec"].(map[string]any)["jobLabel"]; ok || ep["relabelings"] != nil {
		t.Errorf("ServiceMonitor jobLabel %v, relabelings %v: the job would not be the Service's name", jobLabel, ep["relabelings"])
	}
	if service.GetName() != monitoring.KustomizeJob {
		t.Errorf("the metrics Service is %s; the alerts look for job %s", service.GetName(), monitoring.KustomizeJob)
	}
	groups, _, _ := unstructured.NestedSlice(rule.Object, "spec", "groups")
	if !bytes.Contains(mustJSON(t, groups), []byte(`absent(listkeeper_build_info{job=\"`+service.GetName()+`\"})`)) {
		t.Errorf("the PrometheusRule has no ListkeeperAbsent for job %s", service.GetName())
	}

	docs := split(t, render(t, "grafana"))
	if len(docs) != 1 || docs[0].obj.GetKind() != "ConfigMap" || docs[0].obj.GetLabels()["grafana_dashboard"] != "1" {
		t.Fatalf("config/grafana renders %v, want one ConfigMap labelled grafana_dashboard=1", docs)
	}
	data, _, _ := unstructured.NestedStringMap(docs[0].obj.Object, "data")
	want, err := os.ReadFile("../" + monitoring.DashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal([]byte(data["listkeeper-dashboard.json"]), want) {
		t.Error("the ConfigMap's dashboard differs from " + monitoring.DashboardPath)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
