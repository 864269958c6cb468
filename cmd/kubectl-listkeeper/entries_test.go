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

package main

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

func TestCountEntries(t *testing.T) {
	entry := func(ns, list string, k v1alpha1.ListKind, deleted *time.Time, conds ...metav1.Condition) v1alpha1.ListEntry {
		e := v1alpha1.ListEntry{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "e"},
			Spec:       v1alpha1.ListEntrySpec{ListRef: v1alpha1.ListReference{Kind: k, Name: list}, ID: "e"},
			Status:     v1alpha1.ListEntryStatus{Conditions: conds},
		}
		if deleted != nil {
			e.DeletionTimestamp = &metav1.Time{Time: *deleted}
		}
		return e
	}
	ready := func(s metav1.ConditionStatus, reason string) metav1.Condition {
		return cond(v1alpha1.ConditionReady, s, reason, "", t0)
	}
	older, newer := t0.Add(-time.Hour), t0
	entries := []v1alpha1.ListEntry{
		entry("a", "l", "", nil, ready(metav1.ConditionTrue, v1alpha1.ReasonAdded)),
		entry("a", "l", v1alpha1.ListKindExternalList, nil, ready(metav1.ConditionTrue, v1alpha1.ReasonAdded)),
		entry("a", "l", "", nil, ready(metav1.ConditionUnknown, v1alpha1.ReasonProgressing)),
		entry("a", "l", "", nil, ready(metav1.ConditionFalse, v1alpha1.ReasonUnauthorized)),
		entry("a", "l", "", nil, ready(metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse)),
		entry("a", "l", "", nil),
		entry("a", "l", "", &newer, ready(metav1.ConditionTrue, v1alpha1.ReasonAdded)),
		entry("a", "l", "", &older),
		// Not the list's: another namespace, another name, the cluster
		// list of the same name.
		entry("b", "l", "", nil, ready(metav1.ConditionTrue, v1alpha1.ReasonAdded)),
		entry("a", "m", "", nil, ready(metav1.ConditionTrue, v1alpha1.ReasonAdded)),
		entry("a", "l", v1alpha1.ListKindClusterExternalList, nil, ready(metav1.ConditionTrue, v1alpha1.ReasonAdded)),
	}
	got := countEntries(entries, ref{Kind: kindExternalList, Namespace: "a", Name: "l"})
	want := entryCounts{
		Total: 8,
		Ready: []readyCount{
			{Status: metav1.ConditionTrue, Reason: v1alpha1.ReasonAdded, Count: 2},
			{Status: metav1.ConditionFalse, Reason: v1alpha1.ReasonDocumentInUse, Count: 1},
			{Status: metav1.ConditionFalse, Reason: v1alpha1.ReasonUnauthorized, Count: 1},
			{Status: metav1.ConditionUnknown, Reason: v1alpha1.ReasonProgressing, Count: 1},
		},
		NoStatus: 1, Terminating: 2, TerminatingSince: &older,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("countEntries (-want +got):\n%s", diff)
	}
	cluster := countEntries(entries, ref{Kind: kindClusterExternalList, Name: "l"})
	if cluster.Total != 1 || len(cluster.Ready) != 1 {
		t.Errorf("the cluster list's entries: %+v, want the one that names it", cluster)
	}
}
