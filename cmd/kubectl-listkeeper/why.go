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
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// whyReport is what `why` explains: an entry and its list, or a list.
type whyReport struct {
	// Target is what the user asked about.
	Target ref
	// Entry is the entry when Target is one; nil for a list.
	Entry *v1alpha1.ListEntry
	// ListRef names the list: Target, or the entry's list.
	ListRef ref
	// List is the list; nil when ListErr says why it could not be read.
	List    v1alpha1.List
	ListErr error
	// Claim is the list's claim, read when a condition says
	// DocumentInUse.
	Claim claimView
}

// runWhy explains the conditions of the object r names.
func runWhy(ctx context.Context, e *env, r ref) error {
	rep, err := readWhy(ctx, e, r)
	if err != nil {
		return err
	}
	renderWhy(e.out, rep, e.now())
	return nil
}

// readWhy reads the object r names, its list, and the list's claim when a
// condition says DocumentInUse.
func readWhy(ctx context.Context, e *env, r ref) (*whyReport, error) {
	rep := &whyReport{Target: r, ListRef: r}
	if r.Kind == kindListEntry {
		var le v1alpha1.ListEntry
		if err := e.c.Get(ctx, r.key(), &le); err != nil {
			return nil, fmt.Errorf("get %s: %w", r, err)
		}
		rep.Entry, rep.ListRef = &le, listRefOf(&le)
	}
	l, err := getList(ctx, e.c, rep.ListRef)
	switch {
	case err == nil:
		rep.List = l
	case rep.Entry != nil && (apierrors.IsNotFound(err) || apierrors.IsForbidden(err)):
		rep.ListErr = err
		return rep, nil
	default:
		return nil, err
	}
	if reasonOf(rep.entryConditions()) == v1alpha1.ReasonDocumentInUse || reasonOf(l.ListStatus().Conditions) == v1alpha1.ReasonDocumentInUse {
		if rep.Claim, err = claimOf(ctx, e.c, l); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

func (rep *whyReport) entryConditions() []metav1.Condition {
	if rep.Entry == nil {
		return nil
	}
	return rep.Entry.Status.Conditions
}

// reasonOf is the reason of Ready in conds, "" without one.
func reasonOf(conds []metav1.Condition) string {
	if c := meta.FindStatusCondition(conds, v1alpha1.ConditionReady); c != nil {
		return c.Reason
	}
	return ""
}

// renderWhy writes rep in words: a headline with the cause and the next
// step, then the conditions it was read from.
func renderWhy(w io.Writer, rep *whyReport, now time.Time) {
	if rep.Entry != nil {
		fmt.Fprintln(w, entryHeadline(rep))
	} else {
		fmt.Fprintln(w, listHeadline(rep))
	}
	if rep.Entry != nil {
		if s := listAside(rep); s != "" {
			fmt.Fprintln(w, s)
		}
		fmt.Fprintf(w, "\n%s (ID %q on %s %q):\n", rep.Target, rep.Entry.Spec.ID, rep.ListRef.Kind, rep.ListRef.Name)
		writeConditions(w, rep.Entry.Status.Conditions, rep.Entry.Generation, now)
	}
	fmt.Fprintf(w, "\n%s:\n", rep.ListRef)
	switch {
	case rep.List == nil && apierrors.IsNotFound(rep.ListErr):
		fmt.Fprintln(w, "  does not exist")
	case rep.List == nil:
		fmt.Fprintf(w, "  cannot be read: %v\n", rep.ListErr)
	default:
		writeConditions(w, rep.List.ListStatus().Conditions, rep.List.GetGeneration(), now)
		if rep.Claim.Known {
			fmt.Fprintf(w, "  Claim: %s\n", claimText(rep.Claim))
		}
	}
}

// entryHeadline says whether the entry's ID is on its list and, when it
// is not, why and what to do.
func entryHeadline(rep *whyReport) string {
	e, list := rep.Entry, rep.ListRef.Name
	ready := meta.FindStatusCondition(e.Status.Conditions, v1alpha1.ConditionReady)
	synced := meta.FindStatusCondition(e.Status.Conditions, v1alpha1.ConditionSynced)
	switch {
	case e.DeletionTimestamp != nil:
		s := fmt.Sprintf("%s is being deleted: its finalizer %s holds it until its ID is off list %s.", e.Name, v1alpha1.FinalizerName, list)
		if ready != nil && ready.Status == metav1.ConditionFalse {
			s += " The last attempt failed: " + because(rep, ready.Reason)
		}
		return s
	case ready == nil:
		return fmt.Sprintf("%s has no status yet: no replica of the operator has reconciled it. Check that the operator runs; `kubectl listkeeper status %s` names the replica that writes the list's document.",
			e.Name, rep.ListRef.arg())
	case ready.Status == metav1.ConditionTrue:
		return fmt.Sprintf("%s is on list %s (%s): nothing to do.", e.Name, list, ready.Reason)
	case ready.Status == metav1.ConditionUnknown:
		return fmt.Sprintf("%s's change to list %s is in flight (%s): wait.", e.Name, list, ready.Reason)
	}
	subject := fmt.Sprintf("%s is not on list %s", e.Name, list)
	if synced != nil && synced.Status == metav1.ConditionTrue {
		subject = fmt.Sprintf("%s's ID is on list %s, but its last change failed", e.Name, list)
	}
	return subject + ": " + because(rep, ready.Reason) + retrying(e.Status.Conditions, rep.Target)
}

// listHeadline says whether the list is ready and, when it is not, why and
// what to do.
func listHeadline(rep *whyReport) string {
	conds := rep.List.ListStatus().Conditions
	ready := meta.FindStatusCondition(conds, v1alpha1.ConditionReady)
	name := rep.ListRef.Name
	switch {
	case ready == nil:
		return fmt.Sprintf("%s has no status yet: no replica of the operator has reconciled it. Check that the operator runs; `kubectl listkeeper status %s` names the replica that writes its document.", name, rep.ListRef.arg())
	case ready.Status == metav1.ConditionTrue:
		return fmt.Sprintf("%s is ready (%s): %s; nothing to do.", name, ready.Reason, explain(ready.Reason).Meaning)
	case ready.Status == metav1.ConditionUnknown:
		return fmt.Sprintf("%s is reconciling (%s): wait.", name, ready.Reason)
	}
	return fmt.Sprintf("%s is not ready: %s", name, because(rep, ready.Reason)) + retrying(conds, rep.Target)
}

// listAside explains the entry's list when it is not ready for another
// reason than the entry: the entry's trouble may start there.
func listAside(rep *whyReport) string {
	if rep.List == nil {
		return ""
	}
	lr := meta.FindStatusCondition(rep.List.ListStatus().Conditions, v1alpha1.ConditionReady)
	if lr == nil || lr.Status != metav1.ConditionFalse || lr.Reason == reasonOf(rep.Entry.Status.Conditions) {
		return ""
	}
	return fmt.Sprintf("Its list %s is not ready either: %s", rep.ListRef.Name, because(rep, lr.Reason))
}

// because is "cause (Reason). Next step." for reason, with the cause made
// concrete where the plugin knows more than the table: the claim's holder,
// a list that does not exist.
func because(rep *whyReport, reason string) string {
	x := explain(reason)
	cause := x.Meaning
	switch {
	case reason == v1alpha1.ReasonDocumentInUse && rep.Claim.Known && !rep.Claim.Held:
		cause = "the list's document is claimed by " + rep.Claim.Holder
	case reason == v1alpha1.ReasonListNotFound && rep.List == nil && apierrors.IsNotFound(rep.ListErr):
		cause = rep.ListRef.String() + " does not exist"
	}
	return fmt.Sprintf("%s (%s). %s.", cause, reason, capitalize(x.Action))
}

// retrying says who acts next, from the kstatus conditions: the user
// (Stalled) or the operator (Reconciling).
func retrying(conds []metav1.Condition, target ref) string {
	if c := meta.FindStatusCondition(conds, v1alpha1.ConditionStalled); c != nil && c.Status == metav1.ConditionTrue {
		return fmt.Sprintf(" The operator waits for that change; once it is made, `kubectl listkeeper reconcile %s` skips the remaining backoff.", target.arg())
	}
	if c := meta.FindStatusCondition(conds, v1alpha1.ConditionReconciling); c != nil && c.Status == metav1.ConditionTrue {
		return " The operator retries on its own."
	}
	return ""
}

// conditionOrder is the order conditions are listed in; others follow by
// type.
var conditionOrder = []string{v1alpha1.ConditionReady, v1alpha1.ConditionReconciling, v1alpha1.ConditionStalled, v1alpha1.ConditionSynced}

// writeConditions lists conds, one a line, each message once, and says
// when they describe an older generation than the object's.
func writeConditions(w io.Writer, conds []metav1.Condition, generation int64, now time.Time) {
	if len(conds) == 0 {
		fmt.Fprintln(w, "  no conditions yet")
		return
	}
	sorted := slices.Clone(conds)
	rank := func(t string) int {
		if i := slices.Index(conditionOrder, t); i >= 0 {
			return i
		}
		return len(conditionOrder)
	}
	slices.SortStableFunc(sorted, func(a, b metav1.Condition) int {
		if ra, rb := rank(a.Type), rank(b.Type); ra != rb {
			return ra - rb
		}
		return strings.Compare(a.Type, b.Type)
	})
	said := map[string]string{} // message -> the type that said it first
	for _, c := range sorted {
		msg := c.Message
		if first, ok := said[msg]; ok && msg != "" {
			msg = "the message of " + first
		} else {
			said[msg] = c.Type
		}
		fmt.Fprintf(w, "  %s=%s %s (since %s): %s\n", c.Type, c.Status, c.Reason, ago(c.LastTransitionTime.Time, now), msg)
		if c.ObservedGeneration != 0 && c.ObservedGeneration < generation {
			fmt.Fprintf(w, "    (describes generation %d; the object is at %d: the operator has not caught up yet)\n", c.ObservedGeneration, generation)
		}
	}
}
