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
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// TestTwoInstallationsInOneNamespace: two installations, each watching its
// own namespace, keep their member Leases in one namespace (the per-tenant
// setup SECURITY.md suggests). Selected by the label key alone, they split
// the buckets between them, so an entry whose bucket the other
// installation held was never reconciled by anyone who could see it. With
// a member group each, every entry is reconciled.
func TestTwoInstallationsInOneNamespace(t *testing.T) {
	t.Parallel()
	leases, nsA, nsB := newNamespace(t), newNamespace(t), newNamespace(t)
	startManager(t, managerConfig{namespace: nsA, member: true, leaseNamespace: leases, memberGroup: "team-a"})
	startManager(t, managerConfig{namespace: nsB, member: true, leaseNamespace: leases, memberGroup: "team-b"})
	lists := newFakeServer(t)
	const perNamespace = 12
	var entries []*v1alpha1.ListEntry
	for _, ns := range []string{nsA, nsB} {
		// One document per list, so that the lists fall in many buckets.
		for i := range 3 {
			path := fmt.Sprintf("/%s-%d", ns, i)
			setDoc(t, lists.srv, path, []string{})
			create(t, newExternalList(ns, fmt.Sprintf("l%d", i), lists.url+path))
			for j := range perNamespace / 3 {
				e := newListEntry(ns, fmt.Sprintf("e%d-%d", i, j), fmt.Sprintf("l%d", i), fmt.Sprintf("id-%d", j))
				create(t, e)
				entries = append(entries, e)
			}
		}
	}
	for _, e := range entries {
		waitCondition(t, e, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, time.Minute)
	}
}
