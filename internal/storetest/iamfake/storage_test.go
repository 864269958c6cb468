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
	"testing"

	storage "google.golang.org/api/storage/v1"

	"github.com/listkeeper/listkeeper/internal/storetest/iamfake"
)

const bucket = "projects/_/buckets/lists-bucket"

// bucketPolicy is a bucket's policy with Cloud Storage's legacy
// convenience bindings and a conditional one.
func bucketPolicy() iamfake.Policy {
	return iamfake.Policy{Bindings: []iamfake.Binding{
		{Role: "roles/storage.legacyBucketOwner", Members: []string{"projectEditor:p-123", "projectOwner:p-123"}},
		{Role: "roles/storage.objectViewer", Members: []string{"user:alice@example.com"}},
		{Role: "roles/storage.objectViewer", Members: []string{"group:temp@example.com"}, Condition: &iamfake.Expr{
			Title: "prefix", Expression: `resource.name.startsWith("projects/_/buckets/lists-bucket/objects/public/")`}},
	}}
}

// reason returns the errors[0].reason of a Cloud Storage error body.
func reason(t *testing.T, body string) string {
	t.Helper()
	var b struct {
		Error struct {
			Code   int `json:"code"`
			Errors []struct {
				Reason string `json:"reason"`
				Domain string `json:"domain"`
			} `json:"errors"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &b); err != nil || b.Error.Code == 0 || len(b.Error.Errors) != 1 || b.Error.Errors[0].Domain == "" {
		t.Fatalf("error body %q is not a Cloud Storage error (%v)", body, err)
	}
	return b.Error.Errors[0].Reason
}

// TestStorageRoundTrip reads and writes a bucket's policy through the
// Cloud Storage library (buckets.getIamPolicy with
// optionsRequestedPolicyVersion=3, buckets.setIamPolicy), in Cloud
// Storage's own shape (kind, resourceId).
func TestStorageRoundTrip(t *testing.T) {
	e := start(t)
	etag := seed(t, e.srv, bucket, bucketPolicy())
	p, err := e.gcs.Buckets.GetIamPolicy("lists-bucket").OptionsRequestedPolicyVersion(3).Do()
	if err != nil {
		t.Fatal(err)
	}
	if p.Etag != etag || p.Version != 3 || p.Kind != "storage#policy" || p.ResourceId != bucket || len(p.Bindings) != 3 {
		t.Fatalf("read %+v, want etag %q, version 3, kind storage#policy, resourceId %s, 3 bindings", p, etag, bucket)
	}
	wantJSON := `{"version":3,"kind":"storage#policy","resourceId":"` + bucket + `","bindings":[` +
		`{"role":"roles/storage.legacyBucketOwner","members":["projectEditor:p-123","projectOwner:p-123"]},` +
		`{"role":"roles/storage.objectViewer","members":["user:alice@example.com"]},` +
		`{"role":"roles/storage.objectViewer","members":["group:temp@example.com"],"condition":{"title":"prefix","expression":"resource.name.startsWith(\"projects/_/buckets/lists-bucket/objects/public/\")"}}],` +
		`"etag":"` + etag + `"}`
	if raw, _ := e.srv.PolicyJSON(bucket); string(raw) != wantJSON {
		t.Errorf("PolicyJSON:\n got %s\nwant %s", raw, wantJSON)
	}

	p.Bindings[1].Members = append(p.Bindings[1].Members, "user:bob@example.com")
	set, err := e.gcs.Buckets.SetIamPolicy("lists-bucket", p).Do()
	if err != nil {
		t.Fatalf("setIamPolicy: %v", err)
	}
	if set.Etag == etag {
		t.Error("the write kept the etag")
	}
	got, err := e.gcs.Buckets.GetIamPolicy("lists-bucket").OptionsRequestedPolicyVersion(3).Do()
	if err != nil {
		t.Fatal(err)
	}
	if got.Etag != set.Etag || !slices.Equal(got.Bindings[1].Members, p.Bindings[1].Members) || got.Bindings[2].Condition == nil {
		t.Errorf("after the write: %+v", got)
	}
}

// TestStorageStaleEtag: Cloud Storage answers a write with a stale etag
// 412 conditionNotMet.
func TestStorageStaleEtag(t *testing.T) {
	e := start(t)
	seed(t, e.srv, bucket, bucketPolicy())
	p, err := e.gcs.Buckets.GetIamPolicy("lists-bucket").OptionsRequestedPolicyVersion(3).Do()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.gcs.Buckets.SetIamPolicy("lists-bucket", p).Do(); err != nil {
		t.Fatal(err)
	}
	_, err = e.gcs.Buckets.SetIamPolicy("lists-bucket", p).Do()
	if got := reason(t, apiError(t, err, http.StatusPreconditionFailed).Body); got != "conditionNotMet" {
		t.Errorf("reason = %q, want conditionNotMet", got)
	}
}

// TestStorageRefusals: a bucket that does not exist is 404 notFound; a
// policy with conditions read as version 1, a condition in a version 1
// policy and a policy without bindings are 400.
func TestStorageRefusals(t *testing.T) {
	e := start(t)
	seed(t, e.srv, bucket, bucketPolicy())

	_, err := e.gcs.Buckets.GetIamPolicy("no-such-bucket").OptionsRequestedPolicyVersion(3).Do()
	if got := reason(t, apiError(t, err, http.StatusNotFound).Body); got != "notFound" {
		t.Errorf("missing bucket: reason %q", got)
	}
	_, err = e.gcs.Buckets.GetIamPolicy("lists-bucket").Do()
	wantStatus(t, err, http.StatusBadRequest)

	p, err := e.gcs.Buckets.GetIamPolicy("lists-bucket").OptionsRequestedPolicyVersion(3).Do()
	if err != nil {
		t.Fatal(err)
	}
	p.Version = 1
	_, err = e.gcs.Buckets.SetIamPolicy("lists-bucket", p).Do()
	wantStatus(t, err, http.StatusBadRequest)

	_, err = e.gcs.Buckets.SetIamPolicy("lists-bucket", &storage.Policy{Etag: p.Etag}).Do()
	if got := reason(t, apiError(t, err, http.StatusBadRequest).Body); got != "required" {
		t.Errorf("no bindings: reason %q, want required", got)
	}
	if st := e.srv.Stats(); st.Commits != 0 {
		t.Errorf("%d refused writes committed", st.Commits)
	}
}
