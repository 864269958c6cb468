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

package wafv2

import (
	"context"
	"fmt"
	"net/url"

	"github.com/listkeeper/listkeeper/internal/backends/backend"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/stores"
)

// Kind is the kind of a list kept in an AWS WAF IP set.
type Kind struct{}

var (
	_ backend.Kind              = Kind{}
	_ etagclient.ItemNormalizer = Kind{}
)

// Name implements backend.Kind.
func (Kind) Name() string { return "wafv2" }

// BehindURL implements backend.Kind.
func (Kind) BehindURL() bool { return false }

// Matches implements backend.Kind: spec.wafv2.
func (Kind) Matches(l backend.List) bool { return l.Spec.WAFv2 != nil }

// Locate implements backend.Kind: the set is shown as
// wafv2://REGION/SCOPE/NAME/ID, and its requests go to spec.wafv2.endpoint
// or else the region's public endpoint.
func (Kind) Locate(l backend.List) backend.Location {
	w := l.Spec.WAFv2
	shown := fmt.Sprintf("wafv2://%s/%s/%s/%s", w.Region, w.Scope, w.Name, w.ID)
	endpoint := &url.URL{Scheme: "https", Host: "wafv2." + w.Region + ".amazonaws.com", Path: "/"}
	if w.Endpoint != "" {
		endpoint = backend.EndpointURL(w.Endpoint)
	}
	return backend.Location{Shown: shown, Client: shown, Document: stores.WAFv2Document(w), Endpoint: endpoint,
		Scope: backend.CanonicalPointer(l.Spec.ItemsPointer)}
}

// Build implements backend.Kind: the set's backend, signed with
// spec.auth.aws's identity.
func (Kind) Build(ctx context.Context, l backend.List, deps backend.Deps) (backend.Built, error) {
	spec := l.Spec
	if spec.Auth == nil || spec.Auth.AWS == nil {
		return backend.Built{}, backend.Invalid("spec.wafv2 needs spec.auth.aws")
	}
	factory, fp, err := stores.WAFv2Backend(ctx, spec.WAFv2, spec.Auth.AWS, deps.Secret, deps.Policy, spec.AllowInsecureHTTP)
	if err != nil {
		return backend.Built{}, err
	}
	return backend.Built{Options: []etagclient.Option{etagclient.WithBackend(factory)}, Fingerprint: fp}, nil
}

// NormalizeItem implements etagclient.ItemNormalizer: an IP address or
// CIDR block as an IP set keeps it ("10.0.0.1" is "10.0.0.1/32"), and any
// other ID as it is (the set refuses it, naming why).
func (Kind) NormalizeItem(id string) string {
	if cidr, err := stores.NormalizeCIDR(id); err == nil {
		return cidr
	}
	return id
}
