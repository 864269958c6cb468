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
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	crm "google.golang.org/api/cloudresourcemanager/v3"

	"github.com/listkeeper/listkeeper/internal/storetest/iamfake"
)

// getV3 reads resource's policy through the library, asking for version 3.
func getV3(t *testing.T, e *env, resource string) *crm.Policy {
	t.Helper()
	p, err := crmGet(e, resource, 3)
	if err != nil {
		t.Fatalf("getIamPolicy %s: %v", resource, err)
	}
	return p
}

// crmGet calls the getIamPolicy of resource's kind.
func crmGet(e *env, resource string, version int64) (*crm.Policy, error) {
	req := &crm.GetIamPolicyRequest{Options: &crm.GetPolicyOptions{RequestedPolicyVersion: version}}
	switch {
	case strings.HasPrefix(resource, "folders/"):
		return e.crm.Folders.GetIamPolicy(resource, req).Do()
	case strings.HasPrefix(resource, "organizations/"):
		return e.crm.Organizations.GetIamPolicy(resource, req).Do()
	default:
		return e.crm.Projects.GetIamPolicy(resource, req).Do()
	}
}

// crmSet calls the setIamPolicy of resource's kind.
func crmSet(e *env, resource string, req *crm.SetIamPolicyRequest) (*crm.Policy, error) {
	switch {
	case strings.HasPrefix(resource, "folders/"):
		return e.crm.Folders.SetIamPolicy(resource, req).Do()
	case strings.HasPrefix(resource, "organizations/"):
		return e.crm.Organizations.SetIamPolicy(resource, req).Do()
	default:
		return e.crm.Projects.SetIamPolicy(resource, req).Do()
	}
}

// status returns the google.rpc.Status name of an error body.
func status(t *testing.T, body string) string {
	t.Helper()
	var b struct {
		Error struct {
			Code    int    `json:"code"`
			Status  string `json:"status"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &b); err != nil || b.Error.Code == 0 || b.Error.Message == "" {
		t.Fatalf("error body %q is not a google.rpc.Status (%v)", body, err)
	}
	return b.Error.Status
}

// TestCRMRoundTrip reads and writes the policy of a project, a folder and
// an organization through the Resource Manager library: the write is
// conditional on the etag read, gets a new etag, and what the next read
// shows is what was written, the conditional binding and the audit
// configs included. The policy is served byte for byte in Google's field
// order.
func TestCRMRoundTrip(t *testing.T) {
	e := start(t)
	for _, resource := range []string{"projects/p-123", "folders/4567", "organizations/8910"} {
		t.Run(resource, func(t *testing.T) {
			etag := seed(t, e.srv, resource, projectPolicy())
			p := getV3(t, e, resource)
			if p.Etag != etag || p.Version != 3 || len(p.Bindings) != 3 || len(p.AuditConfigs) != 1 {
				t.Fatalf("read version %d etag %q with %d bindings and %d audit configs, want 3, %q, 3, 1", p.Version, p.Etag, len(p.Bindings), len(p.AuditConfigs), etag)
			}
			wantJSON := `{"version":3,"etag":"` + etag + `","bindings":[` +
				`{"role":"roles/owner","members":["user:owner@example.com"]},` +
				`{"role":"roles/viewer","members":["user:alice@example.com","group:team@example.com"]},` +
				`{"role":"roles/viewer","members":["user:temp@example.com"],"condition":{"expression":"request.time < timestamp('2030-01-01T00:00:00Z')","title":"until 2030","description":"temporary <access> & more","location":"policy.yaml:12"}}],` +
				`"auditConfigs":[{"service":"allServices","auditLogConfigs":[{"logType":"DATA_READ","exemptedMembers":["user:auditor@example.com"]},{"logType":"ADMIN_READ"}]}]}`
			if raw, _ := e.srv.PolicyJSON(resource); string(raw) != wantJSON {
				t.Errorf("PolicyJSON:\n got %s\nwant %s", raw, wantJSON)
			}

			p.Bindings[1].Members = append(p.Bindings[1].Members, "serviceAccount:bot@p-123.iam.gserviceaccount.com")
			set, err := crmSet(e, resource, &crm.SetIamPolicyRequest{Policy: p})
			if err != nil {
				t.Fatalf("setIamPolicy: %v", err)
			}
			if set.Etag == "" || set.Etag == etag {
				t.Errorf("the write kept etag %q, want a new one", set.Etag)
			}
			got := getV3(t, e, resource)
			if got.Etag != set.Etag {
				t.Errorf("read etag %q after the write answered %q", got.Etag, set.Etag)
			}
			if !slices.Equal(got.Bindings[1].Members, p.Bindings[1].Members) {
				t.Errorf("members = %v, want %v", got.Bindings[1].Members, p.Bindings[1].Members)
			}
			if c := got.Bindings[2].Condition; c == nil || c.Title != "until 2030" || c.Location != "policy.yaml:12" {
				t.Errorf("the conditional binding came back as %+v", got.Bindings[2])
			}
			if len(got.AuditConfigs) != 1 || len(got.AuditConfigs[0].AuditLogConfigs) != 2 {
				t.Errorf("audit configs came back as %+v", got.AuditConfigs)
			}
		})
	}
}

// TestCRMStaleEtag: of two writers that read the same etag, the second to
// write gets 409 ABORTED, and the policy is the first one's.
func TestCRMStaleEtag(t *testing.T) {
	e := start(t)
	seed(t, e.srv, "projects/p", projectPolicy())
	a, b := getV3(t, e, "projects/p"), getV3(t, e, "projects/p")
	a.Bindings[0].Members = append(a.Bindings[0].Members, "user:a@example.com")
	b.Bindings[0].Members = append(b.Bindings[0].Members, "user:b@example.com")
	if _, err := crmSet(e, "projects/p", &crm.SetIamPolicyRequest{Policy: a}); err != nil {
		t.Fatalf("first write: %v", err)
	}
	_, err := crmSet(e, "projects/p", &crm.SetIamPolicyRequest{Policy: b})
	if got := status(t, apiError(t, err, http.StatusConflict).Body); got != "ABORTED" {
		t.Errorf("status = %q, want ABORTED", got)
	}
	if got := getV3(t, e, "projects/p").Bindings[0].Members; !slices.Equal(got, a.Bindings[0].Members) {
		t.Errorf("owners = %v, want the first writer's %v", got, a.Bindings[0].Members)
	}
	if n := e.srv.Stats().Count(iamfake.MethodSet, http.StatusConflict); n != 1 {
		t.Errorf("Stats counted %d setIamPolicy 409s, want 1", n)
	}
}

// TestCRMWithoutEtag: a policy without etag is written unconditionally,
// as IAM does, and so is a version 1 policy over one with conditions,
// which loses them (what the Policy reference warns about).
func TestCRMWithoutEtag(t *testing.T) {
	e := start(t)
	seed(t, e.srv, "projects/p", projectPolicy())
	blind := &crm.Policy{Version: 1, Bindings: []*crm.Binding{{Role: "roles/owner", Members: []string{"user:owner@example.com"}}}}
	if _, err := crmSet(e, "projects/p", &crm.SetIamPolicyRequest{Policy: blind}); err != nil {
		t.Fatalf("unconditional write: %v", err)
	}
	got := getV3(t, e, "projects/p")
	if len(got.Bindings) != 1 || got.Version != 1 {
		t.Errorf("after an unconditional version 1 write: version %d, %d bindings, want 1 and 1", got.Version, len(got.Bindings))
	}
}

// TestCRMUpdateMask: without an update mask only bindings and etag are
// written, so audit configs left out of the request stay; a mask naming
// auditConfigs writes them, here away.
func TestCRMUpdateMask(t *testing.T) {
	e := start(t)
	seed(t, e.srv, "projects/p", projectPolicy())
	p := getV3(t, e, "projects/p")
	p.AuditConfigs = nil
	if _, err := crmSet(e, "projects/p", &crm.SetIamPolicyRequest{Policy: p}); err != nil {
		t.Fatal(err)
	}
	p = getV3(t, e, "projects/p")
	if len(p.AuditConfigs) != 1 {
		t.Fatalf("without a mask the audit configs went: %+v", p.AuditConfigs)
	}
	p.AuditConfigs = nil
	if _, err := crmSet(e, "projects/p", &crm.SetIamPolicyRequest{Policy: p, UpdateMask: "bindings,etag,auditConfigs"}); err != nil {
		t.Fatal(err)
	}
	if p = getV3(t, e, "projects/p"); len(p.AuditConfigs) != 0 {
		t.Errorf("with auditConfigs in the mask they stayed: %+v", p.AuditConfigs)
	}
	_, err := crmSet(e, "projects/p", &crm.SetIamPolicyRequest{Policy: p, UpdateMask: "bindings,owner"})
	if got := status(t, apiError(t, err, http.StatusBadRequest).Body); got != "INVALID_ARGUMENT" {
		t.Errorf("unknown mask field: status %q", got)
	}
}

// TestCRMConditionNeedsVersion3: a condition in a version 1 policy is
// refused with 400 INVALID_ARGUMENT, and so is a conditional write of a
// version 1 policy over one that has conditions; nothing is written.
func TestCRMConditionNeedsVersion3(t *testing.T) {
	e := start(t)
	seed(t, e.srv, "projects/p", iamfake.Policy{Bindings: []iamfake.Binding{{Role: "roles/owner", Members: []string{"user:owner@example.com"}}}})
	p := getV3(t, e, "projects/p")
	if p.Version != 1 {
		t.Fatalf("a policy without conditions read as version %d, want 1", p.Version)
	}
	p.Bindings = append(p.Bindings, &crm.Binding{Role: "roles/viewer", Members: []string{"user:temp@example.com"},
		Condition: &crm.Expr{Title: "t", Expression: "true"}})
	_, err := crmSet(e, "projects/p", &crm.SetIamPolicyRequest{Policy: p})
	if got := status(t, apiError(t, err, http.StatusBadRequest).Body); got != "INVALID_ARGUMENT" {
		t.Errorf("status = %q, want INVALID_ARGUMENT", got)
	}
	if got := getV3(t, e, "projects/p"); len(got.Bindings) != 1 || got.Etag != p.Etag {
		t.Errorf("a refused write changed the policy: %d bindings, etag %q (was %q)", len(got.Bindings), got.Etag, p.Etag)
	}

	seed(t, e.srv, "projects/c", projectPolicy())
	c := getV3(t, e, "projects/c")
	c.Version = 1
	c.Bindings = c.Bindings[:2] // drops the conditional binding
	_, err = crmSet(e, "projects/c", &crm.SetIamPolicyRequest{Policy: c})
	if got := status(t, apiError(t, err, http.StatusBadRequest).Body); got != "INVALID_ARGUMENT" {
		t.Errorf("version 1 over conditions: status = %q, want INVALID_ARGUMENT", got)
	}
}

// TestCRMVersion1View: asked for version 1, a policy with conditions
// shows its conditional bindings as unconditional ones whose role ends in
// _withcond_ and a hash, and such a role cannot be written back.
func TestCRMVersion1View(t *testing.T) {
	e := start(t)
	seed(t, e.srv, "projects/p", projectPolicy())
	p, err := crmGet(e, "projects/p", 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.Version != 1 || p.Bindings[2].Condition != nil || !strings.HasPrefix(p.Bindings[2].Role, "roles/viewer_withcond_") {
		t.Fatalf("version 1 view: version %d, binding %+v", p.Version, p.Bindings[2])
	}
	_, err = crmSet(e, "projects/p", &crm.SetIamPolicyRequest{Policy: p})
	wantStatus(t, err, http.StatusBadRequest)
	if _, err := crmGet(e, "projects/p", 2); err == nil {
		t.Error("requested version 2 was served")
	}
}

// TestCRMUnknownResource: Resource Manager denies permission for a
// resource it does not know ("Permission is denied if the policy or the
// resource do not exist"), to reads and writes.
func TestCRMUnknownResource(t *testing.T) {
	e := start(t)
	_, err := crmGet(e, "projects/nope", 3)
	if got := status(t, apiError(t, err, http.StatusForbidden).Body); got != "PERMISSION_DENIED" {
		t.Errorf("read: status %q", got)
	}
	_, err = crmSet(e, "folders/1", &crm.SetIamPolicyRequest{Policy: &crm.Policy{Etag: "BwYAAAAAAAA=",
		Bindings: []*crm.Binding{{Role: "roles/owner", Members: []string{"user:owner@example.com"}}}}})
	if got := status(t, apiError(t, err, http.StatusForbidden).Body); got != "PERMISSION_DENIED" {
		t.Errorf("write: status %q", got)
	}
}
