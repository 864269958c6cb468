package controller

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// TestExclusiveFirstSightPublishesNothing: an Exclusive list pointed at an
// internal JSON endpoint published the endpoint's items in an Event
// ("removing 2 foreign IDs ("alice-admin", "svc-token-...")") before it
// emptied it. A document the list has not synced before has its foreign
// IDs counted, never named, in events and conditions; once the list has
// synced it, IDs that turn up later are named, so a user sees what left.
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
	ev := waitEventAction(t, ns, "ExternalList", "excl", corev1.EventTypeNormal, v1alpha1.ReasonDriftCorrected, "Resync", waitTimeout)
	if !strings.Contains(ev.Note, "removed 2") {
		t.Errorf("DriftCorrected %q, want the 2 removals counted", ev.Note)
	}
	for _, e := range events(t, ns) {
		for _, secret := range []string{"alice-admin", "svc-token"} {
			if strings.Contains(e.Note, secret) {
				t.Errorf("event %s/%s publishes %q: %q", e.Reason, e.Action, secret, e.Note)
			}
		}
	}
	got := &v1alpha1.ExternalList{}
	if err := k8sClient.Get(ctxFor(t), client.ObjectKeyFromObject(xl), got); err != nil {
		t.Fatal(err)
	}
	for _, c := range got.Status.Conditions {
		if strings.Contains(c.Message, "alice") || strings.Contains(c.Message, "svc-token") {
			t.Errorf("condition %s publishes the document's items: %q", c.Type, c.Message)
		}
	}

	// Synced once: what turns up later is named when it goes.
	setDoc(t, srv, "/internal", []string{"added-behind-our-back"})
	patch := client.MergeFrom(got.DeepCopy())
	got.Annotations = map[string]string{v1alpha1.ReconcileRequestedAtAnnotation: "1"}
	if err := k8sClient.Patch(ctxFor(t), got, patch); err != nil {
		t.Fatal(err)
	}
	eventually(t, waitTimeout, "the later removal named", func() error {
		for _, e := range events(t, ns) {
			if e.Reason == v1alpha1.ReasonDriftCorrected && strings.Contains(e.Note, `"added-behind-our-back"`) {
				return nil
			}
		}
		return fmt.Errorf("no DriftCorrected event names it yet")
	})
}
