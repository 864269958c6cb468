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
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/listconfig"
)

// TestExclusiveFirstSightPublishesNothing: an Exclusive list pointed at an
// internal JSON endpoint published the endpoint's items in an Event
// ("removing 2 foreign IDs ("alice-admin", "svc-token-...")") and emptied
// it. A document the list has not synced before keeps its foreign IDs,
// counted and never named; once the list has synced it, the next resync
// removes them and names them, so a user sees what left.
func TestExclusiveFirstSightPublishesNothing(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startManager(t, managerConfig{namespace: ns})
	srv, url := ownServer(t)
	setDoc(t, srv, "/internal", []string{"alice-admin", "svc-token-5ecr3t"})
	xl := newExternalList(ns, "excl", url+"/internal", func(s *v1alpha1.ExternalListSpec) {
		s.Mode = v1alpha1.ListModeExclusive
		s.ResyncInterval = &metav1.Duration{Duration: time.Hour}
	})
	create(t, xl)
	waitFirstSync(t, xl, listconfig.DocumentIDOfURL(url+"/internal"), 2)
	if got := mustDocItems(t, srv, "/internal", ""); len(got) != 2 {
		t.Errorf("the first sight removed foreign items: the document holds %v", got)
	}
	assertUnpublished(t, ns, xl, "alice-admin", "svc-token")

	// Synced once: the next resync removes them, and names them.
	annotate(t, xl, "1")
	waitDriftNamed(t, ns, `"alice-admin"`)
	waitOnList(t, srv, "/internal", "", "svc-token-5ecr3t", false, waitTimeout)
}

// TestFirstSightIsPerDocument: the first-sight rule looked at the status
// just patched, which already carried the new document beside the old
// sync time, so changing spec.url of a synced Exclusive list named the new
// endpoint's items in its DriftCorrected event
// ("removed 2 ("alice-admin", "svc-token-AbC123XyZ")") and emptied it.
// The last sync records which document it was for; a list that moves to
// another document sees that one for the first time.
func TestFirstSightIsPerDocument(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startManager(t, managerConfig{namespace: ns})
	srv, url := ownServer(t)
	setDoc(t, srv, "/mine", []string{})
	setDoc(t, srv, "/theirs", []string{"alice-admin", "svc-token-AbC123XyZ"})
	xl := newExternalList(ns, "excl", url+"/mine", func(s *v1alpha1.ExternalListSpec) {
		s.Mode = v1alpha1.ListModeExclusive
		s.ResyncInterval = &metav1.Duration{Duration: time.Hour}
	})
	create(t, xl)
	waitFirstSync(t, xl, listconfig.DocumentIDOfURL(url+"/mine"), 0)
	create(t, newListEntry(ns, "e", "excl", "tenant-1"))
	waitOnList(t, srv, "/mine", "", "tenant-1", true, waitTimeout)

	setSpec(t, xl, func(s *v1alpha1.ExternalListSpec) { s.URL = url + "/theirs" })
	waitFirstSync(t, xl, listconfig.DocumentIDOfURL(url+"/theirs"), 2)
	waitOnList(t, srv, "/theirs", "", "tenant-1", true, waitTimeout)
	if got := mustDocItems(t, srv, "/theirs", ""); !slices.Contains(got, "alice-admin") || !slices.Contains(got, "svc-token-AbC123XyZ") {
		t.Errorf("the first sight of the new document removed its items: %v", got)
	}
	assertUnpublished(t, ns, xl, "alice-admin", "svc-token")

	annotate(t, xl, "1")
	waitDriftNamed(t, ns, `"svc-token-AbC123XyZ"`)
}

// waitFirstSync waits until xl has synced the document doc, with foreign
// foreign IDs on it.
func waitFirstSync(t *testing.T, xl *v1alpha1.ExternalList, doc string, foreign int32) {
	t.Helper()
	eventually(t, waitTimeout, "the list's sync of its document", func() error {
		got := getExternalList(t, xl)
		st := got.Status
		if st.LastSyncDocumentID != doc || st.LastSyncTime == nil || st.ForeignItemCount != foreign {
			return fmt.Errorf("status: synced %q at %v, %d foreign; want %q and %d foreign",
				st.LastSyncDocumentID, st.LastSyncTime, st.ForeignItemCount, doc, foreign)
		}
		return nil
	})
}

// assertUnpublished fails when an event of ns or a condition of xl names
// any of the secrets.
func assertUnpublished(t *testing.T, ns string, xl *v1alpha1.ExternalList, secrets ...string) {
	t.Helper()
	for _, e := range events(t, ns) {
		for _, s := range secrets {
			if strings.Contains(e.Note, s) {
				t.Errorf("event %s/%s publishes %q: %q", e.Reason, e.Action, s, e.Note)
			}
		}
	}
	for _, c := range getExternalList(t, xl).Status.Conditions {
		for _, s := range secrets {
			if strings.Contains(c.Message, s) {
				t.Errorf("condition %s publishes %q: %q", c.Type, s, c.Message)
			}
		}
	}
}

// waitDriftNamed waits for a DriftCorrected event of ns that names id.
func waitDriftNamed(t *testing.T, ns, id string) {
	t.Helper()
	eventually(t, waitTimeout, "the removal named", func() error {
		for _, e := range events(t, ns) {
			if e.Reason == v1alpha1.ReasonDriftCorrected && strings.Contains(e.Note, id) {
				return nil
			}
		}
		return fmt.Errorf("no DriftCorrected event names %s yet", id)
	})
}
