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

package harness

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/listkeeper/listkeeper/internal/membership"
)

func TestDecodeBuckets(t *testing.T) {
	tests := []struct {
		name    string
		s       string
		n       int
		want    []int
		wantErr bool
	}{
		{name: "none of 8", s: "AA", n: 8},
		{name: "bucket 0 of 8", s: "AQ", n: 8, want: []int{0}},
		{name: "buckets 1 and 7 of 8", s: "gg", n: 8, want: []int{1, 7}},
		{name: "bucket 8 of 16", s: "AAE", n: 16, want: []int{8}},
		{name: "all of 10", s: "_wM", n: 10, want: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{name: "bits past n are ignored", s: "_w8", n: 10, want: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{name: "too short", s: "AA", n: 16, wantErr: true},
		{name: "not base64", s: "!!", n: 8, wantErr: true},
		{name: "padded", s: "AA==", n: 8, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeBuckets(tt.s, tt.n)
			if (err != nil) != tt.wantErr || !slices.Equal(got, tt.want) {
				t.Errorf("DecodeBuckets(%q, %d) = %v, %v; want %v, error %v", tt.s, tt.n, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestMemberLeaseOf(t *testing.T) {
	tests := []struct {
		holder, name string
		want         bool
	}{
		{"manager-1-0a1b2c", "manager-1", true},
		{"manager-10-0a1b2c", "manager-1", false},
		{"manager-1", "manager-1", false},
		{"manager-1-", "manager-1", false},
		{"other-0a1b2c", "manager-1", false},
	}
	for _, tt := range tests {
		if got := (MemberLease{Holder: tt.holder}).Of(tt.name); got != tt.want {
			t.Errorf("Lease of %q .Of(%q) = %v, want %v", tt.holder, tt.name, got, tt.want)
		}
	}
}

func TestCoverageOf(t *testing.T) {
	leases := []MemberLease{{Buckets: []int{0, 1}}, {Buckets: []int{1, 3}}, {Buckets: nil}}
	c := CoverageOf(leases, 5)
	if c.Claimed != 3 || !slices.Equal(c.Unclaimed, []int{2, 4}) || !slices.Equal(c.Shared, []int{1}) || c.Complete() {
		t.Errorf("CoverageOf = %+v", c)
	}
	if got, want := c.String(), "3 buckets claimed, 2 unclaimed (2, 4), 1 claimed twice (1)"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if c := CoverageOf([]MemberLease{{Buckets: []int{0, 2}}, {Buckets: []int{1}}}, 3); !c.Complete() {
		t.Errorf("a partition is not complete: %+v", c)
	}
}

func TestLeasesOf(t *testing.T) {
	at := func(s int) time.Time { return time.Unix(int64(s), 0) }
	leases := []MemberLease{
		{Name: "old", Holder: "manager-1-aaaaaa", Renewed: at(1)},
		{Name: "new", Holder: "manager-1-bbbbbb", Renewed: at(5)},
		{Name: "ten", Holder: "manager-10-cccccc", Renewed: at(9)},
		{Name: "two", Holder: "manager-2-dddddd", Renewed: at(3)},
	}
	var got []string
	for _, l := range LeasesOf(leases, "manager-1", "manager-2", "manager-3") {
		got = append(got, l.Name)
	}
	if want := []string{"new", "two"}; !slices.Equal(got, want) {
		t.Errorf("LeasesOf = %v, want %v", got, want)
	}
}

func TestUnsettled(t *testing.T) {
	const n = 16
	holders := []string{"manager-1-aaaaaa", "manager-2-bbbbbb"}
	owner := membership.Assign(holders, n)
	share := func(h string) []int {
		var out []int
		for b, o := range owner {
			if o == h {
				out = append(out, b)
			}
		}
		return out
	}
	settled := []MemberLease{{Holder: holders[0], Buckets: share(holders[0])}, {Holder: holders[1], Buckets: share(holders[1])}}
	if got := Unsettled(settled, n); got != 0 {
		t.Errorf("Unsettled(assigned shares) = %d, want 0", got)
	}
	all := make([]int, n)
	for b := range all {
		all[b] = b
	}
	joining := []MemberLease{{Holder: holders[0], Buckets: all}, {Holder: holders[1]}}
	if got, want := Unsettled(joining, n), len(share(holders[1])); got != want {
		t.Errorf("Unsettled(one holds all, one joined) = %d, want %d", got, want)
	}
	if got, want := Unsettled([]MemberLease{settled[0], {Holder: holders[1], Buckets: all}}, n), len(share(holders[0])); got != want {
		t.Errorf("Unsettled(one claims all, the other its share) = %d, want %d", got, want)
	}
	if got := Unsettled([]MemberLease{settled[0], {Holder: holders[1], Err: errors.New("unreadable")}}, n); got != n {
		t.Errorf("Unsettled(unreadable) = %d, want %d", got, n)
	}
}

// TestReadMemberLeasesByLabelKey checks that member Leases are found by
// the label's key whatever its value (the members' group), and that other
// Leases are left out.
func TestReadMemberLeasesByLabelKey(t *testing.T) {
	scheme, err := NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	lease := func(namespace, name string, labels map[string]string) client.Object {
		holder := name + "-0a1b"
		return &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels,
				Annotations: map[string]string{membership.AnnotationBuckets: "AQ"}},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder},
		}
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(
		lease("ns", "old", map[string]string{membership.LabelMember: "true"}),
		lease("ns", "grouped", map[string]string{membership.LabelMember: "listkeeper"}),
		lease("ns", "other", map[string]string{"app": "x"}),
		lease("ns2", "elsewhere", map[string]string{membership.LabelMember: "listkeeper"}),
	).Build()
	got, err := ReadMemberLeases(context.Background(), c, "ns", 8)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range got {
		names = append(names, l.Name+"="+l.Group)
		if !slices.Equal(l.Buckets, []int{0}) || l.Err != nil {
			t.Errorf("Lease %s: buckets %v, %v", l.Name, l.Buckets, l.Err)
		}
	}
	slices.Sort(names)
	if want := []string{"grouped=listkeeper", "old=true"}; !slices.Equal(names, want) {
		t.Errorf("ReadMemberLeases = %v, want %v", names, want)
	}
}

func TestOwnerOf(t *testing.T) {
	leases := []MemberLease{
		{Holder: "manager-1-0a1b", Buckets: []int{0, 1}},
		{Holder: "manager-2-0c0d", Buckets: []int{2, 1}},
		{Holder: "manager-3-0e0f", Buckets: []int{3}},
	}
	for _, tt := range []struct {
		bucket int
		want   string
		ok     bool
	}{{0, "manager-1", true}, {3, "manager-3", true}, {1, "", false}, {4, "", false}} {
		l, ok := OwnerOf(leases, tt.bucket)
		if ok != tt.ok || (ok && l.Replica() != tt.want) {
			t.Errorf("OwnerOf(bucket %d) = %q, %v; want %q, %v", tt.bucket, l.Replica(), ok, tt.want, tt.ok)
		}
	}
	for holder, want := range map[string]string{"manager-1-0a1b": "manager-1", "plain": "plain", "-x": "-x"} {
		if got := (MemberLease{Holder: holder}).Replica(); got != want {
			t.Errorf("Replica of %q = %q, want %q", holder, got, want)
		}
	}
}
