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
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/listkeeper/listkeeper/internal/listconfig"
	"github.com/listkeeper/listkeeper/internal/membership"
)

// lease is a member Lease of holder claiming buckets of n, renewed at
// renewed; claims overrides the annotation when not "".
func lease(holder string, buckets []int, n int, renewed time.Time, claims string) coordinationv1.Lease {
	if claims == "" {
		claims = membership.EncodeBuckets(buckets, n)
	}
	return coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: holder, Labels: map[string]string{membership.LabelMember: "g"},
			Annotations: map[string]string{membership.AnnotationBuckets: claims}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(holder), LeaseDurationSeconds: ptr.To(int32(10)), RenewTime: ptr.To(metav1.NewMicroTime(renewed))},
	}
}

func TestEncodeBucketsRoundTrip(t *testing.T) {
	for _, n := range []int{1, 7, 8, 64, 256, 1000} {
		want := []int{0, n / 3, n - 1}
		want = slices.Compact(want)
		got, err := membership.DecodeBuckets(membership.EncodeBuckets(append(want, -1, n), n), n)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("n=%d: DecodeBuckets(EncodeBuckets(%v)) = %v, %v", n, want, got, err)
		}
	}
}

func TestDecideOwner(t *testing.T) {
	const n = 16
	doc := listconfig.DocumentIDOfURL("https://lists.example.com/allow")
	b := membership.Bucket(listconfig.DocumentBucketKey(doc), n)
	other := (b + 1) % n
	now := t0
	fresh, stale := now.Add(-time.Second), now.Add(-time.Minute)
	q := ownerQuery{Namespace: "listkeeper-system", Buckets: n}
	tests := []struct {
		name   string
		doc    string
		leases []coordinationv1.Lease
		q      ownerQuery
		want   ownerView
	}{
		{name: "one owner", doc: doc, leases: []coordinationv1.Lease{lease("r-0", []int{b}, n, fresh, ""), lease("r-1", []int{other}, n, fresh, "")},
			want: ownerView{Bucket: &b, Buckets: n, Holder: "r-0", Lease: "r-0", Group: "g", RenewTime: &fresh}},
		{name: "handing over: the live one first", doc: doc, leases: []coordinationv1.Lease{lease("r-old", []int{b}, n, stale, ""), lease("r-new", []int{b}, n, fresh, "")},
			want: ownerView{Bucket: &b, Buckets: n, Holder: "r-new", Lease: "r-new", Group: "g", RenewTime: &fresh, AlsoClaimedBy: []string{"r-old"}}},
		{name: "only an expired Lease", doc: doc, leases: []coordinationv1.Lease{lease("r-0", []int{b}, n, stale, "")},
			want: ownerView{Bucket: &b, Buckets: n, Holder: "r-0", Lease: "r-0", Group: "g", RenewTime: &stale, Expired: true}},
		{name: "bucket moving", doc: doc, leases: []coordinationv1.Lease{lease("r-1", []int{other}, n, fresh, "")},
			want: ownerView{Bucket: &b, Buckets: n, Note: "no member Lease claims bucket " + itoa(b) + ": it is moving between replicas"}},
		{name: "no Leases", doc: doc,
			want: ownerView{Bucket: &b, Buckets: n, Note: "no member Lease in namespace listkeeper-system: is the operator in another namespace (--operator-namespace)?"}},
		{name: "no Leases of the group", doc: doc, q: ownerQuery{Namespace: "ops", Group: "lk", Buckets: n},
			want: ownerView{Bucket: &b, Buckets: n, Note: "no member Lease in namespace ops with listkeeper.dev/member=lk: is the operator in another namespace (--operator-namespace)?"}},
		{name: "another bucket count", doc: doc, leases: []coordinationv1.Lease{lease("r-0", []int{0}, 2*n, fresh, "")},
			want: ownerView{Bucket: &b, Buckets: n, Note: "no member Lease claims bucket " + itoa(b) + ": it is moving between replicas; 1 Lease(s) hold claims that are not bitmaps of 16 buckets (is the operator's --buckets another number?)"}},
		{name: "document not known", leases: []coordinationv1.Lease{lease("r-0", []int{b}, n, fresh, "")},
			want: ownerView{Buckets: n, Note: "the document is not known yet"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			qq := q
			if tt.q.Namespace != "" {
				qq = tt.q
			}
			got := decideOwner(tt.leases, tt.doc, qq, now)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decideOwner (-want +got):\n%s", diff)
			}
		})
	}
}
