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

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// patchFinalizer adds or removes listkeeper's finalizer on obj (a ListEntry
// or a list) with an optimistic lock: the patch carries the
// resourceVersion it was computed from, so it can never drop a finalizer
// that another controller added meanwhile, and never lands on an object
// that was deleted and created again under the same name. Its error is the
// API server's: NotFound means the object is gone, and an added finalizer
// did not land (nothing may then be written on its behalf).
func patchFinalizer(ctx context.Context, c client.Client, obj client.Object, edit func(client.Object, string) bool) error {
	patch := client.MergeFromWithOptions(obj.DeepCopyObject().(client.Object), client.MergeFromWithOptimisticLock{})
	if !edit(obj, v1alpha1.FinalizerName) {
		return nil
	}
	return c.Patch(ctx, obj, patch)
}
