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

// Package monitoring defines listkeeper's Prometheus alert rules and its
// Grafana dashboard as Go values, referring to the metrics by the names
// internal/metrics exports, and renders them into the files that
// hack/monitoring writes (make monitoring):
//
//   - config/prometheus: a PrometheusRule and a ServiceMonitor for the
//     manager's metrics Service, with a kustomization;
//   - config/grafana: the dashboard JSON and a kustomization that wraps it
//     in a ConfigMap labelled grafana_dashboard: "1";
//   - charts/listkeeper/files: the same rules as a plain Prometheus rule file
//     and the same dashboard, for the Helm chart.
//
// hack/verify.sh fails when a committed file differs from what Files
// renders. A test in the separate module test/monitoring parses every rule
// and panel query with Prometheus's own parsers and checks that each metric
// it selects is one the manager really exports.
//
// Per-list series come from the replica that owns the list, so each list
// has one series across replicas except briefly during a handover (zero or
// two); the rules therefore aggregate with max by (namespace, name), and
// process-wide counters with sum across replicas.
package monitoring
