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

// Package monitoring checks the generated alert rules and Grafana dashboard
// (internal/monitoring, make monitoring) with Prometheus's own code: every
// rule loads with rulefmt, every expression and panel query parses with
// promql/parser, and every metric they select is one the manager really
// exports, as gathered from controller-runtime's registry after the real
// controllers ran against a real kube-apiserver (envtest) and the fake list
// server. ListkeeperAbsent and ListkeeperListStale are also evaluated as
// Prometheus's rule manager evaluates them (rules.AlertingRule, minute by
// minute, with their for durations) over series written in promqltest's
// load syntax: what fires when, with which labels. It is a module of its
// own so that Prometheus's server code stays out of the operator's go.mod;
// make test runs it.
package monitoring
