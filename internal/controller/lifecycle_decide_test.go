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
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

func lifecycleList(policy v1alpha1.DeletionPolicy, deleting bool) *v1alpha1.ExternalList {
	xl := &v1alpha1.ExternalList{
		ObjectMeta: metav1.ObjectMeta{Name: "allow", Namespace: "ns"},
		Spec:       v1alpha1.ExternalListSpec{URL: "https://lists.example.com/allow", DeletionPolicy: policy},
	}
	if deleting {
		now := metav1.Now()
		xl.DeletionTimestamp = &now
	}
	return xl
}

func TestDeletionDecisions(t *testing.T) {
	e := entry("e", "allow", "tenant-a", true)
	tests := []struct {
		name                 string
		list                 *v1alpha1.ExternalList
		wantFinalizer        bool
		wantSkip, wantNoAdds bool
	}{
		{name: "default policy, live", list: lifecycleList("", false)},
		{name: "Orphan, live", list: lifecycleList(v1alpha1.DeletionPolicyOrphan, false)},
		{name: "Delete, live", list: lifecycleList(v1alpha1.DeletionPolicyDelete, false), wantFinalizer: true},
		{name: "unknown policy is Orphan", list: lifecycleList("Sometimes", false)},
		{name: "default policy, deleting", list: lifecycleList("", true), wantSkip: true, wantNoAdds: true},
		{name: "Orphan, deleting", list: lifecycleList(v1alpha1.DeletionPolicyOrphan, true), wantSkip: true, wantNoAdds: true},
		// The entry still removes its own ID: the list's cleanup counts
		// only the entries that exist when it runs.
		{name: "Delete, deleting", list: lifecycleList(v1alpha1.DeletionPolicyDelete, true), wantFinalizer: true, wantNoAdds: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := wantsListFinalizer(&tt.list.Spec); got != tt.wantFinalizer {
				t.Errorf("wantsListFinalizer = %t, want %t", got, tt.wantFinalizer)
			}
			why, skip := skipRemoval(&e, tt.list)
			if skip != tt.wantSkip || (skip && !strings.Contains(why, "tenant-a")) {
				t.Errorf("skipRemoval = %t %q, want %t and a note naming the ID", skip, why, tt.wantSkip)
			}
			why, blocked := addBlocked(&e, tt.list)
			if blocked != tt.wantNoAdds || (blocked && !strings.Contains(why, `"allow"`)) {
				t.Errorf("addBlocked = %t %q, want %t and a note naming the list", blocked, why, tt.wantNoAdds)
			}
		})
	}
}

func TestCleanupChange(t *testing.T) {
	tests := []struct {
		name string
		own  []v1alpha1.ListEntry
		want []string
	}{
		{name: "no entries", want: nil},
		{name: "live and deleting entries both go", own: []v1alpha1.ListEntry{
			entry("a", "allow", "x", false), entry("b", "allow", "y", true),
		}, want: []string{"x", "y"}},
		{name: "an ID of an entry the list does not admit was never written", own: []v1alpha1.ListEntry{
			entry("a", "allow", "x", false), entry("b", "allow", "not-admitted", false),
		}, want: []string{"x"}},
		{name: "duplicates once", own: []v1alpha1.ListEntry{
			entry("a", "allow", "x", false), entry("b", "allow", "x", true),
		}, want: []string{"x"}},
		{name: "an ID the client cannot carry was never written", own: []v1alpha1.ListEntry{
			entry("a", "allow", strings.Repeat("x", 300), false), entry("b", "allow", "ok", false),
		}, want: []string{"ok"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := cleanupChange(tt.own, func(e *v1alpha1.ListEntry) bool { return e.Spec.ID != "not-admitted" })
			if !slices.Equal(ch.Remove, tt.want) || ch.Add != nil || ch.RetainOnly != nil {
				t.Errorf("cleanupChange = %+v, want Remove %v only", ch, tt.want)
			}
			if err := ch.Validate(); err != nil {
				t.Errorf("invalid change: %v", err)
			}
		})
	}
}
