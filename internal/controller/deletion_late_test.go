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
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// TestDeletionPolicyDeleteWaitsForAnAddInFlight: an entry's add is in
// flight (its PUT held by a slow server, longer than the cleanup's two
// clean passes) when its list, with deletionPolicy Delete, is deleted.
// Before, the cleanup ran apart from the add (another replica, another
// client) and let the list go after two clean passes 5 s apart; the add
// then landed and the ID stayed with no list to account for it. Now every
// change to a document goes through its owner's one client, in order: the
// cleanup's removal follows the add, and the list goes only after it.
func TestDeletionPolicyDeleteWaitsForAnAddInFlight(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	srv := newGatedServer(t)
	startManager(t, managerConfig{namespace: ns, lateWriteBound: time.Second})
	setDoc(t, srv.Server, "/list", []string{"bystander"})
	xl := newExternalList(ns, "going", srv.url+"/list", func(s *v1alpha1.ExternalListSpec) {
		s.DeletionPolicy = v1alpha1.DeletionPolicyDelete
	})
	create(t, xl)
	createSynced(t, ns, "going", "early")
	eventually(t, waitTimeout, "the cleanup finalizer", func() error {
		if f := finalizers(t, xl); !slices.Contains(f, v1alpha1.FinalizerName) {
			return fmt.Errorf("finalizers %v", f)
		}
		return nil
	})

	srv.hold()
	late := newListEntry(ns, "late", "going", "late")
	create(t, late)
	eventually(t, waitTimeout, "the late add's PUT at the gate", func() error {
		if srv.held.Load() == 0 {
			return fmt.Errorf("no PUT held yet")
		}
		return nil
	})
	deleteObj(t, xl)
	// Longer than two clean passes LateWriteBound apart.
	time.Sleep(3 * time.Second)
	if got := finalizers(t, xl); !slices.Contains(got, v1alpha1.FinalizerName) {
		t.Fatalf("the list let go (finalizers %v) while an add of its entry was in flight", got)
	}
	srv.release()
	waitGone(t, xl, waitTimeout)
	// Anything in flight has landed by now.
	time.Sleep(time.Second)
	wantItems(t, srv.Server, "/list", "bystander")
	waitCondition(t, late, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonListNotFound, waitTimeout)
}
