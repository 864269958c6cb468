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
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// bigDocument returns a document {"items":[...]} of n IDs of about 10
// bytes, and its size.
func bigDocument(prefix string, n int) (map[string][]string, int) {
	items := make([]string, n)
	size := len(`{"items":[]}`)
	for i := range items {
		items[i] = fmt.Sprintf("%s-%07d", prefix, i)
		size += len(items[i]) + 3
	}
	return map[string][]string{"items": items}, size
}

// TestMemoryBudgetSharedByLists: with a memory budget that holds one
// list's read but not two, two lists of that size both converge (their
// reads take turns, and the idle one's cached document makes room for the
// other's read), and a list whose read needs more than the whole budget
// reports MemoryBudgetExceeded, on its Ready condition and in a Warning
// event, and is retried. Before the budget, nothing bounded what the
// lists of a replica held together.
func TestMemoryBudgetSharedByLists(t *testing.T) {
	ns := newNamespace(t)
	fs := newFakeServer(t)
	const n = 20_000
	docA, size := bigDocument("a", n)
	docB, _ := bigDocument("b", n)
	docHuge, _ := bigDocument("huge", 4*n)
	setDoc(t, fs.srv, "/a", docA)
	setDoc(t, fs.srv, "/b", docB)
	setDoc(t, fs.srv, "/huge", docHuge)
	// One read costs ReadCostFactor bytes a byte; a cached document a
	// bit more than its size. The budget holds one read and one cached
	// document, not two reads.
	budget := int64(etagclient.ReadCostFactor*size + 2*size)
	startManager(t, managerConfig{namespace: ns, memoryBudget: budget})

	for _, name := range []string{"a", "b"} {
		create(t, newExternalList(ns, name, fs.url+"/"+name, func(s *v1alpha1.ExternalListSpec) { s.ItemsPointer = "/items" }))
		create(t, newListEntry(ns, name, name, "new-"+name))
	}
	huge := newExternalList(ns, "huge", fs.url+"/huge", func(s *v1alpha1.ExternalListSpec) { s.ItemsPointer = "/items" })
	create(t, huge)
	create(t, newListEntry(ns, "huge", "huge", "new-huge"))

	for _, name := range []string{"a", "b"} {
		waitOnList(t, fs.srv, "/"+name, "/items", "new-"+name, true, waitTimeout)
		waitCondition(t, newExternalList(ns, name, ""), v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	}
	c := waitCondition(t, huge, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonMemoryBudgetExceeded, waitTimeout)
	if !strings.Contains(c.Message, "--memory-budget-bytes") {
		t.Errorf("the condition's message %q does not say what to raise", c.Message)
	}
	ev := waitEvent(t, ns, "ExternalList", "huge", corev1.EventTypeWarning, v1alpha1.ReasonMemoryBudgetExceeded, waitTimeout)
	t.Logf("huge: %s; event: %s", c.Message, ev.Note)
	if items := mustDocItems(t, fs.srv, "/huge", "/items"); len(items) != 4*n {
		t.Errorf("the huge list has %d items, want its %d untouched", len(items), 4*n)
	}
}
