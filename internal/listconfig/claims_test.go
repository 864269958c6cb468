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

package listconfig

import (
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// TestClaimHolder: the order of the claim, a table with no cluster.
func TestClaimHolder(t *testing.T) {
	t.Parallel()
	at := func(sec int) metav1.Time { return metav1.NewTime(time.Date(2026, 1, 1, 0, 0, sec, 0, time.UTC)) }
	xl := func(uid string, sec int) v1alpha1.List {
		return &v1alpha1.ExternalList{ObjectMeta: metav1.ObjectMeta{Name: uid, Namespace: "ns", UID: types.UID(uid), CreationTimestamp: at(sec)}}
	}
	cxl := func(uid string, sec int) v1alpha1.List {
		return &v1alpha1.ClusterExternalList{ObjectMeta: metav1.ObjectMeta{Name: uid, UID: types.UID(uid), CreationTimestamp: at(sec)}}
	}
	tests := []struct {
		name  string
		lists []v1alpha1.List
		want  string
	}{
		{"none", nil, ""},
		{"one", []v1alpha1.List{xl("a", 5)}, "a"},
		{"the oldest ExternalList", []v1alpha1.List{xl("young", 9), xl("old", 1), xl("mid", 5)}, "old"},
		{"same creation time: the lower UID", []v1alpha1.List{xl("b", 1), xl("a", 1)}, "a"},
		{"a ClusterExternalList before any ExternalList", []v1alpha1.List{xl("old", 1), cxl("cluster", 9)}, "cluster"},
		{"the oldest of two ClusterExternalLists", []v1alpha1.List{cxl("c2", 9), xl("old", 1), cxl("c1", 3)}, "c1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ClaimHolder(tt.lists)
			name := ""
			if got != nil {
				name = got.GetName()
			}
			if name != tt.want {
				t.Errorf("holder %q, want %q", name, tt.want)
			}
			// The order does not depend on the order the cache lists in.
			rev := slices.Clone(tt.lists)
			slices.Reverse(rev)
			if again := ClaimHolder(rev); again != got {
				t.Errorf("reversed input gives another holder")
			}
		})
	}
}
