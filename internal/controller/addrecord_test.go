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
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// TestAddRecordedBeforeItLands: where an entry's ID may land
// (status.addedTo) is in the API server before the add is written, not
// only after. A replica that dies after an add landed and before the
// status patch that followed it leaves no add that only its memory knew
// of: the entry's list then moves to another document, and the ID comes
// off the document it was added to, through the list that holds that
// document's claim now.
//
// Before, the placement was recorded after the add: the replica that took
// over found none, took nothing off the old document (the churn through
// transitions found the ID left there), and deleting the entry said "ID
// was never added".
func TestAddRecordedBeforeItLands(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	lists := newFakeServer(t)
	setDoc(t, lists.srv, "/old", []string{"bystander"})
	setDoc(t, lists.srv, "/new", []string{"bystander"})

	// The first replica's status patches that would report the add are
	// refused, as if it died right after the write.
	var refused atomic.Int64
	first := startManager(t, managerConfig{namespace: ns, interceptor: &interceptor.Funcs{
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			if e, ok := obj.(*v1alpha1.ListEntry); ok && e.Name == "moved" &&
				meta.IsStatusConditionTrue(e.Status.Conditions, v1alpha1.ConditionSynced) {
				refused.Add(1)
				return errors.New("test: the replica dies before this status patch")
			}
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
	}})
	xl := newExternalList(ns, "allow", lists.url+"/old")
	create(t, xl)
	waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	// keeper names the same document; allow, created a second before it
	// (creation times have seconds; a tie goes by UID), holds its claim.
	time.Sleep(time.Until(getExternalList(t, xl).CreationTimestamp.Add(1100 * time.Millisecond)))
	keeper := newExternalList(ns, "keeper", lists.url+"/old")
	create(t, keeper)
	waitCondition(t, keeper, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse, waitTimeout)

	e := newListEntry(ns, "moved", "allow", "x")
	create(t, e)
	waitOnList(t, lists.srv, "/old", "", "x", true, waitTimeout)
	eventually(t, waitTimeout, "the status patch after the add refused", func() error {
		if refused.Load() == 0 {
			return errors.New("not yet")
		}
		return nil
	})
	first.stop()
	if c := meta.FindStatusCondition(getEntry(t, e).Status.Conditions, v1alpha1.ConditionSynced); c != nil && c.Status == metav1.ConditionTrue {
		t.Fatalf("the entry is Synced: the add was reported after all, the test proves nothing")
	}

	// allow moves to another document; keeper takes /old's claim.
	got := getExternalList(t, xl)
	patch := client.MergeFrom(got.DeepCopy())
	got.Spec.URL = lists.url + "/new"
	if err := k8sClient.Patch(context.Background(), got, patch); err != nil {
		t.Fatal(err)
	}
	startManager(t, managerConfig{namespace: ns})
	waitCondition(t, keeper, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	waitCondition(t, e, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	waitOnList(t, lists.srv, "/new", "", "x", true, waitTimeout)
	waitOnList(t, lists.srv, "/old", "", "x", false, waitTimeout)

	deleteObj(t, e)
	waitGone(t, e, waitTimeout)
	for _, path := range []string{"/old", "/new"} {
		if got := mustDocItems(t, lists.srv, path, ""); !slices.Equal(got, []string{"bystander"}) {
			t.Errorf("%s holds %v, want [bystander]", path, got)
		}
	}
}
