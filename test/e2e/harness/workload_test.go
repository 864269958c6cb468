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
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// TestEntriesCreateIDs checks the IDs Create gives: the names themselves
// by default, as every caller had them before ID existed, and ID(name)
// when ID is set, on every entry and nowhere else.
func TestEntriesCreateIDs(t *testing.T) {
	scheme, err := NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	names := EntryNames("e", 20)
	cidr := func(name string) string {
		n, err := strconv.Atoi(strings.TrimPrefix(name, "e-"))
		if err != nil {
			t.Errorf("entry name %q", name)
		}
		return fmt.Sprintf("10.0.0.%d/32", n)
	}
	for _, tt := range []struct {
		desc string
		id   func(string) string
		want func(string) string
	}{
		{"default", nil, func(name string) string { return name }},
		{"mapped", cidr, cidr},
	} {
		t.Run(tt.desc, func(t *testing.T) {
			c := fake.NewClientBuilder().WithScheme(scheme).Build()
			e := Entries{Client: c, Namespace: "ns", List: "l", Labels: map[string]string{"run": "x"}, ID: tt.id}
			ctx := context.Background()
			if err := e.Create(ctx, names); err != nil {
				t.Fatal(err)
			}
			got, err := e.Existing(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(names) {
				t.Fatalf("Create made %d entries, want %d", len(got), len(names))
			}
			for _, le := range got {
				if want := tt.want(le.Name); le.Spec.ID != want || le.Spec.ListRef.Name != "l" {
					t.Errorf("entry %s holds %q of list %q, want %q of l", le.Name, le.Spec.ID, le.Spec.ListRef.Name, want)
				}
			}
			ids := e.IDsOf(names)
			for i, name := range names {
				if ids[i] != tt.want(name) || e.IDOf(name) != ids[i] {
					t.Errorf("IDsOf/IDOf(%s) = %q/%q, want %q", name, ids[i], e.IDOf(name), tt.want(name))
				}
			}
			if n := len(slices.Compact(slices.Sorted(slices.Values(ids)))); n != len(names) {
				t.Errorf("IDs %v are not distinct", ids)
			}
			var le v1alpha1.ListEntry
			if err := c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: names[7]}, &le); err != nil || le.Spec.ID != tt.want(names[7]) {
				t.Errorf("Get %s: %q, %v", names[7], le.Spec.ID, err)
			}
		})
	}
}
