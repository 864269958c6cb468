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
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/listconfig"
)

func TestHolds(t *testing.T) {
	ref := listconfig.Ref{Kind: v1alpha1.ListKindExternalList}
	ref.Namespace, ref.Name = "ns", "allow"
	// Entries of list "allow" in namespace "ns" (see entry); the namespace
	// "blocked" is one the list does not admit (a ClusterExternalList's
	// selector).
	admitted := func(e *v1alpha1.ListEntry) bool { return e.Namespace != "blocked" }
	// The claim the removal is of, and another one (the list named it
	// before it moved).
	const claim, elsewhere = "claim-here", "claim-before"
	// holder is a live entry with the finalizer that recorded its ID
	// under claim; unrecorded and movedHere are one that recorded it
	// nowhere yet and one that recorded it under the claim its list named
	// before.
	holder := func(uid, id string) v1alpha1.ListEntry {
		e := entry(uid, "allow", id, false)
		e.Finalizers = []string{v1alpha1.FinalizerName}
		e.Status.AddedTo = &v1alpha1.ListPlacement{Claim: claim}
		return e
	}
	unrecorded := func(uid, id string) v1alpha1.ListEntry {
		e := holder(uid, id)
		e.Status.AddedTo = nil
		return e
	}
	movedHere := func(uid, id string) v1alpha1.ListEntry {
		e := holder(uid, id)
		e.Status.AddedTo = &v1alpha1.ListPlacement{Claim: elsewhere}
		return e
	}
	blocked := holder("b", "a")
	blocked.Namespace = "blocked"
	otherList := holder("o", "a")
	otherList.Spec.ListRef.Name = "deny"
	tests := []struct {
		name    string
		entries []v1alpha1.ListEntry
		id      string // self's ID, when not "a"
		spell   func(string) string
		want    holding
	}{
		{name: "no entries"},
		{name: "self does not hold for itself (same UID)", entries: []v1alpha1.ListEntry{holder("self", "a")}},
		{name: "a live entry with the finalizer holds", entries: []v1alpha1.ListEntry{holder("o", "a")}, want: heldRecorded},
		{name: "a live entry without the finalizer does not: its add comes after", entries: []v1alpha1.ListEntry{entry("o", "allow", "a", false)}},
		{name: "a deleting entry does not", entries: []v1alpha1.ListEntry{entry("o", "allow", "a", true)}},
		{name: "an entry the list does not admit does not", entries: []v1alpha1.ListEntry{blocked}},
		{name: "an entry of another list does not (claims are per list)", entries: []v1alpha1.ListEntry{otherList}},
		{name: "the ID must match", entries: []v1alpha1.ListEntry{holder("o", "A"), holder("p", "a ")}},
		{name: "one holder among many", entries: []v1alpha1.ListEntry{blocked, entry("p", "allow", "a", true), holder("q", "a")}, want: heldRecorded},
		{name: "another spelling of the address holds on an IP set", id: "10.0.0.1", spell: listconfig.SpellCIDR,
			entries: []v1alpha1.ListEntry{holder("o", "10.0.0.1/32")}, want: heldRecorded},
		{name: "another spelling is another item on an HTTP list", id: "10.0.0.1",
			entries: []v1alpha1.ListEntry{holder("o", "10.0.0.1/32")}},
		{name: "another block does not hold on an IP set", id: "10.0.0.0/24", spell: listconfig.SpellCIDR,
			entries: []v1alpha1.ListEntry{holder("o", "10.0.0.0/16")}},
		{name: "a holder that recorded its ID nowhere yet is waited for", entries: []v1alpha1.ListEntry{unrecorded("o", "a")}, want: heldUnrecorded},
		{name: "a holder that recorded its ID under the claim its list named before holds nothing here",
			entries: []v1alpha1.ListEntry{movedHere("o", "a")}},
		{name: "a recorded holder keeps the ID whatever comes before it",
			entries: []v1alpha1.ListEntry{unrecorded("o", "a"), movedHere("p", "a"), holder("q", "a")}, want: heldRecorded},
		{name: "an unrecorded holder beside one that moved here",
			entries: []v1alpha1.ListEntry{movedHere("o", "a"), unrecorded("p", "a")}, want: heldUnrecorded},
		{name: "an unrecorded entry the list does not admit is not waited for",
			entries: []v1alpha1.ListEntry{func() v1alpha1.ListEntry { e := unrecorded("o", "a"); e.Namespace = "blocked"; return e }()}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := tc.id
			if id == "" {
				id = "a"
			}
			if got := holds(tc.entries, ref, claim, spellID(id, tc.spell), tc.spell, "self", admitted); got != tc.want {
				t.Errorf("holds = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestIDSpellings(t *testing.T) {
	for id, want := range map[string][]string{
		"tenant-a":       {"tenant-a"},
		"10.0.0.1":       {"10.0.0.1", "10.0.0.1/32"},
		"10.0.0.1/32":    {"10.0.0.1/32", "10.0.0.1"},
		"10.0.0.0/24":    {"10.0.0.0/24"},
		"2001:DB8::1":    {"2001:DB8::1", "2001:db8::1", "2001:db8::1/128"},
		"2001:db8::/64":  {"2001:db8::/64"},
		"not an address": {"not an address"},
	} {
		if got := idSpellings(id); !slices.Equal(got, want) {
			t.Errorf("idSpellings(%q) = %v, want %v", id, got, want)
		}
	}
}

func TestPlacementMoved(t *testing.T) {
	list := func(url, pointer string) v1alpha1.List {
		return &v1alpha1.ExternalList{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "allow"},
			Spec: v1alpha1.ExternalListSpec{URL: url, ItemsPointer: pointer}}
	}
	here := list("https://lists.example/allow", "")
	placed := func(l v1alpha1.List) *v1alpha1.ListEntry {
		e := entry("e", "allow", "a", false)
		placeAt(&e, l)
		return &e
	}
	unplaced := entry("e", "allow", "a", false)
	urlFrom := &v1alpha1.ExternalList{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "allow", Generation: 2},
		Spec: v1alpha1.ExternalListSpec{URLFrom: &v1alpha1.URLSource{SecretKeyRef: v1alpha1.SecretKeySelector{Name: "s", Key: "url"}}}}
	for _, tc := range []struct {
		name string
		e    *v1alpha1.ListEntry
		l    v1alpha1.List
		want bool
	}{
		{"never added", &unplaced, here, false},
		{"added to the list's own claim", placed(here), here, false},
		{"the list names another document", placed(here), list("https://lists.example/deny", ""), true},
		{"the list names another items pointer", placed(here), list("https://lists.example/allow", "/items"), true},
		{"the list's document is not known yet", placed(here), urlFrom, false},
	} {
		if got := placementMoved(tc.e, tc.l); got != tc.want {
			t.Errorf("%s: placementMoved = %v, want %v", tc.name, got, tc.want)
		}
	}
}
