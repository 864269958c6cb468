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
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// These tests replay, against envtest and the fake list server, writes of
// other parties that land inside the window between a decision of the
// ExternalList controller and its write.

// TestExclusiveRemovesOnlyAnnouncedIDs: an Exclusive resync announces the
// foreign IDs it read (foreignItemCount, Reconciling, a Progressing event)
// and then writes. Another writer adds a new foreign ID just before that
// write, which therefore loses with 412 and is applied again to the newer
// list. The retried write must remove exactly the announced IDs: the late
// one was never reported, so it stays, counted in foreignItemCount, for the
// next resync to announce and remove.
func TestExclusiveRemovesOnlyAnnouncedIDs(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	var (
		srv   *fakeapi.Server
		armed atomic.Bool
		fired atomic.Bool
	)
	srv, url := ownServer(t, fakeapi.WithFaultHook(func(r *http.Request) fakeapi.Fault {
		if r.Method == http.MethodPut && armed.Load() && fired.CompareAndSwap(false, true) {
			// Another writer's PUT lands first: this one's If-Match fails.
			if _, err := srv.Set("/list", []byte(`{"items":["a","f1","f2","late"]}`)); err != nil {
				t.Error(err)
			}
		}
		return fakeapi.Fault{}
	}))
	startManager(t, managerConfig{namespace: ns})
	setDoc(t, srv, "/list", map[string]any{"items": []string{}})
	xl := newExternalList(ns, "excl", url+"/list", func(s *v1alpha1.ExternalListSpec) {
		s.ItemsPointer = "/items"
		s.ResyncInterval = &metav1.Duration{Duration: time.Hour} // only the spec change resyncs
	})
	create(t, xl)
	e := newListEntry(ns, "a", "excl", "a")
	create(t, e)
	waitCondition(t, e, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)

	setDoc(t, srv, "/list", map[string]any{"items": []string{"a", "f1", "f2"}})
	armed.Store(true) // the next PUT is the Exclusive correction's
	setSpec(t, xl, func(s *v1alpha1.ExternalListSpec) { s.Mode = v1alpha1.ListModeExclusive })

	ann := waitEventAction(t, ns, "ExternalList", "excl", corev1.EventTypeNormal, v1alpha1.ReasonProgressing, "Resync", waitTimeout)
	if !strings.Contains(ann.Note, `removing 2 foreign IDs ("f1", "f2")`) {
		t.Errorf("announcement = %q, want it to name f1 and f2", ann.Note)
	}
	var corrected string
	eventually(t, waitTimeout, "the DriftCorrected event of the Exclusive correction", func() error {
		var notes []string
		for _, ev := range events(t, ns) {
			if ev.Regarding.Name == "excl" && ev.Reason == v1alpha1.ReasonDriftCorrected {
				if strings.Contains(ev.Note, "removed 2") {
					corrected = ev.Note
					return nil
				}
				notes = append(notes, ev.Note)
			}
		}
		return fmt.Errorf("DriftCorrected events so far: %q", notes)
	})
	if !fired.Load() {
		t.Fatal("the scenario did not happen: no PUT met the other writer")
	}
	if !strings.Contains(corrected, `removed 2 ("f1", "f2")`) || strings.Contains(corrected, "late") {
		t.Errorf("DriftCorrected = %q, want it to name exactly the announced f1 and f2", corrected)
	}
	if got := mustDocItems(t, srv, "/list", "/items"); strings.Join(got, ",") != "a,late" {
		t.Errorf("items = %v, want [a late]: the announced IDs go, the one never announced stays", got)
	}
	eventually(t, waitTimeout, "the status after the correction", func() error {
		if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(xl), xl); err != nil {
			return err
		}
		st := xl.Status
		if st.ForeignItemCount != 1 || st.ItemCount != 2 || !meta.IsStatusConditionTrue(st.Conditions, v1alpha1.ConditionReady) {
			return fmt.Errorf("foreignItemCount %d, itemCount %d, conditions %+v; want 1 (late), 2, Ready",
				st.ForeignItemCount, st.ItemCount, st.Conditions)
		}
		return nil
	})
}
