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
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// resyncSlack is what a resync may take beyond its interval: the requeue
// lands within a second of it, plus a read-modify-write, under -race.
const resyncSlack = 10 * time.Second

// TestDrift: IDs taken off behind the operator's back come back within one
// resync; in Exclusive mode, foreign IDs are removed at resync and the
// entries' IDs stay.
func TestDrift(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startManager(t, managerConfig{namespace: ns})
	resync := &metav1.Duration{Duration: v1alpha1.MinResyncInterval}

	t.Run("additive", func(t *testing.T) {
		t.Parallel()
		path := listPath(t, ns)
		setDoc(t, sharedLists, path, []string{"bystander"})
		xl := newExternalList(ns, "additive", sharedListsURL+path, func(s *v1alpha1.ExternalListSpec) {
			s.ResyncInterval = resync
		})
		create(t, xl)
		e := newListEntry(ns, "additive-a", "additive", "drift-a")
		create(t, e)
		waitCondition(t, e, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
		// Synced once, and the reconcile of the entry that the list's
		// first Ready queues is done: only the resync restores the ID.
		waitListSynced(t, xl)
		time.Sleep(time.Second)

		setDoc(t, sharedLists, path, []string{"bystander", "stranger"})
		start := time.Now()
		waitOnList(t, sharedLists, path, "", "drift-a", true, resync.Duration+resyncSlack)
		t.Logf("missing ID restored after %s (resync interval %s)", time.Since(start).Round(time.Millisecond), resync.Duration)
		if got := mustDocItems(t, sharedLists, path, ""); strings.Join(got, ",") != "bystander,stranger,drift-a" {
			t.Errorf("items = %v; additive mode must leave other IDs alone and add at the end", got)
		}
		ev := waitEvent(t, ns, "ExternalList", "additive", corev1.EventTypeNormal, v1alpha1.ReasonDriftCorrected, waitTimeout)
		if !strings.Contains(ev.Note, `added 1 IDs ("drift-a"), removed 0`) {
			t.Errorf("DriftCorrected event = %q, want it to name the ID it added", ev.Note)
		}
	})

	t.Run("exclusive", func(t *testing.T) {
		t.Parallel()
		path := listPath(t, ns)
		setDoc(t, sharedLists, path, map[string]any{"items": []string{}})
		xl := newExternalList(ns, "exclusive", sharedListsURL+path, func(s *v1alpha1.ExternalListSpec) {
			s.ResyncInterval = resync
			s.Mode = v1alpha1.ListModeExclusive
			s.ItemsPointer = "/items"
		})
		create(t, xl)
		for _, id := range []string{"excl-a", "excl-b"} {
			e := newListEntry(ns, id, "exclusive", id)
			create(t, e)
			waitCondition(t, e, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
		}
		// The first resync of a document removes nothing: the foreign ID
		// must come after it.
		waitListSynced(t, xl)

		setDoc(t, sharedLists, path, map[string]any{"items": []string{"excl-a", "foreign", "excl-b"}, "meta": "kept"})
		start := time.Now()
		eventually(t, resync.Duration+resyncSlack, "foreign ID removed", func() error {
			items, err := docItems(sharedLists, path, "/items")
			if err != nil {
				return err
			}
			if strings.Join(items, ",") != "excl-a,excl-b" {
				return fmt.Errorf("items = %v", items)
			}
			return nil
		})
		t.Logf("foreign ID removed after %s", time.Since(start).Round(time.Millisecond))
		if raw, _, _ := sharedLists.Get(path); !strings.Contains(string(raw), `"meta":"kept"`) {
			t.Errorf("the rest of the document was not preserved: %s", raw)
		}
		eventually(t, waitTimeout, "a DriftCorrected event naming the foreign ID", func() error {
			for _, e := range events(t, ns) {
				if e.Regarding.Name == "exclusive" && e.Reason == v1alpha1.ReasonDriftCorrected &&
					strings.Contains(e.Note, `removed 1 ("foreign")`) {
					return nil
				}
			}
			return errors.New("none yet")
		})
	})
}

// waitListSynced waits until xl has synced the document it names.
func waitListSynced(t *testing.T, xl *v1alpha1.ExternalList) {
	t.Helper()
	eventually(t, waitTimeout, "the list's first sync", func() error {
		st := getExternalList(t, xl).Status
		if st.LastSyncTime == nil || st.DocumentID == "" || st.LastSyncDocumentID != st.DocumentID {
			return fmt.Errorf("synced %q at %v, document %q", st.LastSyncDocumentID, st.LastSyncTime, st.DocumentID)
		}
		return nil
	})
}
