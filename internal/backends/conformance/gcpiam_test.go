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

package conformance_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/backends/conformance"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/stores"
	"github.com/listkeeper/listkeeper/internal/storetest/gcstoken"
	"github.com/listkeeper/listkeeper/internal/storetest/iamfake"
)

// TestGCPIAMProject: the members of a role's unconditional binding in a
// project's IAM policy (Resource Manager v3), served by iamfake with real
// OAuth 2.0 tokens. Resource Manager answers a project that does not
// exist with 403, so a missing list is ErrUnauthorized.
func TestGCPIAMProject(t *testing.T) {
	conformance.Run(t, gcpIAMHarness("projects/p-123", "projects/p-missing", etagclient.ErrUnauthorized))
}

// TestGCPIAMBucket: the same in a bucket's policy (Cloud Storage JSON
// API), where a missing bucket is 404.
func TestGCPIAMBucket(t *testing.T) {
	conformance.Run(t, gcpIAMHarness("projects/_/buckets/lists-bucket", "projects/_/buckets/no-such-bucket", etagclient.ErrNotFound))
}

const iamRole = "roles/viewer"

func gcpIAMHarness(resource, missing string, notFound error) conformance.Harness {
	h := conformance.Harness{
		Kind: "gcpiam", IDs: memberIDs, IsWrite: isSetIAMPolicy, NotFoundClass: notFound,
		Unsafe: map[string]func(*http.Response){"no-etag": deleteJSONField("etag")}, //nolint:bodyclose // rewrites an answer the probe closes
	}
	h.Start = func(t *testing.T, _ *conformance.Probe) *conformance.Target { return startGCPIAM(t, resource, missing) }
	return h
}

// memberIDs are user principals.
func memberIDs(from, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("user:u%04d@example.com", from+i)
	}
	return out
}

func isSetIAMPolicy(r *http.Request) bool {
	return strings.HasSuffix(r.URL.Path, ":setIamPolicy") || (r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/iam"))
}

// iamPolicy is a policy around the role's members: another role before
// and after, a conditional binding of the role, and (for a project) audit
// configs, all of which a write of the members must keep.
func iamPolicy(resource string, members []string) iamfake.Policy {
	p := iamfake.Policy{Bindings: []iamfake.Binding{
		{Role: "roles/owner", Members: []string{"user:owner@example.com"}},
		{Role: iamRole, Members: []string{"group:temp@example.com"}, Condition: &iamfake.Expr{
			Expression: "request.time < timestamp('2030-01-01T00:00:00Z')", Title: "until 2030", Description: "temporary <access> & more"}},
		{Role: "roles/editor", Members: []string{"domain:example.com"}},
	}}
	if len(members) > 0 {
		p.Bindings = slices.Insert(p.Bindings, 1, iamfake.Binding{Role: iamRole, Members: members})
	}
	if !strings.Contains(resource, "/buckets/") {
		p.AuditConfigs = []iamfake.AuditConfig{{Service: "allServices", AuditLogConfigs: []iamfake.AuditLogConfig{{LogType: "DATA_READ"}}}}
	}
	return p
}

// rawIAMPolicy is a policy as the fake serves it, its parts kept as bytes.
type rawIAMPolicy struct {
	Version      json.RawMessage   `json:"version"`
	Bindings     []json.RawMessage `json:"bindings"`
	AuditConfigs json.RawMessage   `json:"auditConfigs"`
}

type rawBinding struct {
	Role      string          `json:"role"`
	Members   []string        `json:"members"`
	Condition json.RawMessage `json:"condition"`
}

func parseIAM(t *testing.T, raw []byte) (rawIAMPolicy, []rawBinding) {
	t.Helper()
	var p rawIAMPolicy
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	bs := make([]rawBinding, len(p.Bindings))
	for i, b := range p.Bindings {
		if err := json.Unmarshal(b, &bs[i]); err != nil {
			t.Fatal(err)
		}
	}
	return p, bs
}

func startGCPIAM(t *testing.T, resource, missing string) *conformance.Target {
	tokens, err := gcstoken.New()
	if err != nil {
		t.Fatal(err)
	}
	tokenSrv := httptest.NewServer(tokens)
	t.Cleanup(tokenSrv.Close)
	tokenURL := tokenSrv.URL + gcstoken.TokenPath
	key, err := tokens.NewServiceAccountKey(tokenURL)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := iamfake.New(iamfake.WithTokenCheck(tokens.Valid))
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	t.Cleanup(srv.Close)
	if _, err := srv.SetPolicy(resource, iamPolicy(resource, nil)); err != nil {
		t.Fatal(err)
	}
	auth := &v1alpha1.GCPAuth{SecretRef: &v1alpha1.SecretReference{Name: "gcp"}}
	sec := secrets(map[string]map[string]string{"gcp": {stores.GCPCredentialsKey: string(key)}})
	policy := stores.Policy{GCPTokenURIs: []string{tokenURL}}
	target := func(t *testing.T, resource string) *conformance.Target {
		factory, _, err := stores.GCPIAMBackend(t.Context(), &v1alpha1.GCPIAMBinding{Resource: fullResourceName(resource), Role: iamRole, Endpoint: srv.URL()}, auth, sec, policy, true)
		if err != nil {
			t.Fatalf("GCPIAMBackend: %v", err)
		}
		return &conformance.Target{
			URL: "gcpiam://conformance/" + resource, Factory: factory,
			Seed: func(t *testing.T, items []string) {
				if _, err := srv.SetPolicy(resource, iamPolicy(resource, items)); err != nil {
					t.Fatal(err)
				}
			},
			Stored: func(*testing.T) ([]byte, bool) { return srv.PolicyJSON(resource) },
			// The list is the members of the role's unconditional
			// bindings, in the order the policy holds them.
			Items: func(t *testing.T, raw []byte) []string {
				_, bs := parseIAM(t, raw)
				var out []string
				for _, b := range bs {
					if b.Role == iamRole && b.Condition == nil {
						out = append(out, b.Members...)
					}
				}
				return out
			},
			// Everything else: the other bindings in their order, byte
			// for byte, the audit configs and the version; not the
			// etag, which every write changes.
			Foreign: func(t *testing.T, raw []byte) []byte {
				p, bs := parseIAM(t, raw)
				parts := [][]byte{p.Version, p.AuditConfigs}
				for i, b := range bs {
					if b.Role != iamRole || b.Condition != nil {
						parts = append(parts, p.Bindings[i])
					}
				}
				return bytes.Join(parts, []byte("\n"))
			},
			Inject: func(f conformance.Fault, pick func(*http.Request) bool) error {
				fault := map[conformance.Fault]func() *iamfake.Error{
					conformance.FaultThrottled:   iamfake.ErrResourceExhausted,
					conformance.FaultUnavailable: iamfake.ErrUnavailable,
					conformance.FaultInternal:    iamfake.ErrInternal,
					conformance.FaultDropBefore:  iamfake.DropConnection,
					conformance.FaultDropAfter:   iamfake.DropAnswer,
				}[f]
				if fault == nil {
					return fmt.Errorf("%w: %s", conformance.ErrNoFault, f)
				}
				srv.SetFaultHook(func(c iamfake.Call) *iamfake.Error {
					if pick(c.Request) {
						return fault()
					}
					return nil
				})
				return nil
			},
		}
	}
	tg := target(t, resource)
	tg.Missing = func(t *testing.T, _ *conformance.Probe) *conformance.Target { return target(t, missing) }
	return tg
}

// fullResourceName is resource's name as spec.gcpIAM.resource takes it.
func fullResourceName(resource string) string {
	if strings.Contains(resource, "/buckets/") {
		return "//storage.googleapis.com/" + resource
	}
	return "//cloudresourcemanager.googleapis.com/" + resource
}
