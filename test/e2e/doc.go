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

// Package e2e holds the end-to-end tests of listkeeper: real manager
// processes (cmd/manager) and the fake list server (cmd/fakeapi) against a
// real kube-apiserver and etcd started with envtest, all driven by the
// shared harness in test/e2e/harness.
//
// The control plane is started once in TestMain from $KUBEBUILDER_ASSETS,
// else from bin/k8s ('make envtest-assets' builds it); without it the tests
// fail and say so. The binaries are bin/manager and bin/fakeapi ('make
// build'); when either is missing, both are built with go build into the
// run's temp dir. With -short the suite is skipped.
//
// The tests:
//
//   - TestCrashAndRestart: three replicas and 300 ListEntries; the list
//     server is killed with SIGKILL during the creation and restarted on the
//     same port from its state file, and one replica is killed with SIGKILL
//     during the deletion and restarted. Everything must converge: the list
//     ends with exactly its bystanders in their order, no entry is left, no
//     ID was lost, and no manager panicked.
//
// A failing test keeps its directory (every process's log, the resources,
// events, the list document, its history and stats, the managers' metrics)
// and prints its path.
package e2e
