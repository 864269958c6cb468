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
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"go.uber.org/goleak"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	"google.golang.org/api/cloudresourcemanager/v3"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
	storage "google.golang.org/api/storage/v1"

	"github.com/listkeeper/listkeeper/internal/storetest/gcstoken"
	"github.com/listkeeper/listkeeper/internal/storetest/iamfake"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// cloudPlatform is the scope of IAM policy calls.
const cloudPlatform = "https://www.googleapis.com/auth/cloud-platform"

// env is a Server and a token endpoint on 127.0.0.1 for one test, and the
// Google client libraries' services talking to the Server with tokens
// from the endpoint.
type env struct {
	srv    *iamfake.Server
	tokens *gcstoken.Server
	crm    *cloudresourcemanager.Service
	gcs    *storage.Service
	client *http.Client // with a valid token source
}

func start(t *testing.T, opts ...iamfake.Option) *env {
	t.Helper()
	tokens, err := gcstoken.New()
	if err != nil {
		t.Fatal(err)
	}
	tokenSrv := httptest.NewServer(tokens)
	t.Cleanup(tokenSrv.Close)
	key, err := tokens.NewServiceAccountKey(tokenSrv.URL + gcstoken.TokenPath)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := iamfake.New(append([]iamfake.Option{iamfake.WithTokenCheck(tokens.Valid)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	t.Cleanup(srv.Close)

	ctx := clientContext(t)
	creds, err := google.CredentialsFromJSONWithType(ctx, key, google.ServiceAccount, cloudPlatform)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{srv: srv, tokens: tokens, client: oauthClient(t, creds.TokenSource)}
	e.crm, e.gcs = services(t, srv, e.client)
	return e
}

// oauthClient is an HTTP client that sends tokens from ts, over a
// transport of its own that is closed when the test ends.
func oauthClient(t *testing.T, ts oauth2.TokenSource) *http.Client {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: &oauth2.Transport{Source: ts, Base: tr}}
}

// services builds the two Google services against srv, as a caller with
// client does.
func services(t *testing.T, srv *iamfake.Server, client *http.Client) (*cloudresourcemanager.Service, *storage.Service) {
	t.Helper()
	crm, err := cloudresourcemanager.NewService(t.Context(), option.WithHTTPClient(client), option.WithEndpoint(srv.URL()+"/"))
	if err != nil {
		t.Fatal(err)
	}
	gcs, err := storage.NewService(t.Context(), option.WithHTTPClient(client), option.WithEndpoint(srv.URL()+"/storage/v1/"))
	if err != nil {
		t.Fatal(err)
	}
	return crm, gcs
}

// clientContext makes golang.org/x/oauth2 fetch tokens over a transport
// of its own, closed when the test ends.
func clientContext(t *testing.T) context.Context {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return context.WithValue(t.Context(), oauth2.HTTPClient, &http.Client{Transport: tr})
}

// seed sets resource's policy and fails the test if the Server refuses it.
func seed(t *testing.T, srv *iamfake.Server, resource string, p iamfake.Policy) string {
	t.Helper()
	etag, err := srv.SetPolicy(resource, p)
	if err != nil {
		t.Fatal(err)
	}
	return etag
}

// apiError returns err's *googleapi.Error, failing the test if there is
// none or its status is not code.
func apiError(t *testing.T, err error, code int) *googleapi.Error {
	t.Helper()
	ge, ok := errors.AsType[*googleapi.Error](err)
	if !ok {
		t.Fatalf("err = %v, want a *googleapi.Error with status %d", err, code)
	}
	if ge.Code != code {
		t.Fatalf("status = %d (%s), want %d", ge.Code, ge.Body, code)
	}
	return ge
}

// wantStatus fails the test unless err is a *googleapi.Error with status
// code.
func wantStatus(t *testing.T, err error, code int) {
	t.Helper()
	_ = apiError(t, err, code)
}

// projectPolicy is a project's policy with an owner, an unconditional
// viewer binding, a conditional viewer binding and audit configs.
func projectPolicy() iamfake.Policy {
	return iamfake.Policy{
		Bindings: []iamfake.Binding{
			{Role: "roles/owner", Members: []string{"user:owner@example.com"}},
			{Role: "roles/viewer", Members: []string{"user:alice@example.com", "group:team@example.com"}},
			{Role: "roles/viewer", Members: []string{"user:temp@example.com"}, Condition: &iamfake.Expr{
				Expression: "request.time < timestamp('2030-01-01T00:00:00Z')", Title: "until 2030",
				Description: "temporary <access> & more", Location: "policy.yaml:12"}},
		},
		AuditConfigs: []iamfake.AuditConfig{{Service: "allServices", AuditLogConfigs: []iamfake.AuditLogConfig{
			{LogType: "DATA_READ", ExemptedMembers: []string{"user:auditor@example.com"}},
			{LogType: "ADMIN_READ"},
		}}},
	}
}
