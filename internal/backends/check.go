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

package backends

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/backends/backend"
	"github.com/listkeeper/listkeeper/internal/netfence"
)

// Check refuses, with a backend.Refusal, a list of kind k located at loc
// that must not be reached: an endpoint that is not an absolute http or
// https URL (InvalidSpec), a host that allowed (the operator's
// --allowed-hosts; empty allows every host) does not list
// (HostNotAllowed), and secrets over plain http (InsecureTransport, see
// CheckTransport). It runs before any request, so nothing is sent; the
// endpoint is named by its host only.
func Check(k backend.Kind, l backend.List, loc backend.Location, allowed *netfence.Allowlist) error {
	if !backend.HTTPURL(loc.Endpoint) {
		what := "the list's endpoint"
		switch {
		case k.BehindURL() && l.Spec.URLFrom != nil:
			ref := l.Spec.URLFrom.SecretKeyRef
			what = fmt.Sprintf("the URL in secret %q key %q", ref.Name, ref.Key)
		case k.BehindURL():
			what = "spec.url"
		}
		return backend.Invalid(what + " must be an absolute http or https URL")
	}
	if !allowed.AllowsURL(loc.Endpoint) {
		return &backend.Refusal{Reason: v1alpha1.ReasonHostNotAllowed,
			Msg: fmt.Sprintf("host %q is not in the operator's --allowed-hosts", loc.Endpoint.Hostname())}
	}
	return CheckTransport(k, l.Spec, loc.Endpoint)
}

// CheckTransport refuses a list that would send secrets to u over plain
// http: Secret-sourced headers (headersFrom), store credentials (auth,
// including workload identity and default credentials, whose tokens are
// as secret) or a URL from a Secret (urlFrom, which usually carries a
// token) need https unless spec.allowInsecureHTTP is true; a kind not
// behind a URL always sends store credentials. The CRD refuses the cases
// it can see (spec.url with headersFrom or auth); this also covers a
// urlFrom that resolves to http, and objects stored before that rule. u is
// never printed.
func CheckTransport(k backend.Kind, spec *v1alpha1.ExternalListSpec, u *url.URL) error {
	if !strings.EqualFold(u.Scheme, "http") || spec.AllowInsecureHTTP {
		return nil
	}
	if !k.BehindURL() {
		return &backend.Refusal{Reason: v1alpha1.ReasonInsecureTransport, Msg: "the list would send store credentials (spec.auth) over plain http: use an https endpoint, or set spec.allowInsecureHTTP to true for a test or loopback server"}
	}
	var what []string
	if spec.HeadersFrom != nil {
		what = append(what, "headers from a Secret (spec.headersFrom)")
	}
	if spec.Auth != nil {
		what = append(what, "store credentials (spec.auth)")
	}
	if spec.URLFrom != nil {
		what = append(what, "a URL from a Secret (spec.urlFrom)")
	}
	if len(what) == 0 {
		return nil
	}
	return &backend.Refusal{Reason: v1alpha1.ReasonInsecureTransport, Msg: fmt.Sprintf(
		"the list would send %s over plain http: use an https URL, or set spec.allowInsecureHTTP to true for a test or loopback server",
		strings.Join(what, " and "))}
}
