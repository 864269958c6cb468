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
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// readyFor is the Ready status a condition with reason has: True for the
// reasons of success, Unknown for a change in flight, else False.
func readyFor(reason string) metav1.ConditionStatus {
	switch reason {
	case v1alpha1.ReasonAdded, v1alpha1.ReasonReady:
		return metav1.ConditionTrue
	case v1alpha1.ReasonProgressing:
		return metav1.ConditionUnknown
	}
	return metav1.ConditionFalse
}

// TestWhyEveryReason renders `why` for an entry, and for a list, whose
// Ready has each reason of api/v1alpha1/conditions.go, and checks the
// headline: its explanation and next step for a failure.
func TestWhyEveryReason(t *testing.T) {
	now := t0.Add(time.Hour)
	for _, reason := range conditionReasons(t) {
		t.Run(reason, func(t *testing.T) {
			status := readyFor(reason)
			ready := cond(v1alpha1.ConditionReady, status, reason, "the operator's message", t0)
			x := explain(reason)

			entry := &v1alpha1.ListEntry{
				ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "tenant-a", Generation: 1},
				Spec:       v1alpha1.ListEntrySpec{ListRef: v1alpha1.ListReference{Name: "allow-list"}, ID: "tenant-a"},
				Status:     v1alpha1.ListEntryStatus{Conditions: []metav1.Condition{ready}},
			}
			list := xl("team-a", "allow-list", "m", "https://lists.example.com/allow", 0,
				cond(v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, "ok", t0))
			rep := &whyReport{Target: ref{Kind: kindListEntry, Namespace: "team-a", Name: "tenant-a"}, Entry: entry,
				ListRef: ref{Kind: kindExternalList, Namespace: "team-a", Name: "allow-list"}, List: list}
			var want string
			switch status {
			case metav1.ConditionTrue:
				want = fmt.Sprintf("tenant-a is on list allow-list (%s): nothing to do.", reason)
			case metav1.ConditionUnknown:
				want = fmt.Sprintf("tenant-a's change to list allow-list is in flight (%s): wait.", reason)
			default:
				want = fmt.Sprintf("tenant-a is not on list allow-list: %s (%s). %s.", x.Meaning, reason, capitalize(x.Action))
			}
			var out bytes.Buffer
			renderWhy(&out, rep, now)
			if got := lines(out.String())[0]; got != want {
				t.Errorf("entry headline:\n  %s\nwant\n  %s", got, want)
			}
			if !strings.Contains(out.String(), "  Ready="+string(status)+" "+reason+" (since 60m ago): the operator's message\n") {
				t.Errorf("the entry's conditions are not listed:\n%s", &out)
			}

			list.Status.Conditions = []metav1.Condition{ready}
			rep = &whyReport{Target: ref{Kind: kindExternalList, Namespace: "team-a", Name: "allow-list"}, ListRef: rep.ListRef, List: list}
			switch status {
			case metav1.ConditionTrue:
				want = fmt.Sprintf("allow-list is ready (%s): %s; nothing to do.", reason, x.Meaning)
			case metav1.ConditionUnknown:
				want = fmt.Sprintf("allow-list is reconciling (%s): wait.", reason)
			default:
				want = fmt.Sprintf("allow-list is not ready: %s (%s). %s.", x.Meaning, reason, capitalize(x.Action))
			}
			out.Reset()
			renderWhy(&out, rep, now)
			if got := lines(out.String())[0]; got != want {
				t.Errorf("list headline:\n  %s\nwant\n  %s", got, want)
			}
		})
	}
}

// TestWhyHeadlines covers what the headline adds to the table: the claim's
// holder, a missing list, who acts next, a deleting entry, an entry
// without status, a list that fails for another reason, a reason this
// plugin does not know.
func TestWhyHeadlines(t *testing.T) {
	now := t0.Add(time.Hour)
	listRef := ref{Kind: kindExternalList, Namespace: "team-a", Name: "allow-list"}
	target := ref{Kind: kindListEntry, Namespace: "team-a", Name: "tenant-a"}
	entry := func(conds ...metav1.Condition) *v1alpha1.ListEntry {
		return &v1alpha1.ListEntry{
			ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "tenant-a", Generation: 1},
			Spec:       v1alpha1.ListEntrySpec{ListRef: v1alpha1.ListReference{Name: "allow-list"}, ID: "tenant-a"},
			Status:     v1alpha1.ListEntryStatus{Conditions: conds},
		}
	}
	okList := xl("team-a", "allow-list", "m", "https://lists.example.com/allow", 0, cond(v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, "ok", t0))
	failing := func(reason string) metav1.Condition {
		return cond(v1alpha1.ConditionReady, metav1.ConditionFalse, reason, "msg", t0)
	}
	stalled := func(reason string) metav1.Condition {
		return cond(v1alpha1.ConditionStalled, metav1.ConditionTrue, reason, "msg", t0)
	}
	deleting := entry(failing(v1alpha1.ReasonListUnreachable))
	deleting.DeletionTimestamp = &metav1.Time{Time: t0}
	notFound := apierrors.NewNotFound(schema.GroupResource{Group: "listkeeper.dev", Resource: "externallists"}, "allow-list")
	inUseList := xl("team-a", "allow-list", "m", "https://lists.example.com/allow", 0, failing(v1alpha1.ReasonDocumentInUse), stalled(v1alpha1.ReasonDocumentInUse))
	tests := []struct {
		name string
		rep  whyReport
		want string
	}{
		{
			name: "document in use",
			rep: whyReport{Entry: entry(failing(v1alpha1.ReasonDocumentInUse), stalled(v1alpha1.ReasonDocumentInUse)), List: inUseList,
				Claim: claimView{Known: true, Holder: `ExternalList "other"`}},
			want: `tenant-a is not on list allow-list: the list's document is claimed by ExternalList "other" (DocumentInUse). ` +
				"Delete one of the two lists, point this one at another document, or share the list with a ClusterExternalList; it takes the claim by itself when the holder goes. " +
				"The operator waits for that change; once it is made, `kubectl listkeeper reconcile le/tenant-a` skips the remaining backoff.",
		},
		{
			name: "list missing",
			rep:  whyReport{Entry: entry(failing(v1alpha1.ReasonListNotFound), cond(v1alpha1.ConditionReconciling, metav1.ConditionTrue, v1alpha1.ReasonListNotFound, "msg", t0)), ListErr: notFound},
			want: "tenant-a is not on list allow-list: ExternalList team-a/allow-list does not exist (ListNotFound). " +
				"Create the ExternalList or the document, or set createIfMissing: true. The operator retries on its own.",
		},
		{
			name: "ID on the list, last change failed",
			rep:  whyReport{Entry: entry(failing(v1alpha1.ReasonListUnreachable), cond(v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, "", t0)), List: okList},
			want: "tenant-a's ID is on list allow-list, but its last change failed: connection refused, timeout, TLS error, 5xx/429 after retries, or an unexpected status (ListUnreachable). " +
				"Check the URL, the network policy, the CA bundle.",
		},
		{
			name: "deleting",
			rep:  whyReport{Entry: deleting, List: okList},
			want: "tenant-a is being deleted: its finalizer listkeeper.dev/cleanup holds it until its ID is off list allow-list. " +
				"The last attempt failed: connection refused, timeout, TLS error, 5xx/429 after retries, or an unexpected status (ListUnreachable). Check the URL, the network policy, the CA bundle.",
		},
		{
			name: "no status",
			rep:  whyReport{Entry: entry(), List: okList},
			want: "tenant-a has no status yet: no replica of the operator has reconciled it. Check that the operator runs; `kubectl listkeeper status xl/allow-list` names the replica that writes the list's document.",
		},
		{
			name: "unknown reason",
			rep:  whyReport{Entry: entry(failing("SomethingNew")), List: okList},
			want: "tenant-a is not on list allow-list: a reason this version of kubectl-listkeeper does not know (SomethingNew). " +
				"Read the condition's message, and update kubectl-listkeeper to the operator's version.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.rep.Target, tt.rep.ListRef = target, listRef
			var out bytes.Buffer
			renderWhy(&out, &tt.rep, now)
			if got := lines(out.String())[0]; got != tt.want {
				t.Errorf("headline:\n  %s\nwant\n  %s\nwhole output:\n%s", got, tt.want, &out)
			}
		})
	}

	t.Run("list fails for another reason", func(t *testing.T) {
		l := xl("team-a", "allow-list", "m", "https://lists.example.com/allow", 0, failing(v1alpha1.ReasonUnauthorized), stalled(v1alpha1.ReasonUnauthorized))
		rep := whyReport{Target: target, ListRef: listRef, Entry: entry(failing(v1alpha1.ReasonConflictRetriesExhausted)), List: l}
		var out bytes.Buffer
		renderWhy(&out, &rep, now)
		want := "Its list allow-list is not ready either: the server answered 401 or 403 (Unauthorized). Check the token or credentials in the Secret, and the permissions they carry."
		if got := lines(out.String())[1]; got != want {
			t.Errorf("second line:\n  %s\nwant\n  %s", got, want)
		}
	})
}

// TestWhyAgainstTheCluster runs `why` on entries whose list's document is
// claimed by another list, and whose list does not exist.
func TestWhyAgainstTheCluster(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t, "why")
	now := time.Now().Truncate(time.Second)
	since := now.Add(-2 * time.Minute)
	other := createList(t, &v1alpha1.ExternalList{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "other"},
		Spec:       v1alpha1.ExternalListSpec{URL: listURL(ns)},
		Status: v1alpha1.ExternalListStatus{Conditions: []metav1.Condition{
			cond(v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, "1 items", since)}},
	})
	afterCreation(other)
	msg := `the document and items pointer this list names are claimed by ExternalList "other": only the claim's holder writes the document; delete one of the lists, or point this one at another document`
	createList(t, &v1alpha1.ExternalList{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "allow-list"},
		Spec:       v1alpha1.ExternalListSpec{URL: listURL(ns)},
		Status: v1alpha1.ExternalListStatus{Conditions: []metav1.Condition{
			cond(v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse, msg, since),
			cond(v1alpha1.ConditionStalled, metav1.ConditionTrue, v1alpha1.ReasonDocumentInUse, msg, since)}},
	})
	entryMsg := `ExternalList "allow-list" does not hold the claim on its document: ` + msg
	createEntry(t, ns, "tenant-a", v1alpha1.ListReference{Name: "allow-list"},
		cond(v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse, entryMsg, since),
		cond(v1alpha1.ConditionStalled, metav1.ConditionTrue, v1alpha1.ReasonDocumentInUse, entryMsg, since),
		cond(v1alpha1.ConditionSynced, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse, entryMsg, since))
	createEntry(t, ns, "orphan", v1alpha1.ListReference{Name: "no-such-list"},
		cond(v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonListNotFound, `ExternalList "no-such-list" not found`, since),
		cond(v1alpha1.ConditionReconciling, metav1.ConditionTrue, v1alpha1.ReasonListNotFound, `ExternalList "no-such-list" not found`, since))

	e, out := testEnvFor(t, ns, now)
	if err := runWhy(ctx, e, ref{Kind: kindListEntry, Namespace: ns, Name: "tenant-a"}); err != nil {
		t.Fatal(err)
	}
	t.Logf("why tenant-a:\n%s", out)
	want := []string{
		`tenant-a is not on list allow-list: the list's document is claimed by ExternalList "other" (DocumentInUse). Delete one of the two lists, point this one at another document, or share the list with a ClusterExternalList; it takes the claim by itself when the holder goes. The operator waits for that change; once it is made, ` + "`kubectl listkeeper reconcile le/tenant-a`" + ` skips the remaining backoff.`,
		``,
		`ListEntry ` + ns + `/tenant-a (ID "tenant-a" on ExternalList "allow-list"):`,
		`  Ready=False DocumentInUse (since 2m ago): ` + entryMsg,
		`  Stalled=True DocumentInUse (since 2m ago): the message of Ready`,
		`  Synced=False DocumentInUse (since 2m ago): the message of Ready`,
		``,
		`ExternalList ` + ns + `/allow-list:`,
		`  Ready=False DocumentInUse (since 2m ago): ` + msg,
		`  Stalled=True DocumentInUse (since 2m ago): the message of Ready`,
		`  Claim: does not hold the claim on its document: ExternalList "other" does`,
	}
	if got := lines(out.String()); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("why tenant-a:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	out.Reset()
	if err := runWhy(ctx, e, ref{Kind: kindListEntry, Namespace: ns, Name: "orphan"}); err != nil {
		t.Fatal(err)
	}
	if got, want := lines(out.String())[0], "orphan is not on list no-such-list: ExternalList "+ns+"/no-such-list does not exist (ListNotFound)."; !strings.HasPrefix(got, want) {
		t.Errorf("why orphan: %q, want it to start with %q", got, want)
	}
	if !strings.Contains(out.String(), "ExternalList "+ns+"/no-such-list:\n  does not exist\n") {
		t.Errorf("why orphan does not say the list does not exist:\n%s", out)
	}

	if err := runWhy(ctx, e, ref{Kind: kindListEntry, Namespace: ns, Name: "nobody"}); !apierrors.IsNotFound(err) {
		t.Errorf("why of a missing entry: %v, want NotFound", err)
	}
}
