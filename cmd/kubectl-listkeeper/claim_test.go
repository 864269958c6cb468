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

package main

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/listconfig"
)

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// xl is an ExternalList in ns naming url, created at t0 plus age seconds.
func xl(ns, name, uid, url string, age int, conds ...metav1.Condition) *v1alpha1.ExternalList {
	return &v1alpha1.ExternalList{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(uid), Generation: 1, CreationTimestamp: metav1.NewTime(t0.Add(time.Duration(age) * time.Second))},
		Spec:       v1alpha1.ExternalListSpec{URL: url},
		Status:     v1alpha1.ExternalListStatus{Conditions: conds, ObservedGeneration: 1},
	}
}

func cxl(name, uid, url string, age int) *v1alpha1.ClusterExternalList {
	return &v1alpha1.ClusterExternalList{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(uid), Generation: 1, CreationTimestamp: metav1.NewTime(t0.Add(time.Duration(age) * time.Second))},
		Spec:       v1alpha1.ClusterExternalListSpec{ExternalListSpec: v1alpha1.ExternalListSpec{URL: url}},
	}
}

var inUse = cond(v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse, "claimed", t0)

// TestDecideClaim pins the claim order of listconfig.ClaimHolder
// (a ClusterExternalList first, then the oldest, then the lower UID) and
// how the holder is named to the list's readers.
func TestDecideClaim(t *testing.T) {
	const url = "https://lists.example.com/v1/allow"
	// The same document: case, default port, query and user info do not
	// count (stores.HTTPDocument).
	const sameDoc = "HTTPS://u:p@Lists.Example.com:443/v1/allow?sig=x"
	self := xl("team-a", "allow-list", "m", url, 10)
	tests := []struct {
		name   string
		l      v1alpha1.List
		others []v1alpha1.List
		closed bool // not every list could be read
		want   claimView
	}{
		{name: "alone", l: self, want: claimView{Known: true, Held: true}},
		{name: "younger list elsewhere", l: self, others: []v1alpha1.List{xl("team-b", "copy", "a", sameDoc, 20)},
			want: claimView{Known: true, Held: true}},
		{name: "older list in the namespace", l: self, others: []v1alpha1.List{xl("team-a", "other", "z", sameDoc, 5)},
			want: claimView{Known: true, Holder: `ExternalList "other"`}},
		{name: "older list in another namespace", l: self, others: []v1alpha1.List{xl("team-b", "other", "z", url, 5)},
			want: claimView{Known: true, Holder: "another list"}},
		{name: "same age, lower UID", l: self, others: []v1alpha1.List{xl("team-a", "twin", "a", url, 10)},
			want: claimView{Known: true, Holder: `ExternalList "twin"`}},
		{name: "same age, higher UID", l: self, others: []v1alpha1.List{xl("team-a", "twin", "z", url, 10)},
			want: claimView{Known: true, Held: true}},
		{name: "younger ClusterExternalList", l: self, others: []v1alpha1.List{cxl("shared", "b", url, 99)},
			want: claimView{Known: true, Holder: "a ClusterExternalList"}},
		{name: "another items pointer", l: self, others: []v1alpha1.List{withPointer(xl("team-a", "other", "z", url, 5), "/items")},
			want: claimView{Known: true, Held: true}},
		{name: "another document", l: self, others: []v1alpha1.List{xl("team-a", "other", "z", url+"/2", 5)},
			want: claimView{Known: true, Held: true}},
		{name: "cluster list seen by an administrator", l: cxl("shared", "m", url, 50), others: []v1alpha1.List{cxl("first", "z", url, 1), xl("team-a", "other", "a", url, 0)},
			want: claimView{Known: true, Holder: `ClusterExternalList "first"`}},
		{name: "namespaced holder seen by an administrator", l: withPointer(cxl("shared", "m", url, 50), "/x"), others: []v1alpha1.List{withPointer(xl("team-a", "other", "a", url, 0), "/x")},
			want: claimView{Known: true, Held: true}},
		{name: "operator says in use, holder unreadable", l: xl("team-a", "allow-list", "m", url, 10, inUse), closed: true,
			want: claimView{Known: true, Holder: "a list you cannot read", Note: "the operator reports DocumentInUse; no list you can read claims the document before this one"}},
		{name: "operator says in use, holder gone", l: xl("team-a", "allow-list", "m", url, 10, inUse),
			want: claimView{Known: true, Held: true, Note: "the operator's status still says DocumentInUse: the holder is gone, and this list takes the claim at its next reconcile"}},
		{name: "urlFrom before the operator read it", l: urlFrom(xl("team-a", "allow-list", "m", "", 10), "", 0),
			want: claimView{Note: "the document is not known yet: the operator publishes status.documentID once it has read spec.urlFrom's Secret"}},
		{name: "urlFrom with a stale status", l: urlFrom(xl("team-a", "allow-list", "m", "", 10), listconfig.DocumentIDOfURL(url), 0), others: []v1alpha1.List{xl("team-a", "other", "z", url, 5)},
			want: claimView{Note: "the document is not known yet: the operator publishes status.documentID once it has read spec.urlFrom's Secret"}},
		{name: "urlFrom, published", l: urlFrom(xl("team-a", "allow-list", "m", "", 10), listconfig.DocumentIDOfURL(url), 1), others: []v1alpha1.List{xl("team-a", "other", "z", url, 5)},
			want: claimView{Known: true, Holder: `ExternalList "other"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decideClaim(tt.l, visibleLists{lists: append(tt.others, tt.l), complete: !tt.closed})
			if got != tt.want {
				t.Errorf("decideClaim = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func withPointer[L v1alpha1.List](l L, pointer string) L {
	l.ListSpec().ItemsPointer = pointer
	return l
}

// urlFrom turns l into a list whose URL comes from a Secret, with the
// status the operator published for generation observed.
func urlFrom(l *v1alpha1.ExternalList, docID string, observed int64) *v1alpha1.ExternalList {
	l.Spec.URL = ""
	l.Spec.URLFrom = &v1alpha1.URLSource{SecretKeyRef: v1alpha1.SecretKeySelector{Name: "url", Key: "url"}}
	l.Status.DocumentID, l.Status.ObservedGeneration = docID, observed
	return l
}
