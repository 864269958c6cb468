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
	"slices"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/storetest/wafv2fake"
)

// TestHolderWithoutFinalizerKeepsNoID replays the leak TestChurnWhileScaling
// found by chance (CI, seed 1796372299129612603): a Synced entry is deleted
// while a second entry with the same ID has just been created and has no
// finalizer yet. Before, the deleting entry counted the new one as a
// holder and released its finalizer without removing the ID; the new one
// was then deleted before its finalizer went on, so no reconcile was left
// to take the ID off, and it stayed on the list with no entry holding it.
// An entry without the finalizer has not promised to remove the ID, so it
// holds nothing: the deleting entry waits for it to put the finalizer on
// or to go.
func TestHolderWithoutFinalizerKeepsNoID(t *testing.T) {
	t.Parallel()
	requirePatchedFinalizer(t)
	ns := newNamespace(t)
	lists := newFakeServer(t)
	setDoc(t, lists.srv, "/list", []string{"bystander"})
	caught := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	startManager(t, managerConfig{namespace: ns, interceptor: &interceptor.Funcs{
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			if finalizerPatch(obj) && obj.GetNamespace() == ns && obj.GetName() == "new" &&
				controllerutil.ContainsFinalizer(obj, v1alpha1.FinalizerName) {
				// The new entry's finalizer is on its way while the old
				// one is deleted; it arrives after the new one is gone.
				once.Do(func() { close(caught) })
				select {
				case <-release:
				case <-ctx.Done():
				}
			}
			return c.Patch(ctx, obj, patch, opts...)
		},
	}})
	xl := newExternalList(ns, "allow", lists.url+"/list", func(s *v1alpha1.ExternalListSpec) {
		s.ResyncInterval = &metav1.Duration{Duration: time.Hour}
	})
	create(t, xl)
	waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	old := newListEntry(ns, "old", "allow", "shared")
	create(t, old)
	waitCondition(t, old, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)

	fresh := newListEntry(ns, "new", "allow", "shared")
	create(t, fresh)
	select {
	case <-caught:
	case <-time.After(waitTimeout):
		t.Fatal("the new entry's finalizer patch never came")
	}
	deleteObj(t, old)
	// Time for the old entry's deletion to be decided (it took a few
	// milliseconds before the fix).
	time.Sleep(time.Second)
	deleteObj(t, fresh) // no finalizer: the API server removes it at once
	waitGone(t, fresh, waitTimeout)
	close(release)
	waitGone(t, old, waitTimeout)
	if got := mustDocItems(t, lists.srv, "/list", ""); slices.Contains(got, "shared") {
		t.Fatalf("the list holds %v after both entries of \"shared\" are gone; the ID leaked", got)
	}
}

// TestWAFv2SpellingsShareAnAddress: two entries name one address in the two
// spellings an IP set accepts ("10.0.0.1" and "10.0.0.1/32"). Deleting one
// must leave the address, which the other still holds; before, the
// deleting entry looked for other holders by its spelling only and took
// the address off under the live entry, until the next resync.
func TestWAFv2SpellingsShareAnAddress(t *testing.T) {
	t.Parallel()
	requireEnv(t)
	ns := newNamespace(t)
	waf, err := wafv2fake.New()
	if err != nil {
		t.Fatal(err)
	}
	waf.Start()
	t.Cleanup(waf.Close)
	id, err := waf.CreateIPSet("REGIONAL", "egress", "", "IPV4", []string{"192.0.2.1/32"})
	if err != nil {
		t.Fatal(err)
	}
	startManager(t, managerConfig{namespace: ns})
	xl := createWAFv2List(t, ns, waf, id, func(s *v1alpha1.ExternalListSpec) {
		s.ResyncInterval = &metav1.Duration{Duration: time.Hour}
	})
	waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	addresses := func() []string {
		set, ok := waf.IPSet("REGIONAL", id)
		if !ok {
			t.Fatal("the IP set is gone")
		}
		return set.Addresses
	}
	bare := newListEntry(ns, "bare", "waf", "10.0.0.1")
	cidr := newListEntry(ns, "cidr", "waf", "10.0.0.1/32")
	create(t, bare)
	create(t, cidr)
	waitCondition(t, bare, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	waitCondition(t, cidr, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	if got, want := addresses(), []string{"192.0.2.1/32", "10.0.0.1/32"}; !slices.Equal(got, want) {
		t.Fatalf("the set holds %v, want %v", got, want)
	}

	deleteObj(t, bare)
	waitGone(t, bare, waitTimeout)
	if got := addresses(); !slices.Contains(got, "10.0.0.1/32") {
		t.Fatalf("the set holds %v after the entry spelled 10.0.0.1 went: the address of the live entry spelled 10.0.0.1/32 is gone", got)
	}
	deleteObj(t, cidr)
	waitGone(t, cidr, waitTimeout)
	if got, want := addresses(), []string{"192.0.2.1/32"}; !slices.Equal(got, want) {
		t.Fatalf("the set holds %v after both entries went, want %v", got, want)
	}
}
