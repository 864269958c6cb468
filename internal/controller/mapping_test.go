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
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// keyOwner owns exactly the buckets of the keys it was given: each key is
// its own bucket, so a test can say which replica owns what.
type keyOwner struct {
	SoleOwner
	keys  map[string]int
	owned map[int]bool
}

func (o *keyOwner) Bucket(key string) int {
	b, ok := o.keys[key]
	if !ok {
		b = len(o.keys) + 1
		o.keys[key] = b
	}
	return b
}

func (o *keyOwner) Owns(b int) bool { return o.owned[b] }

// TestEntriesOfListFollowTheirReconcilesKey: the ExternalList watch queues
// an entry on the replica that its reconcile will find owns it. While the
// list is in the cache that is the bucket of its document; once the list
// is deleted it is the bucket of the list's kind, namespace and name. Keyed by the
// deleted list, the entry would go to a replica that then drops it as not
// its own, and a deleting entry would stay Terminating.
func TestEntriesOfListFollowTheirReconcilesKey(t *testing.T) {
	xl := &v1alpha1.ExternalList{
		ObjectMeta: metav1.ObjectMeta{Name: "l", Namespace: "ns"},
		Spec:       v1alpha1.ExternalListSpec{URL: "https://lists.example.com/l"},
	}
	e := newListEntry("ns", "e", "l", "id-1")
	build := func(objs ...client.Object) client.Client {
		return fake.NewClientBuilder().WithScheme(testScheme).WithObjects(objs...).
			WithIndex(&v1alpha1.ListEntry{}, listField, func(o client.Object) []string {
				return []string{entryListRef(o.(*v1alpha1.ListEntry)).Key()}
			}).Build()
	}
	for _, tt := range []struct {
		name        string
		listInCache bool
		ownsKeyOf   *v1alpha1.ExternalList // the key whose bucket this replica owns
		want        int
	}{
		{"list present, this replica owns the entry by its document", true, xl, 1},
		{"list present, another replica owns it", true, nil, 0},
		{"list deleted, this replica owns the entry without it", false, nil, 1},
		{"list deleted, the old document bucket is not the owner any more", false, xl, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			objs := []client.Object{e.DeepCopy()}
			if tt.listInCache {
				objs = append(objs, xl.DeepCopy())
			}
			o := &keyOwner{keys: map[string]int{}, owned: map[int]bool{}}
			var keyedBy v1alpha1.List
			if tt.ownsKeyOf != nil {
				keyedBy = tt.ownsKeyOf
			}
			o.owned[o.Bucket(entryBucketKey(e, keyedBy))] = true
			r := &EntryReconciler{Client: build(objs...), Owner: o}
			if got := r.entriesOfList(context.Background(), xl.DeepCopy()); len(got) != tt.want {
				t.Fatalf("queued %v, want %d requests", got, tt.want)
			}
		})
	}
}

// TestListBackoffIsCapped: a list that keeps failing is retried at least
// every statusRefreshInterval, not after controller-runtime's 1,000 s cap,
// so the end of an outage is seen within a minute (and its entries follow
// at once, see TestImmediateReconcile).
func TestListBackoffIsCapped(t *testing.T) {
	rl := listRateLimiter()
	req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "l"}}
	var last time.Duration
	for range 40 {
		last = rl.When(req)
	}
	if last != statusRefreshInterval {
		t.Fatalf("after 40 failures the list waits %s, want the cap %s", last, statusRefreshInterval)
	}
	rl.Forget(req)
	if first := rl.When(req); first > time.Second {
		t.Fatalf("after a success the first retry waits %s, want the short start of the backoff", first)
	}
}
