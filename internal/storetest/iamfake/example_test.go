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
	"context"
	"fmt"
	"net/http"

	crm "google.golang.org/api/cloudresourcemanager/v3"
	"google.golang.org/api/option"

	"github.com/listkeeper/listkeeper/internal/storetest/iamfake"
)

// Example reads a project's policy with the Resource Manager client
// library, adds a principal to a role and writes it back, conditional on
// the etag it read.
func Example() {
	srv, err := iamfake.New() // any bearer token is accepted without WithTokenCheck
	if err != nil {
		panic(err)
	}
	srv.Start()
	defer srv.Close()
	if _, err := srv.SetPolicy("projects/demo", iamfake.Policy{Bindings: []iamfake.Binding{
		{Role: "roles/owner", Members: []string{"user:owner@example.com"}},
	}}); err != nil {
		panic(err)
	}

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: bearer{tr}}
	svc, err := crm.NewService(context.Background(), option.WithHTTPClient(client), option.WithEndpoint(srv.URL()+"/"))
	if err != nil {
		panic(err)
	}
	p, err := svc.Projects.GetIamPolicy("projects/demo", &crm.GetIamPolicyRequest{
		Options: &crm.GetPolicyOptions{RequestedPolicyVersion: 3}}).Do()
	if err != nil {
		panic(err)
	}
	p.Bindings = append(p.Bindings, &crm.Binding{Role: "roles/viewer", Members: []string{"group:readers@example.com"}})
	if _, err := svc.Projects.SetIamPolicy("projects/demo", &crm.SetIamPolicyRequest{Policy: p}).Do(); err != nil {
		panic(err)
	}
	stored, _ := srv.Policy("projects/demo")
	for _, b := range stored.Bindings {
		fmt.Println(b.Role, b.Members)
	}
	// Output:
	// roles/owner [user:owner@example.com]
	// roles/viewer [group:readers@example.com]
}

// bearer adds a fixed bearer token to each request.
type bearer struct{ next http.RoundTripper }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer example-token")
	return b.next.RoundTrip(r)
}
