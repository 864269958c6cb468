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
	"maps"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/listconfig"
)

// reconcileRequested passes updates that change the
// listkeeper.dev/reconcile-requested-at annotation, so that a request for
// an immediate reconcile gets through predicates that drop metadata-only
// updates.
func reconcileRequested() predicate.Predicate {
	return onlyUpdates(func(e event.UpdateEvent) bool {
		if e.ObjectOld == nil || e.ObjectNew == nil {
			return false
		}
		return requestedAt(e.ObjectOld) != requestedAt(e.ObjectNew)
	})
}

// requestedAt returns obj's listkeeper.dev/reconcile-requested-at value.
func requestedAt(obj client.Object) string {
	return obj.GetAnnotations()[v1alpha1.ReconcileRequestedAtAnnotation]
}

// onlyUpdates passes the update events that update accepts, and no create,
// delete or generic event.
func onlyUpdates(update func(event.UpdateEvent) bool) predicate.Predicate {
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
		UpdateFunc:  update,
	}
}

// specOrDeletionChanged passes creates and deletes, and updates that change
// the spec (generation) or start a deletion. Status and finalizer updates,
// which the controller makes itself, do not queue the object again.
func specOrDeletionChanged() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			if e.ObjectOld == nil || e.ObjectNew == nil {
				return true
			}
			return e.ObjectOld.GetGeneration() != e.ObjectNew.GetGeneration() ||
				e.ObjectOld.GetDeletionTimestamp().IsZero() != e.ObjectNew.GetDeletionTimestamp().IsZero()
		},
	}
}

// listChanged passes the list events that can change what its entries
// should do: creates and deletes; updates that change the spec
// (generation), start a deletion, publish another document, or change the
// Ready condition's status or reason (the list turned Ready, or lost its
// claim).
func listChanged() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			oldList, ok1 := e.ObjectOld.(v1alpha1.List)
			newList, ok2 := e.ObjectNew.(v1alpha1.List)
			if !ok1 || !ok2 {
				return true
			}
			if oldList.GetGeneration() != newList.GetGeneration() ||
				(oldList.GetDeletionTimestamp() == nil) != (newList.GetDeletionTimestamp() == nil) ||
				listconfig.DocumentOf(oldList) != listconfig.DocumentOf(newList) || listconfig.HasStanding(oldList) != listconfig.HasStanding(newList) ||
				!equality.Semantic.DeepEqual(oldList.ListStatus().VanishedEntries, newList.ListStatus().VanishedEntries) {
				return true
			}
			o := meta.FindStatusCondition(oldList.ListStatus().Conditions, v1alpha1.ConditionReady)
			n := meta.FindStatusCondition(newList.ListStatus().Conditions, v1alpha1.ConditionReady)
			switch {
			case o == nil || n == nil:
				return (o == nil) != (n == nil)
			default:
				return o.Status != n.Status || o.Reason != n.Reason
			}
		},
	}
}

// placementCleared passes updates of a ListEntry whose status.addedTo
// went: its ID is off the document it was added to, and the entry moves
// to the bucket of its list's own document (see reconcileMoved), whose
// owner must look at it. Setting addedTo, which every added entry does
// once, passes nothing.
func placementCleared() predicate.Predicate {
	return onlyUpdates(func(e event.UpdateEvent) bool {
		o, ok1 := e.ObjectOld.(*v1alpha1.ListEntry)
		n, ok2 := e.ObjectNew.(*v1alpha1.ListEntry)
		return ok1 && ok2 && o.Status.AddedTo != nil && n.Status.AddedTo == nil
	})
}

// labelsChanged passes updates that change an object's labels, and no
// create, delete or generic event.
func labelsChanged() predicate.Predicate {
	return onlyUpdates(func(e event.UpdateEvent) bool {
		if e.ObjectOld == nil || e.ObjectNew == nil {
			return false
		}
		return !maps.Equal(e.ObjectOld.GetLabels(), e.ObjectNew.GetLabels())
	})
}

// documentPublished passes list updates whose document, as the cache can
// know it (listconfig.DocumentOf), changed: a URL from a Secret was read, so the
// list's work moves to the replica that owns that document.
func documentPublished() predicate.Predicate {
	return onlyUpdates(func(e event.UpdateEvent) bool {
		o, ok1 := e.ObjectOld.(v1alpha1.List)
		n, ok2 := e.ObjectNew.(v1alpha1.List)
		return ok1 && ok2 && listconfig.DocumentOf(o) != listconfig.DocumentOf(n)
	})
}

// claimantsChanged passes the list events that can change who holds a
// claim: creates, deletes, and updates that change the list's claim or
// its standing in it (see listconfig.HasStanding).
func claimantsChanged() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, ok1 := e.ObjectOld.(v1alpha1.List)
			n, ok2 := e.ObjectNew.(v1alpha1.List)
			return ok1 && ok2 && (listconfig.ClaimKey(o) != listconfig.ClaimKey(n) || listconfig.HasStanding(o) != listconfig.HasStanding(n))
		},
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}
