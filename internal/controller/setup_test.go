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
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

func TestFinalizerProbeNamespace(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"every namespace", Options{ClusterResourceNamespace: "listkeeper-system"}, "listkeeper-system"},
		{"one namespace", Options{ClusterResourceNamespace: "listkeeper-system", NamespacedOnly: true, WatchNamespace: "team-a"}, "team-a"},
		{"one namespace, not named", Options{ClusterResourceNamespace: "listkeeper-system", NamespacedOnly: true}, "listkeeper-system"},
		{"a namespace named but not restricted to", Options{ClusterResourceNamespace: "listkeeper-system", WatchNamespace: "team-a"}, "listkeeper-system"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.o.finalizerProbeNamespace(); got != tc.want {
				t.Errorf("finalizerProbeNamespace() = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestSetupDetectsTheFinalizerPolicy: a manager wired by Setup probes
// whether the API server adds the cleanup finalizer at creation and logs
// what it found: active where testenv installed the policy (1.37, make
// test), not where the kube-apiserver does not serve it (make
// test-compat).
func TestSetupDetectsTheFinalizerPolicy(t *testing.T) {
	r := startManager(t, managerConfig{namespace: newNamespace(t)})
	want := "(no MutatingAdmissionPolicy;"
	if testEnv.FinalizerPolicy() {
		want = "(MutatingAdmissionPolicy active)"
	}
	if err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return strings.Contains(r.log.String(), want), nil
	}); err != nil {
		t.Fatalf("the manager did not log %q:\n%s", want, tail(r.log.String(), logTailLines))
	}
	if strings.Count(r.log.String(), "finalizer-policy") != 1 {
		t.Errorf("the finalizer policy's state was logged more than once:\n%s", r.log.String())
	}
}
