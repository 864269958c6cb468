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
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

func TestNeedsUser(t *testing.T) {
	t.Parallel()
	stalled := []string{
		v1alpha1.ReasonInvalidSpec, v1alpha1.ReasonSecretNotFound, v1alpha1.ReasonHostNotAllowed, v1alpha1.ReasonDestinationNotAllowed,
		v1alpha1.ReasonInsecureTransport, v1alpha1.ReasonUnauthorized, v1alpha1.ReasonRejected,
		v1alpha1.ReasonUnsafeServer, v1alpha1.ReasonInvalidDocument, v1alpha1.ReasonListNotFound,
	}
	transient := []string{v1alpha1.ReasonListUnreachable, v1alpha1.ReasonConflictRetriesExhausted, "SomethingNew"}
	for _, r := range stalled {
		if !needsUser(r) {
			t.Errorf("needsUser(%s) = false, want true (Stalled)", r)
		}
	}
	for _, r := range transient {
		if needsUser(r) {
			t.Errorf("needsUser(%s) = true, want false (Reconciling)", r)
		}
	}
}

// TestConditions: each transition leaves exactly the kstatus conditions
// it should, stamped with the generation.
func TestConditions(t *testing.T) {
	t.Parallel()
	type want struct {
		ready, reconciling, stalled string // "" = absent, else Status/Reason
	}
	tests := []struct {
		name  string
		apply func(conditions)
		want  want
	}{
		{"ready", func(c conditions) { c.ready(v1alpha1.ReasonAdded, "ok") },
			want{"True/Added", "", ""}},
		{"progressing", func(c conditions) { c.progressing("in flight") },
			want{"Unknown/Progressing", "True/Progressing", ""}},
		{"transient failure", func(c conditions) { c.failed(v1alpha1.ReasonListUnreachable, "down") },
			want{"False/ListUnreachable", "True/ListUnreachable", ""}},
		{"stalled failure", func(c conditions) { c.failed(v1alpha1.ReasonInvalidDocument, "bad") },
			want{"False/InvalidDocument", "", "True/InvalidDocument"}},
		{"stalled then progressing", func(c conditions) {
			c.failed(v1alpha1.ReasonUnauthorized, "401")
			c.progressing("retry")
		}, want{"Unknown/Progressing", "True/Progressing", ""}},
		{"reconciling then stalled", func(c conditions) {
			c.failed(v1alpha1.ReasonListUnreachable, "down")
			c.failed(v1alpha1.ReasonRejected, "400")
		}, want{"False/Rejected", "", "True/Rejected"}},
		{"stalled then ready", func(c conditions) {
			c.failed(v1alpha1.ReasonSecretNotFound, "gone")
			c.ready(v1alpha1.ReasonReady, "ok")
		}, want{"True/Ready", "", ""}},
		{"waiting is never stalled", func(c conditions) { c.waiting(v1alpha1.ReasonListNotFound, "no list") },
			want{"False/ListNotFound", "True/ListNotFound", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var conds []metav1.Condition
			var observed int64
			tt.apply(conditions{list: &conds, observed: &observed, generation: 7})
			if observed != 7 {
				t.Errorf("observedGeneration = %d, want 7", observed)
			}
			got := func(typ string) string {
				c := meta.FindStatusCondition(conds, typ)
				if c == nil {
					return ""
				}
				if c.ObservedGeneration != 7 {
					t.Errorf("%s observedGeneration = %d, want 7", typ, c.ObservedGeneration)
				}
				return fmt.Sprintf("%s/%s", c.Status, c.Reason)
			}
			if g := got(v1alpha1.ConditionReady); g != tt.want.ready {
				t.Errorf("Ready = %q, want %q", g, tt.want.ready)
			}
			if g := got(v1alpha1.ConditionReconciling); g != tt.want.reconciling {
				t.Errorf("Reconciling = %q, want %q", g, tt.want.reconciling)
			}
			if g := got(v1alpha1.ConditionStalled); g != tt.want.stalled {
				t.Errorf("Stalled = %q, want %q", g, tt.want.stalled)
			}
		})
	}
}

func TestResyncDue(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	period := 10 * time.Minute
	synced := func(ago time.Duration, readyStatus metav1.ConditionStatus, readyGen int64, handled string) *v1alpha1.ExternalListStatus {
		last := metav1.NewTime(now.Add(-ago))
		return &v1alpha1.ExternalListStatus{
			LastSyncTime:           &last,
			LastHandledReconcileAt: handled,
			Conditions: []metav1.Condition{{
				Type: v1alpha1.ConditionReady, Status: readyStatus, Reason: "x", ObservedGeneration: readyGen,
			}},
		}
	}
	tests := []struct {
		name      string
		status    *v1alpha1.ExternalListStatus
		requested string
		want      bool
	}{
		{"never synced", &v1alpha1.ExternalListStatus{}, "", true},
		{"recent, ready, same generation", synced(time.Minute, metav1.ConditionTrue, 3, ""), "", false},
		{"interval up", synced(period, metav1.ConditionTrue, 3, ""), "", true},
		{"new generation (spec change)", synced(time.Minute, metav1.ConditionTrue, 2, ""), "", true},
		{"not ready (recovering)", synced(time.Minute, metav1.ConditionFalse, 3, ""), "", true},
		{"no Ready condition", &v1alpha1.ExternalListStatus{LastSyncTime: &metav1.Time{Time: now}}, "", true},
		{"reconcile requested", synced(time.Minute, metav1.ConditionTrue, 3, ""), "1700000000", true},
		{"request already handled", synced(time.Minute, metav1.ConditionTrue, 3, "1700000000"), "1700000000", false},
		{"new request", synced(time.Minute, metav1.ConditionTrue, 3, "1700000000"), "1700000001", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := resyncDue(tt.status, 3, tt.requested, now, period); got != tt.want {
				t.Errorf("resyncDue = %t, want %t", got, tt.want)
			}
		})
	}
}

func TestNamedIDs(t *testing.T) {
	t.Parallel()
	ids := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("id-%d", i)
		}
		return out
	}
	tests := []struct {
		name string
		ids  []string
		want string
	}{
		{"none", nil, ""},
		{"one", []string{"a"}, `"a"`},
		{"quoted", []string{`we"ird`, "b c"}, `"we\"ird", "b c"`},
		{"exactly ten", ids(10), `"id-0", "id-1", "id-2", "id-3", "id-4", "id-5", "id-6", "id-7", "id-8", "id-9"`},
		{"eleven", ids(11), `"id-0", "id-1", "id-2", "id-3", "id-4", "id-5", "id-6", "id-7", "id-8", "id-9" and 1 more`},
		{"thousand", ids(1000), `"id-0", "id-1", "id-2", "id-3", "id-4", "id-5", "id-6", "id-7", "id-8", "id-9" and 990 more`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := namedIDs(tt.ids); got != tt.want {
				t.Errorf("namedIDs = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestDriftMessage(t *testing.T) {
	t.Parallel()
	many := make([]string, 25)
	for i := range many {
		many[i] = fmt.Sprintf("f%02d", i)
	}
	tests := []struct {
		name           string
		added, removed []string
		want           string
	}{
		{"added only", []string{"a", "b"}, nil, `drift corrected: added 2 IDs ("a", "b"), removed 0`},
		{"removed only", nil, []string{"x"}, `drift corrected: added 0 IDs, removed 1 ("x")`},
		{"both, bounded", []string{"a"}, many,
			`drift corrected: added 1 IDs ("a"), removed 25 ("f00", "f01", "f02", "f03", "f04", "f05", "f06", "f07", "f08", "f09" and 15 more)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := driftMessage(tt.added, tt.removed); got != tt.want {
				t.Errorf("driftMessage =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestForeignIDs(t *testing.T) {
	t.Parallel()
	got := foreignIDs([]string{"a", "x", "b", "x", "y"}, []string{"a", "b", "c"})
	if strings.Join(got, ",") != "x,y" {
		t.Errorf("foreignIDs = %v, want [x y] (distinct, in list order)", got)
	}
	if got := foreignIDs([]string{"a"}, []string{"a"}); len(got) != 0 {
		t.Errorf("foreignIDs = %v, want none", got)
	}
}

func TestPredicates(t *testing.T) {
	t.Parallel()
	entry := func(ann string) *v1alpha1.ListEntry {
		e := &v1alpha1.ListEntry{}
		if ann != "" {
			e.Annotations = map[string]string{v1alpha1.ReconcileRequestedAtAnnotation: ann}
		}
		return e
	}
	list := func(ready metav1.ConditionStatus, reason ...string) *v1alpha1.ExternalList {
		xl := &v1alpha1.ExternalList{}
		if ready != "" {
			xl.Status.Conditions = []metav1.Condition{{Type: v1alpha1.ConditionReady, Status: ready, Reason: strings.Join(reason, "")}}
		}
		return xl
	}
	counted := func(items int32) *v1alpha1.ExternalList {
		xl := list(metav1.ConditionTrue)
		xl.Status.ItemCount = items
		return xl
	}
	rr, br := reconcileRequested(), listChanged()
	tests := []struct {
		name string
		got  bool
		want bool
	}{
		{"annotation set", rr.Update(event.UpdateEvent{ObjectOld: entry(""), ObjectNew: entry("1")}), true},
		{"annotation changed", rr.Update(event.UpdateEvent{ObjectOld: entry("1"), ObjectNew: entry("2")}), true},
		{"annotation unchanged", rr.Update(event.UpdateEvent{ObjectOld: entry("1"), ObjectNew: entry("1")}), false},
		{"no annotation", rr.Update(event.UpdateEvent{ObjectOld: entry(""), ObjectNew: entry("")}), false},
		{"False to True", br.Update(event.UpdateEvent{ObjectOld: list(metav1.ConditionFalse), ObjectNew: list(metav1.ConditionTrue)}), true},
		{"Unknown to True", br.Update(event.UpdateEvent{ObjectOld: list(metav1.ConditionUnknown), ObjectNew: list(metav1.ConditionTrue)}), true},
		{"absent to True", br.Update(event.UpdateEvent{ObjectOld: list(""), ObjectNew: list(metav1.ConditionTrue)}), true},
		{"True to True", br.Update(event.UpdateEvent{ObjectOld: list(metav1.ConditionTrue), ObjectNew: list(metav1.ConditionTrue)}), false},
		{"True to False (its entries must say why)", br.Update(event.UpdateEvent{ObjectOld: list(metav1.ConditionTrue), ObjectNew: list(metav1.ConditionFalse)}), true},
		{"False, another reason (lost its claim)", br.Update(event.UpdateEvent{
			ObjectOld: list(metav1.ConditionFalse, v1alpha1.ReasonListUnreachable),
			ObjectNew: list(metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse)}), true},
		{"only counts changed", br.Update(event.UpdateEvent{ObjectOld: counted(1), ObjectNew: counted(2)}), false},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %t, want %t", tt.name, tt.got, tt.want)
		}
	}
}
