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

package stores

import (
	"reflect"
	"slices"
	"testing"

	crm "google.golang.org/api/cloudresourcemanager/v3"
)

// TestIAMBindingEdit: the list is the merged members of the role's
// unconditional bindings, and a write folds it into the first of them,
// touching nothing else of the policy, nor the policy it was given.
func TestIAMBindingEdit(t *testing.T) {
	const role = "roles/viewer"
	cond := &iamCondition{Expression: "true", Title: "t"}
	b := func(role string, c *iamCondition, members ...string) iamBinding {
		return iamBinding{Role: role, Members: members, Condition: c}
	}
	for _, tc := range []struct {
		name     string
		bindings []iamBinding
		read     []string
		write    []string
		want     []iamBinding
	}{
		{
			name:     "no binding of the role: an empty list, and a new binding at the end",
			bindings: []iamBinding{b("roles/owner", nil, "user:o@x.com"), b(role, cond, "user:c@x.com")},
			read:     []string{},
			write:    []string{"user:a@x.com"},
			want:     []iamBinding{b("roles/owner", nil, "user:o@x.com"), b(role, cond, "user:c@x.com"), b(role, nil, "user:a@x.com")},
		},
		{
			name:     "one binding: replaced where it is",
			bindings: []iamBinding{b(role, nil, "user:a@x.com"), b("roles/owner", nil, "user:o@x.com")},
			read:     []string{"user:a@x.com"},
			write:    []string{"user:b@x.com", "user:a@x.com"},
			want:     []iamBinding{b(role, nil, "user:b@x.com", "user:a@x.com"), b("roles/owner", nil, "user:o@x.com")},
		},
		{
			name: "two unconditional bindings: merged in order, each member once, and folded into the first",
			bindings: []iamBinding{b(role, nil, "user:a@x.com", "user:b@x.com"), b(role, cond, "user:c@x.com"),
				b("roles/owner", nil, "user:o@x.com"), b(role, nil, "user:b@x.com", "user:d@x.com")},
			read:  []string{"user:a@x.com", "user:b@x.com", "user:d@x.com"},
			write: []string{"user:a@x.com", "user:d@x.com"},
			want: []iamBinding{b(role, nil, "user:a@x.com", "user:d@x.com"), b(role, cond, "user:c@x.com"),
				b("roles/owner", nil, "user:o@x.com")},
		},
		{
			name:     "an empty list: every unconditional binding of the role goes, the conditional one stays",
			bindings: []iamBinding{b(role, nil, "user:a@x.com"), b(role, cond, "user:c@x.com"), b(role, nil, "user:b@x.com")},
			read:     []string{"user:a@x.com", "user:b@x.com"},
			write:    nil,
			want:     []iamBinding{b(role, cond, "user:c@x.com")},
		},
		{
			name:     "a role of the same name under another project is another role",
			bindings: []iamBinding{b("projects/p/roles/viewer", nil, "user:a@x.com")},
			read:     []string{},
			write:    []string{"user:b@x.com"},
			want:     []iamBinding{b("projects/p/roles/viewer", nil, "user:a@x.com"), b(role, nil, "user:b@x.com")},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &iamPolicy{Version: 3, Etag: "BwYAAAAAAAA=", Bindings: tc.bindings,
				AuditConfigs: []*crm.AuditConfig{{Service: "allServices", AuditLogConfigs: []*crm.AuditLogConfig{{LogType: "DATA_READ"}}}}}
			orig := p.clone()
			if got := membersOf(p, role); !slices.Equal(got, tc.read) {
				t.Errorf("membersOf = %v, want %v", got, tc.read)
			}
			got := withMembers(p, role, tc.write)
			if !reflect.DeepEqual(got.Bindings, tc.want) {
				t.Errorf("bindings after the write:\n got %+v\nwant %+v", got.Bindings, tc.want)
			}
			if got.Version != p.Version || got.Etag != p.Etag || !reflect.DeepEqual(got.AuditConfigs, p.AuditConfigs) {
				t.Errorf("version, etag or audit configs changed: %+v", got)
			}
			if !reflect.DeepEqual(p, orig) {
				t.Errorf("withMembers changed the policy it was given")
			}
			if len(got.Bindings) > 0 && len(p.Bindings) > 0 && len(got.Bindings[0].Members) > 0 && len(p.Bindings[0].Members) > 0 &&
				&got.Bindings[0].Members[0] == &p.Bindings[0].Members[0] {
				t.Errorf("the written policy shares members with the read one")
			}
		})
	}
}

// TestIAMWireShapes: the policy goes to each API with its version, its
// etag, and the bindings as []: an empty list is sent as no bindings, not
// left out (which an API could take as "unchanged").
func TestIAMWireShapes(t *testing.T) {
	p := &iamPolicy{Version: 1, Etag: "BwYAAAAAAAA="}
	c, err := toCRM(p).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"bindings":[],"etag":"BwYAAAAAAAA=","version":1}`; string(c) != want {
		t.Errorf("Resource Manager: %s, want %s", c, want)
	}
	s, err := toStorage(p).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"bindings":[],"etag":"BwYAAAAAAAA=","version":1}`; string(s) != want {
		t.Errorf("Cloud Storage: %s, want %s", s, want)
	}
}
