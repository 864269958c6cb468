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
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
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

// listBecameReady passes ExternalList updates whose Ready condition turned
// True (from False, Unknown or absent): the entries that backed off while
// the list failed are then worth trying at once.
func listBecameReady() predicate.Predicate {
	return onlyUpdates(func(e event.UpdateEvent) bool {
		oldList, ok1 := e.ObjectOld.(*v1alpha1.ExternalList)
		newList, ok2 := e.ObjectNew.(*v1alpha1.ExternalList)
		if !ok1 || !ok2 {
			return false
		}
		return !meta.IsStatusConditionTrue(oldList.Status.Conditions, v1alpha1.ConditionReady) &&
			meta.IsStatusConditionTrue(newList.Status.Conditions, v1alpha1.ConditionReady)
	})
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
