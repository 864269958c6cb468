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
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// TestEntryRemovedWithItsFinalizerOn: the API server can remove an entry
// that carries the finalizer, without a deletionTimestamp, when its
// deletion races with the patch that puts the finalizer on: the delete
// decides on the object it read (no finalizers: delete at once) and then
// removes it with a precondition on its UID only, so a finalizer that
// landed in between does not stop it. The e2e churn saw it 8 times among 65
// entries deleted within 50 ms of their creation; each time the ID had
// been added once the finalizer landed and stayed on the list with no
// holder, since no deletion ever queued the entry. Here the entry is
// removed from etcd directly, which the API server's watch reports the same
// way: a delete whose last state still carries the finalizer. The owner
// must take the ID off, unless another live entry holds it.
func TestEntryRemovedWithItsFinalizerOn(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	lists := newFakeServer(t)
	setDoc(t, lists.srv, "/list", []string{"bystander"})
	// Only the path without the policy puts the finalizer on with a
	// patch, which a deletion can race.
	startManager(t, managerConfig{namespace: ns, finalizerAtBirth: never})
	xl := newExternalList(ns, "allow", lists.url+"/list")
	create(t, xl)
	waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)

	lone := newListEntry(ns, "lone", "allow", "lone-id")
	shared := newListEntry(ns, "shared-1", "allow", "shared-id")
	other := newListEntry(ns, "shared-2", "allow", "shared-id")
	for _, e := range []*v1alpha1.ListEntry{lone, shared, other} {
		create(t, e)
		waitCondition(t, e, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	}
	eventually(t, waitTimeout, "both IDs on the list", func() error {
		return wantDoc(lists, "bystander", "lone-id", "shared-id")
	})

	removeFromEtcd(t, lone)
	removeFromEtcd(t, shared)
	eventually(t, waitTimeout, "the ID with no live holder off the list", func() error {
		return wantDoc(lists, "bystander", "shared-id")
	})
}

// wantDoc reports how the document /list of lists differs from want.
func wantDoc(lists *fakeServer, want ...string) error {
	items, err := docItems(lists.srv, "/list", "")
	if err != nil {
		return err
	}
	if strings.Join(items, ",") != strings.Join(want, ",") {
		return fmt.Errorf("list holds %v, want %v", items, want)
	}
	return nil
}

// removeFromEtcd deletes entry's key from etcd (through its gRPC gateway),
// so the API server reports it deleted with the state it last stored,
// finalizer and all, and checks that the API server no longer serves it.
func removeFromEtcd(t *testing.T, entry *v1alpha1.ListEntry) {
	t.Helper()
	etcd := testEnv.EtcdURL()
	if etcd == nil {
		t.Fatal("no etcd URL")
	}
	var live v1alpha1.ListEntry
	if err := k8sClient.Get(t.Context(), client.ObjectKeyFromObject(entry), &live); err != nil {
		t.Fatal(err)
	}
	if !live.DeletionTimestamp.IsZero() || len(live.Finalizers) == 0 {
		t.Fatalf("entry %s: want it live with its finalizer, got deletionTimestamp %v, finalizers %v", entry.Name, live.DeletionTimestamp, live.Finalizers)
	}
	key := fmt.Sprintf("/registry/%s/listentries/%s/%s", v1alpha1.GroupVersion.Group, entry.Namespace, entry.Name)
	body, err := json.Marshal(map[string]string{"key": base64.StdEncoding.EncodeToString([]byte(key))})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(etcd.String()+"/v3/kv/deleterange", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var out struct {
		Deleted string `json:"deleted"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK || out.Deleted != "1" {
		t.Fatalf("delete %s from etcd: status %d, deleted %q, err %v", key, resp.StatusCode, out.Deleted, err)
	}
	eventually(t, waitTimeout, "the API server to forget "+entry.Name, func() error {
		err := k8sClient.Get(t.Context(), client.ObjectKeyFromObject(entry), &live)
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still served: %w", err)
	})
}
