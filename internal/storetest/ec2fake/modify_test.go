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

package ec2fake

import "testing"

func ptr[T any](v T) *T { return &v }

// TestPlanModifyOrder: when a modification is wrong in more than one way,
// the first check in the documented order decides the code, and a
// refused modification plans nothing.
func TestPlanModifyOrder(t *testing.T) {
	list := listView{id: "pl-0123456789abcdef0", family: IPv4, version: 3, maxEntries: 2, state: StateModifyComplete,
		entries: []Entry{{CIDR: "192.0.2.0/24"}, {CIDR: "198.51.100.0/24"}}}
	tests := []struct {
		name  string
		state string
		in    modifyRequest
		code  string
	}{
		{"in progress beats a stale version", StateModifyInProgress,
			modifyRequest{currentVersion: ptr(int64(2)), remove: []string{"203.0.113.0/24"}}, "IncorrectState"},
		{"create in progress too", StateCreateInProgress, modifyRequest{add: []rawEntry{{cidr: "203.0.113.0/24"}}}, "IncorrectState"},
		{"stale version beats an absent entry", "", modifyRequest{currentVersion: ptr(int64(2)), remove: []string{"203.0.113.0/24"}}, "PrefixListVersionMismatch"},
		{"MaxEntries below the entries", "", modifyRequest{maxEntries: ptr(int32(1))}, "InvalidParameterValue"},
		{"a malformed removal beats an absent one", "", modifyRequest{remove: []string{"203.0.113.1/24", "203.0.113.0/25"}}, "InvalidParameterValue"},
		{"removals are judged before additions", "", modifyRequest{remove: []string{"203.0.113.0/24"}, add: []rawEntry{{cidr: "2001:db8::/32"}}}, "InvalidPrefixListModification"},
		{"an added entry that is there", "", modifyRequest{add: []rawEntry{{cidr: "192.0.2.0/24"}}}, "InvalidPrefixListModification"},
		{"beyond MaxEntries, last", "", modifyRequest{currentVersion: ptr(int64(3)), add: []rawEntry{{cidr: "203.0.113.0/24"}}}, "PrefixListMaxEntriesExceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := list
			if tt.state != "" {
				l.state = tt.state
			}
			plan, e := planModify(l, tt.in)
			if e == nil || e.Code != tt.code {
				t.Fatalf("planModify = %+v, %v; want %s", plan, e, tt.code)
			}
			if plan.entries != nil || plan.maxEntries != nil || plan.name != nil {
				t.Errorf("a refused modification planned %+v", plan)
			}
		})
	}

	plan, e := planModify(list, modifyRequest{currentVersion: ptr(int64(3)), remove: []string{"198.51.100.0/24"},
		add: []rawEntry{{cidr: "203.0.113.0/24", description: ptr("vpn")}}})
	if e != nil {
		t.Fatalf("a swap within MaxEntries: %v", e)
	}
	if want := []Entry{{CIDR: "192.0.2.0/24"}, {CIDR: "203.0.113.0/24", Description: "vpn"}}; len(plan.entries) != 2 || plan.entries[0] != want[0] || plan.entries[1] != want[1] {
		t.Errorf("planned entries %+v, want %+v", plan.entries, want)
	}
}

// TestCheckModifyRequestOrder: the checks that need no list come first, in
// the documented order.
func TestCheckModifyRequestOrder(t *testing.T) {
	many := make([]string, MaxEntryChanges+1)
	for i := range many {
		many[i] = "192.0.2.0/24"
	}
	tests := []struct {
		name string
		in   modifyRequest
		code string
	}{
		{"no ID", modifyRequest{add: []rawEntry{{cidr: "bad"}}}, "MissingParameter"},
		{"too many changes beats duplicates", modifyRequest{id: "pl-1", remove: many}, "InvalidParameterValue"},
		{"MaxEntries with entries", modifyRequest{id: "pl-1", maxEntries: ptr(int32(5)), remove: []string{"192.0.2.0/24"}}, "InvalidParameterCombination"},
		{"nothing to change", modifyRequest{id: "pl-1"}, "InvalidRequest"},
		{"IPv6 spelled twice", modifyRequest{id: "pl-1", add: []rawEntry{{cidr: "2001:DB8::/32"}, {cidr: "2001:db8::/32"}}}, "InvalidParameterValue"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if e := checkModifyRequest(tt.in); e == nil || e.Code != tt.code {
				t.Errorf("checkModifyRequest = %v, want %s", e, tt.code)
			}
		})
	}
	if e := checkModifyRequest(modifyRequest{id: "pl-1", name: ptr("renamed")}); e != nil {
		t.Errorf("a rename: %v", e)
	}
}
