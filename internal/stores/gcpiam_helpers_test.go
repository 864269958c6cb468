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

package stores_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/stores"
	"github.com/listkeeper/listkeeper/internal/storetest/gcstoken"
	"github.com/listkeeper/listkeeper/internal/storetest/iamfake"
)

// The resources and the role of the IAM tests.
const (
	iamProject   = "projects/p-123"
	iamProjectRN = "//cloudresourcemanager.googleapis.com/" + iamProject
	iamBucket    = "projects/_/buckets/lists-bucket"
	iamBucketRN  = "//storage.googleapis.com/" + iamBucket
	iamRole      = "roles/viewer"
	iamShownURL  = "gcpiam://test"
)

// iamEnv is an IAM fake and a token endpoint on 127.0.0.1 for one test,
// with a Secret holding a service-account key of the endpoint, and the
// policy that lets that key's token_uri be used.
type iamEnv struct {
	fake   *iamfake.Server
	tokens *gcstoken.Server
	sec    stores.SecretFunc
	policy stores.Policy
}

var iamAuth = &v1alpha1.GCPAuth{SecretRef: &v1alpha1.SecretReference{Name: "gcp"}}

func startIAM(t *testing.T, opts ...iamfake.Option) *iamEnv {
	t.Helper()
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
	fake, err := iamfake.New(append([]iamfake.Option{iamfake.WithTokenCheck(tokens.Valid)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	fake.Start()
	t.Cleanup(fake.Close)
	return &iamEnv{
		fake: fake, tokens: tokens,
		sec:    secrets(map[string]map[string]string{"gcp": {stores.GCPCredentialsKey: string(key)}}),
		policy: stores.Policy{GCPTokenURIs: []string{tokenURL}},
	}
}

// binding is the spec.gcpIAM of a list of the role on resource, served by
// the fake.
func (e *iamEnv) binding(resource string) *v1alpha1.GCPIAMBinding {
	return &v1alpha1.GCPIAMBinding{Resource: resource, Role: iamRole, Endpoint: e.fake.URL()}
}

// factory builds the backend factory of a list of the role on resource,
// as the operator does, failing the test if it cannot.
func (e *iamEnv) factory(t *testing.T, resource string) etagclient.BackendFactory {
	t.Helper()
	f, _, err := stores.GCPIAMBackend(t.Context(), e.binding(resource), iamAuth, e.sec, e.policy, true)
	if err != nil {
		t.Fatalf("GCPIAMBackend: %v", err)
	}
	return f
}

// backend builds the backend over rt (a transport of its own when nil)
// with the engine's default limits, closed when the test ends.
func (e *iamEnv) backend(t *testing.T, resource string, rt http.RoundTripper) etagclient.Backend {
	t.Helper()
	return buildBackend(t, e.factory(t, resource), rt)
}

func buildBackend(t *testing.T, f etagclient.BackendFactory, rt http.RoundTripper) etagclient.Backend {
	t.Helper()
	if rt == nil {
		tr := &http.Transport{}
		t.Cleanup(tr.CloseIdleConnections)
		rt = tr
	}
	b, err := f(etagclient.BackendEnv{
		URL: iamShownURL, ShownURL: iamShownURL,
		HTTPClient:   &http.Client{Transport: rt, Timeout: 10 * time.Second},
		MaxBodyBytes: etagclient.DefaultMaxBodyBytes, MaxItems: etagclient.DefaultMaxItems,
	})
	if err != nil {
		t.Fatalf("backend: %v", err)
	}
	t.Cleanup(b.Close)
	return b
}

// seedIAM sets resource's policy on the fake.
func seedIAM(t *testing.T, fake *iamfake.Server, resource string, p iamfake.Policy) {
	t.Helper()
	if _, err := fake.SetPolicy(resource, p); err != nil {
		t.Fatal(err)
	}
}

// readIAM reads the list through b, failing the test on an error.
func readIAM(t *testing.T, b etagclient.Backend) etagclient.ReadAnswer {
	t.Helper()
	ans, err := b.Read(t.Context(), etagclient.Version{})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if ans.Absent || ans.NotModified || ans.Doc == nil {
		t.Fatalf("Read answered %+v, want a document", ans)
	}
	return ans
}

// docOf is a list document with items.
func docOf(t *testing.T, items ...string) *etagclient.Document {
	t.Helper()
	d, err := etagclient.NewDocument(nil)
	if err != nil {
		t.Fatal(err)
	}
	if d, err = d.WithItems(items); err != nil {
		t.Fatal(err)
	}
	return d
}

// rawPolicy is a policy as the fake serves it, its parts kept as bytes.
type rawPolicy struct {
	Version      json.RawMessage   `json:"version"`
	Etag         string            `json:"etag"`
	Bindings     []json.RawMessage `json:"bindings"`
	AuditConfigs json.RawMessage   `json:"auditConfigs"`
}

// rawOf returns resource's policy from the fake, byte for byte.
func rawOf(t *testing.T, fake *iamfake.Server, resource string) rawPolicy {
	t.Helper()
	raw, ok := fake.PolicyJSON(resource)
	if !ok {
		t.Fatalf("%s does not exist", resource)
	}
	var p rawPolicy
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// untouched returns the bindings of p that are not role's unconditional
// ones, as bytes: what a write of role's list must leave as it was.
func untouched(t *testing.T, p rawPolicy, role string) [][]byte {
	t.Helper()
	var out [][]byte
	for _, raw := range p.Bindings {
		var b struct {
			Role      string          `json:"role"`
			Condition json.RawMessage `json:"condition"`
		}
		if err := json.Unmarshal(raw, &b); err != nil {
			t.Fatal(err)
		}
		if b.Role != role || b.Condition != nil {
			out = append(out, raw)
		}
	}
	return out
}

// samePreserved fails the test unless after kept everything of before
// but role's unconditional binding byte for byte: the other bindings in
// their order, the audit configs and the version.
func samePreserved(t *testing.T, before, after rawPolicy, role string) {
	t.Helper()
	if !slices.EqualFunc(untouched(t, before, role), untouched(t, after, role), bytes.Equal) {
		t.Errorf("the other bindings changed:\nbefore %s\n after %s", bytes.Join(untouched(t, before, role), []byte("\n       ")), bytes.Join(untouched(t, after, role), []byte("\n       ")))
	}
	if !bytes.Equal(before.AuditConfigs, after.AuditConfigs) {
		t.Errorf("the audit configs changed:\nbefore %s\n after %s", before.AuditConfigs, after.AuditConfigs)
	}
	if !bytes.Equal(before.Version, after.Version) {
		t.Errorf("the version changed: %s to %s", before.Version, after.Version)
	}
}

// iamProjectPolicy is a project policy around the role: another role
// before and after, the role's unconditional binding split in two (which
// the API allows), a conditional binding of the role between them, and
// audit configs.
func iamProjectPolicy() iamfake.Policy {
	return iamfake.Policy{
		Bindings: []iamfake.Binding{
			{Role: "roles/owner", Members: []string{"user:owner@example.com"}},
			{Role: iamRole, Members: []string{"user:alice@example.com", "group:team@example.com"}},
			{Role: iamRole, Members: []string{"user:temp@example.com"}, Condition: &iamfake.Expr{
				Expression: "request.time < timestamp('2030-01-01T00:00:00Z')", Title: "until 2030",
				Description: "temporary <access> & more", Location: "policy.yaml:12"}},
			{Role: "projects/p-123/roles/custom.reader", Members: []string{"serviceAccount:bot@p-123.iam.gserviceaccount.com"}},
			{Role: iamRole, Members: []string{"user:bob@example.com", "user:alice@example.com"}},
			{Role: "roles/editor", Members: []string{"domain:example.com"}, Condition: &iamfake.Expr{Expression: "true", Title: "always"}},
		},
		AuditConfigs: []iamfake.AuditConfig{
			{Service: "allServices", AuditLogConfigs: []iamfake.AuditLogConfig{
				{LogType: "DATA_READ", ExemptedMembers: []string{"user:auditor@example.com"}}, {LogType: "ADMIN_READ"}}},
			{Service: "storage.googleapis.com", AuditLogConfigs: []iamfake.AuditLogConfig{{LogType: "DATA_WRITE"}}},
		},
	}
}

// iamBucketPolicy is a bucket policy around the role, with Cloud
// Storage's legacy bindings and a conditional binding of the role.
func iamBucketPolicy() iamfake.Policy {
	return iamfake.Policy{Bindings: []iamfake.Binding{
		{Role: "roles/storage.legacyBucketOwner", Members: []string{"projectEditor:p-123", "projectOwner:p-123"}},
		{Role: iamRole, Members: []string{"user:alice@example.com"}},
		{Role: iamRole, Members: []string{"group:temp@example.com"}, Condition: &iamfake.Expr{
			Title: "prefix", Expression: `resource.name.startsWith("projects/_/buckets/lists-bucket/objects/public/")`}},
		{Role: "roles/storage.legacyBucketReader", Members: []string{"projectViewer:p-123"}},
	}}
}
