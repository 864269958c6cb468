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

package iamfake_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	crm "google.golang.org/api/cloudresourcemanager/v3"

	"github.com/listkeeper/listkeeper/internal/storetest/iamfake"
)

// TestMembers: a policy is written only with principals of the kinds IAM
// knows, in their shape; Cloud Storage adds its convenience values.
func TestMembers(t *testing.T) {
	srv, err := iamfake.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		member      string
		crm, bucket bool
	}{
		{"user:alice@example.com", true, true},
		{"serviceAccount:bot@p.iam.gserviceaccount.com", true, true},
		{"serviceAccount:p.svc.id.goog[ns/ksa]", true, true},
		{"group:team@example.com", true, true},
		{"domain:example.com", true, true},
		{"allUsers", true, true},
		{"allAuthenticatedUsers", true, true},
		{"principal://iam.googleapis.com/locations/global/workforcePools/pool/subject/dana", true, true},
		{"principalSet://iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/pool/*", true, true},
		{"deleted:user:gone@example.com?uid=123456789012345678901", true, true},
		{"deleted:principal://iam.googleapis.com/locations/global/workforcePools/p/subject/s", true, true},
		{"projectViewer:p-123", false, true},
		{"user:", false, false},
		{"user:alice", false, false},
		{"user:Alice <alice@example.com>", false, false},
		{"alice@example.com", false, false},
		{"users:alice@example.com", false, false},
		{"domain:localhost", false, false},
		{"principal://evil.example/x", false, false},
		{"deleted:user:gone@example.com", false, false},
		{"allusers", false, false},
		{"", false, false},
	} {
		t.Run(tc.member, func(t *testing.T) {
			p := iamfake.Policy{Bindings: []iamfake.Binding{{Role: "roles/viewer", Members: []string{tc.member}}}}
			_, errCRM := srv.SetPolicy("projects/p", p)
			_, errBucket := srv.SetPolicy(bucket, p)
			if (errCRM == nil) != tc.crm || (errBucket == nil) != tc.bucket {
				t.Errorf("Resource Manager: %v (want accepted %v); Cloud Storage: %v (want accepted %v)", errCRM, tc.crm, errBucket, tc.bucket)
			}
		})
	}
}

// TestRoles: roles are predefined (roles/NAME) or custom
// (projects/P/roles/NAME, organizations/O/roles/NAME).
func TestRoles(t *testing.T) {
	srv, err := iamfake.New()
	if err != nil {
		t.Fatal(err)
	}
	for role, ok := range map[string]bool{
		"roles/storage.objectViewer":      true,
		"projects/p-1/roles/listReader":   true,
		"organizations/12/roles/reader_2": true,
		"roles/":                          false,
		"viewer":                          false,
		"folders/1/roles/x":               false,
		"roles/a b":                       false,
		"roles/viewer_withcond_0123abcd":  false,
	} {
		_, err := srv.SetPolicy("projects/p", iamfake.Policy{Bindings: []iamfake.Binding{{Role: role, Members: []string{"user:a@example.com"}}}})
		if (err == nil) != ok {
			t.Errorf("role %q: %v, want accepted %v", role, err, ok)
		}
	}
}

// TestLimits: a policy names at most 1,500 principals, counting each
// occurrence, and at most 250 groups; a write over a limit is 400
// INVALID_ARGUMENT and its message quotes the request, as IAM's do.
func TestLimits(t *testing.T) {
	e := start(t)
	seed(t, e.srv, "projects/p", iamfake.Policy{Bindings: []iamfake.Binding{{Role: "roles/owner", Members: []string{"user:owner@example.com"}}}})
	withMembers := func(n int, kind string) *crm.Policy {
		p := getV3(t, e, "projects/p")
		b := &crm.Binding{Role: "roles/viewer"}
		for i := range n {
			b.Members = append(b.Members, fmt.Sprintf("%s:m%d@example.com", kind, i))
		}
		p.Bindings = append(p.Bindings, b)
		return p
	}
	if _, err := crmSet(e, "projects/p", &crm.SetIamPolicyRequest{Policy: withMembers(iamfake.MaxMembers-1, "user")}); err != nil {
		t.Fatalf("%d principals: %v", iamfake.MaxMembers, err)
	}
	for _, tc := range []struct {
		name string
		p    *crm.Policy
	}{
		{"principals", withMembers(iamfake.MaxMembers, "user")},
		{"groups", withMembers(iamfake.MaxGroups+1, "group")},
		{"an unknown kind", &crm.Policy{Etag: getV3(t, e, "projects/p").Etag,
			Bindings: []*crm.Binding{{Role: "roles/owner", Members: []string{"robot:r2d2@example.com"}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := crmSet(e, "projects/p", &crm.SetIamPolicyRequest{Policy: tc.p})
			ge := apiError(t, err, http.StatusBadRequest)
			if got := status(t, ge.Body); got != "INVALID_ARGUMENT" {
				t.Errorf("status %q", got)
			}
			t.Logf("refused: %s", ge.Message)
		})
	}
	_, err := crmSet(e, "projects/p", &crm.SetIamPolicyRequest{Policy: &crm.Policy{
		Bindings: []*crm.Binding{{Role: "roles/owner", Members: []string{"robot:r2d2@example.com"}}}}})
	if ge := apiError(t, err, http.StatusBadRequest); !strings.Contains(ge.Message, "robot:r2d2@example.com") {
		t.Errorf("the message does not quote the principal, as IAM's do: %q", ge.Message)
	}
}
