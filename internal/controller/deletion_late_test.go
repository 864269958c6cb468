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
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// TestDeletionPolicyDeleteKeepsALateHolder: deleting an ExternalList with
// deletionPolicy Delete decides which IDs other ExternalLists of the same
// document hold before its write, which can be delayed (here it is held at
// the server). An entry of another list created in that gap, with the ID of
// an entry of the deleted list, finds the ID on the list, so its add writes
// nothing and it reports Ready. The cleanup's write then removes the ID;
// the cleanup must put it back, so the Ready entry's ID is on the list.
func TestDeletionPolicyDeleteKeepsALateHolder(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	srv := newGatedServer(t)
	startManager(t, managerConfig{namespace: ns})
	setDoc(t, srv.Server, "/list", []string{"bystander"})
	going := newExternalList(ns, "going", srv.url+"/list", func(s *v1alpha1.ExternalListSpec) {
		s.DeletionPolicy = v1alpha1.DeletionPolicyDelete
	})
	// staying names the same document; createIfMissing gives it a list
	// client of its own, as other headers or credentials would, so its
	// entries' adds do not queue behind the cleanup's write.
	staying := newExternalList(ns, "staying", srv.url+"/list", func(s *v1alpha1.ExternalListSpec) {
		s.CreateIfMissing = true
		s.ResyncInterval = &metav1.Duration{Duration: time.Hour}
	})
	create(t, going)
	create(t, staying)
	createSynced(t, ns, "going", "only-mine", "shared")
	waitCondition(t, staying, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	eventually(t, waitTimeout, "the cleanup finalizer", func() error {
		if f := finalizers(t, going); !slices.Contains(f, v1alpha1.FinalizerName) {
			return fmt.Errorf("finalizers %v", f)
		}
		return nil
	})

	srv.hold()
	deleteObj(t, going)
	eventually(t, waitTimeout, "the cleanup's PUT to reach the gate", func() error {
		if srv.held.Load() == 0 {
			return errors.New("no PUT yet")
		}
		return nil
	})
	late := newListEntry(ns, "staying-shared", "staying", "shared")
	create(t, late)
	waitCondition(t, late, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	wantItems(t, srv.Server, "/list", "bystander", "only-mine", "shared") // the cleanup has not written yet
	srv.release()

	waitGone(t, going, waitTimeout)
	ev := waitEventAction(t, ns, "ExternalList", "going", corev1.EventTypeNormal, v1alpha1.ReasonRemoved, "Delete", waitTimeout)
	if !strings.Contains(ev.Note, `1 put back ("shared")`) {
		// Without it the scenario did not happen: the cleanup saw the
		// new holder before writing.
		t.Errorf("Removed event = %q, want it to say the shared ID was put back", ev.Note)
	}
	wantItems(t, srv.Server, "/list", "bystander", "shared")
	waitCondition(t, late, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
}
