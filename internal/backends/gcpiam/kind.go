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

package gcpiam

import (
	"context"
	"net/url"
	"strings"

	"github.com/listkeeper/listkeeper/internal/backends/backend"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/stores"
)

// Kind is the kind of a list kept as the members of a role in a Google
// Cloud IAM policy.
type Kind struct{}

var _ backend.Kind = Kind{}

// Name implements backend.Kind.
func (Kind) Name() string { return "gcpiam" }

// BehindURL implements backend.Kind.
func (Kind) BehindURL() bool { return false }

// Matches implements backend.Kind: spec.gcpIAM.
func (Kind) Matches(l backend.List) bool { return l.Spec.GCPIAM != nil }

// Locate implements backend.Kind: the binding is shown as
// gcpiam://RESOURCE#ROLE, its requests go to spec.gcpIAM.endpoint or else
// the API that holds the resource's policy (Cloud Storage for a bucket,
// Resource Manager for the rest), and its claim is on the role: two roles
// of one policy are two lists.
func (Kind) Locate(l backend.List) backend.Location {
	g := l.Spec.GCPIAM
	res := strings.TrimPrefix(g.Resource, "//")
	shown := "gcpiam://" + res + "#" + g.Role
	host := "cloudresourcemanager.googleapis.com"
	if strings.HasPrefix(res, "storage.googleapis.com/") {
		host = "storage.googleapis.com"
	}
	endpoint := &url.URL{Scheme: "https", Host: host, Path: "/"}
	if g.Endpoint != "" {
		endpoint = backend.EndpointURL(g.Endpoint)
	}
	return backend.Location{Shown: shown, Client: shown, Document: stores.GCPIAMDocument(g), Endpoint: endpoint, Scope: g.Role}
}

// Build implements backend.Kind: the policy's backend, with
// spec.auth.gcp's tokens.
func (Kind) Build(ctx context.Context, l backend.List, deps backend.Deps) (backend.Built, error) {
	spec := l.Spec
	if spec.Auth == nil || spec.Auth.GCP == nil {
		return backend.Built{}, backend.Invalid("spec.gcpIAM needs spec.auth.gcp")
	}
	factory, fp, err := stores.GCPIAMBackend(ctx, spec.GCPIAM, spec.Auth.GCP, deps.Secret, deps.Policy, spec.AllowInsecureHTTP)
	if err != nil {
		return backend.Built{}, err
	}
	return backend.Built{Options: []etagclient.Option{etagclient.WithBackend(factory)}, Fingerprint: fp}, nil
}
