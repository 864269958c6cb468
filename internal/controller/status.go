package controller

import (
	"context"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// setCondition sets the condition typ, stamped with the generation it
// describes, and the status's observedGeneration with it.
func setCondition(conds *[]metav1.Condition, observed *int64, generation int64, typ string, status metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(conds, metav1.Condition{
		Type: typ, Status: status, Reason: reason, Message: msg, ObservedGeneration: generation,
	})
	*observed = generation
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
	return client.IgnoreNotFound(c.Status().Patch(ctx, obj, patch))
}
