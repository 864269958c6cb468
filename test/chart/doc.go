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

// Package chart holds the tests of the Helm chart in charts/listkeeper; it
// has no code of its own.
//
// The tests render the chart with the Helm Go SDK (helm.sh/helm/v4, as
// `helm template` does, no helm binary), with the default values and with
// every toggle on, and have a real kube-apiserver (envtest, internal/testenv)
// accept every rendered object with a server-side dry run. They check what
// a deployment depends on: the grace period covers the manager's shutdown,
// the soft memory limit is wired to the container's limit, the
// PodDisruptionBudget, the manager's pods pass the "restricted" Pod
// Security Standard, and with watchNamespace the manager's service account
// may act in that namespace only (SubjectAccessReviews against RBAC
// created for real), as may the users the aggregated view and edit roles
// reach. An upgrade from the previous chart (testdata, packaged from git
// history) carries the new CRDs, in the SDK's memory storage and with
// Helm's own client against the kube-apiserver (refused without
// --take-ownership, adopted with it); on a kube-apiserver that serves
// MutatingAdmissionPolicy (1.37 in make test) that upgrade installs the
// finalizer policy, and a ListEntry created afterwards gets the cleanup
// finalizer. The policy renders by default from Kubernetes 1.36 on, with the
// spec of config/finalizer-policy, and not when disabled. A last test holds the chart and the
// kustomize configuration (config/default) to the same manager flags,
// environment and permissions.
//
// # Scope and limitations
//
//   - The control plane has no Prometheus Operator: the tests install
//     minimal ServiceMonitor and PrometheusRule CRDs (any spec accepted), so
//     the dry run proves the objects are well formed Kubernetes objects, not
//     that the operator would accept their spec.
//   - No pod runs: envtest has no kubelet. Pod Security admission is checked
//     by a dry run of a Pod made from the Deployment's template.
//   - No kube-controller-manager runs: the tests aggregate ClusterRoles
//     themselves, as its role aggregation would.
package chart
