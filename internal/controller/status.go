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
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/safetext"
)

// maxConditionMessage bounds a condition's message, well under the API's
// 32 KiB: a message quotes errors, and an error may quote a server.
const maxConditionMessage = 1024

// conditions edits the kstatus conditions of one object's status (Ready,
// Reconciling, Stalled; Synced on a ListEntry), stamping each with the
// generation the reconcile acted on, and the status's observedGeneration
// with it: a reconcile always acts on the spec it read, so what it writes
// describes that generation.
type conditions struct {
	list       *[]metav1.Condition
	observed   *int64
	generation int64
}

func (c conditions) set(typ string, status metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(c.list, metav1.Condition{
		Type: typ, Status: status, Reason: reason, Message: safetext.Short(msg, maxConditionMessage), ObservedGeneration: c.generation,
	})
	*c.observed = c.generation
}

// ready records that the desired state holds: Ready=True, and Reconciling
// and Stalled (abnormal-true conditions) removed.
func (c conditions) ready(reason, msg string) {
	c.set(v1alpha1.ConditionReady, metav1.ConditionTrue, reason, msg)
	meta.RemoveStatusCondition(c.list, v1alpha1.ConditionReconciling)
	meta.RemoveStatusCondition(c.list, v1alpha1.ConditionStalled)
}

// progressing records a change in flight: Ready=Unknown and
// Reconciling=True, both with reason Progressing.
func (c conditions) progressing(msg string) {
	c.set(v1alpha1.ConditionReady, metav1.ConditionUnknown, v1alpha1.ReasonProgressing, msg)
	c.reconciling(v1alpha1.ReasonProgressing, msg)
}

// reconciling sets Reconciling=True and removes Stalled, leaving Ready as
// it is.
func (c conditions) reconciling(reason, msg string) {
	c.set(v1alpha1.ConditionReconciling, metav1.ConditionTrue, reason, msg)
	meta.RemoveStatusCondition(c.list, v1alpha1.ConditionStalled)
}

// failed records a failure: Ready=False with reason, and Stalled=True when
// the reason needs a change from the user (needsUser), Reconciling=True
// when the operator keeps retrying on its own.
func (c conditions) failed(reason, msg string) {
	if needsUser(reason) {
		c.stalled(reason, msg)
		return
	}
	c.waiting(reason, msg)
}

// waiting is failed for a failure that the operator waits out: Ready=False
// and Reconciling=True, whatever the reason.
func (c conditions) waiting(reason, msg string) {
	c.set(v1alpha1.ConditionReady, metav1.ConditionFalse, reason, msg)
	c.reconciling(reason, msg)
}

func (c conditions) stalled(reason, msg string) {
	c.set(v1alpha1.ConditionReady, metav1.ConditionFalse, reason, msg)
	c.set(v1alpha1.ConditionStalled, metav1.ConditionTrue, reason, msg)
	meta.RemoveStatusCondition(c.list, v1alpha1.ConditionReconciling)
}

// hasOutcome reports whether Ready is True or False for the current
// generation: an attempt for this spec has finished.
func (c conditions) hasOutcome() bool {
	r := meta.FindStatusCondition(*c.list, v1alpha1.ConditionReady)
	return r != nil && r.Status != metav1.ConditionUnknown && r.ObservedGeneration == c.generation
}

// patchStatus writes obj's status when it differs from what before had, with
// an optimistic lock: a replica that lost the object (partitioned, or its
// bucket moved) cannot write over what the new owner wrote since. A status
// that did not change costs no request.
func patchStatus(ctx context.Context, c client.Client, before, obj client.Object, beforeStatus, status any) error {
	if equality.Semantic.DeepEqual(beforeStatus, status) {
		return nil
	}
	patch := client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})
	// The status says how the reconcile ended, also when it ended because
	// its deadline passed: it gets a little time of its own.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), statusWriteTimeout)
	defer cancel()
	return client.IgnoreNotFound(c.Status().Patch(ctx, obj, patch))
}

// statusWriteTimeout bounds the status write that ends a reconcile, which
// may come after the reconcile's own deadline.
const statusWriteTimeout = 5 * time.Second
