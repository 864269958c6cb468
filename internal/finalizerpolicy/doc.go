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

// Package finalizerpolicy tells whether the API server puts the cleanup
// finalizer (v1alpha1.FinalizerName) on every ListEntry at creation, as the
// MutatingAdmissionPolicy shipped with the install (config/finalizer-policy,
// the Helm chart's finalizerPolicy) does on Kubernetes 1.36 and later.
//
// Where it does, no ListEntry ever exists without the finalizer, and the
// operator skips its own finalizer PATCH; where it does not (an older
// cluster, an install that left the policy out), the operator patches the
// finalizer on itself.
//
// Probe asks the API server directly: it creates a ListEntry with a
// server-side dry run, which runs admission (the policy included) and
// stores nothing, and looks for the finalizer on what comes back. Detector
// is a manager Runnable that probes at start and every minute, exports the
// outcome as the gauge listkeeper_finalizer_at_birth (internal/metrics) and
// logs each change; its Active is false until a probe has seen the
// finalizer. kubectl listkeeper status runs the same Probe with the user's
// credentials.
//
// # Scope and limitations
//
//   - A probe sees what the API server does for the namespace it probes in:
//     a binding that selects some namespaces only is seen where the probe
//     runs. The manager probes in the namespace it serves (--namespace) or
//     in its own.
//   - The dry run needs permission to create ListEntries in that namespace;
//     without it Probe returns the error and Detector reports inactive.
//   - Between a policy being removed and the next probe (at most a minute)
//     Active still says true: the entry controller must not take the
//     finalizer's presence on any one entry for granted.
package finalizerpolicy
