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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

func TestSpecOrDeletionChanged(t *testing.T) {
	p := specOrDeletionChanged()
	now := metav1.Now()
	base := func(mut func(*v1alpha1.ListEntry)) *v1alpha1.ListEntry {
		e := &v1alpha1.ListEntry{ObjectMeta: metav1.ObjectMeta{Name: "e", Namespace: "ns", Generation: 1, ResourceVersion: "1"}}
		if mut != nil {
			mut(e)
		}
		return e
	}
	tests := []struct {
		name     string
		old, new *v1alpha1.ListEntry
		want     bool
	}{
		{name: "nothing changed (resync)", old: base(nil), new: base(nil), want: false},
		{name: "status changed", old: base(nil), new: base(func(e *v1alpha1.ListEntry) {
			e.ResourceVersion = "2"
			e.Status.Conditions = []metav1.Condition{{Type: v1alpha1.ConditionSynced, Status: metav1.ConditionTrue}}
		}), want: false},
		{name: "finalizer added", old: base(nil), new: base(func(e *v1alpha1.ListEntry) {
			e.ResourceVersion = "2"
			e.Finalizers = []string{v1alpha1.FinalizerName}
		}), want: false},
		{name: "labels changed", old: base(nil), new: base(func(e *v1alpha1.ListEntry) {
			e.ResourceVersion = "2"
			e.Labels = map[string]string{"a": "b"}
		}), want: false},
		{name: "generation changed", old: base(nil), new: base(func(e *v1alpha1.ListEntry) { e.Generation = 2 }), want: true},
		{name: "deletion started", old: base(nil), new: base(func(e *v1alpha1.ListEntry) { e.DeletionTimestamp = &now }), want: true},
		{name: "finalizer removed while deleting", old: base(func(e *v1alpha1.ListEntry) {
			e.DeletionTimestamp = &now
			e.Finalizers = []string{v1alpha1.FinalizerName}
		}), new: base(func(e *v1alpha1.ListEntry) { e.DeletionTimestamp = &now }), want: false},
		{name: "missing old object", old: nil, new: base(nil), want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev := event.UpdateEvent{ObjectNew: tc.new}
			if tc.old != nil {
				ev.ObjectOld = tc.old
			}
			if got := p.Update(ev); got != tc.want {
				t.Errorf("Update = %t, want %t", got, tc.want)
			}
		})
	}
	e := base(nil)
	if !p.Create(event.CreateEvent{Object: e}) {
		t.Error("Create must pass")
	}
	if !p.Delete(event.DeleteEvent{Object: e}) {
		t.Error("Delete must pass")
	}
	if !p.Generic(event.GenericEvent{Object: e}) {
		t.Error("Generic must pass")
	}
}
