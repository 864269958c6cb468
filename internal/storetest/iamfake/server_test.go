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
	"errors"
	"slices"
	"testing"

	crm "google.golang.org/api/cloudresourcemanager/v3"
	"google.golang.org/api/googleapi"
	storage "google.golang.org/api/storage/v1"

	"github.com/listkeeper/listkeeper/internal/storetest/iamfake"
)

// TestDroppedConnections: DropConnection ends a call without an answer
// and without serving it; DropAnswer serves it first, so a setIamPolicy
// lands although its client saw no answer. Both APIs, through their
// libraries, see a request that got no answer (no *googleapi.Error), and
// the log records the request as dropped, with no status.
func TestDroppedConnections(t *testing.T) {
	const added = "serviceAccount:bot@p-123.iam.gserviceaccount.com"
	for _, tt := range []struct {
		name  string
		fault func() *iamfake.Error
		lands bool
	}{
		{"DropConnection", iamfake.DropConnection, false},
		{"DropAnswer", iamfake.DropAnswer, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := start(t)
			before := seed(t, e.srv, "projects/p", projectPolicy())
			seed(t, e.srv, bucket, bucketPolicy())
			p := getV3(t, e, "projects/p")
			b, err := e.gcs.Buckets.GetIamPolicy("lists-bucket").OptionsRequestedPolicyVersion(3).Do()
			if err != nil {
				t.Fatal(err)
			}
			p.Bindings[1].Members = append(p.Bindings[1].Members, added)
			b.Bindings[1].Members = append(b.Bindings[1].Members, added)
			e.srv.SetFaultHook(func(c iamfake.Call) *iamfake.Error {
				if c.Method == iamfake.MethodSet {
					return tt.fault()
				}
				return nil
			})

			_, crmErr := crmSet(e, "projects/p", &crm.SetIamPolicyRequest{Policy: p})
			_, gcsErr := e.gcs.Buckets.SetIamPolicy("lists-bucket", &storage.Policy{Version: 3, Bindings: b.Bindings, Etag: b.Etag}).Do()
			for api, err := range map[string]error{"Resource Manager": crmErr, "Cloud Storage": gcsErr} {
				if _, answered := errors.AsType[*googleapi.Error](err); err == nil || answered {
					t.Errorf("%s: err = %v, want a request that got no answer", api, err)
				}
			}

			e.srv.SetFaultHook(nil)
			got := getV3(t, e, "projects/p")
			if landed := got.Etag != before; landed != tt.lands {
				t.Errorf("Resource Manager: the write landed = %v, want %v", landed, tt.lands)
			}
			if landed := slices.Contains(got.Bindings[1].Members, added); landed != tt.lands {
				t.Errorf("Resource Manager: the member was added = %v, want %v", landed, tt.lands)
			}
			gb, err := e.gcs.Buckets.GetIamPolicy("lists-bucket").OptionsRequestedPolicyVersion(3).Do()
			if err != nil {
				t.Fatal(err)
			}
			if landed := slices.Contains(gb.Bindings[1].Members, added); landed != tt.lands {
				t.Errorf("Cloud Storage: the member was added = %v, want %v", landed, tt.lands)
			}
			want := int64(0)
			if tt.lands {
				want = 2
			}
			if c := e.srv.Commits(); c != want {
				t.Errorf("%d commits, want %d", c, want)
			}

			var dropped int
			for _, rec := range e.srv.Requests() {
				if rec.Dropped {
					dropped++
					if rec.Method != iamfake.MethodSet || rec.Status != 0 || rec.Word != "" {
						t.Errorf("dropped record = %+v, want a setIamPolicy without status or word", rec)
					}
				}
			}
			if dropped != 2 {
				t.Errorf("%d dropped requests in the log, want 2", dropped)
			}
			if n := e.srv.Stats().Count(iamfake.MethodSet, 0); n != 2 {
				t.Errorf("Stats counted %d setIamPolicy without an answer, want 2", n)
			}
		})
	}
}
