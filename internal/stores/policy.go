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

package stores

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/netfence"
)

// Policy is what the operator lets one list do with credentials that are
// not the list's own. The caller decides it per list, from its flags and
// the list's kind; the zero Policy allows no ambient credentials and only
// Google's token endpoints. Options only reads it.
type Policy struct {
	// Ambient lets a list whose spec.auth names no Secret sign with the
	// operator's own identity: the AWS SDK's default credential chain
	// (IRSA, EKS Pod Identity, the environment), Google Application
	// Default Credentials (GKE Workload Identity) or Entra workload
	// identity. Default false: such a list fails with ErrAmbientNotAllowed
	// before any credential is loaded or fetched.
	Ambient bool

	// AmbientHosts are hosts that ambient credentials may be sent to
	// besides the provider's own endpoints (endpoints.go): host names,
	// matched exactly and case-insensitively (no wildcards), or IP
	// addresses, on any port and over http or https. Default none.
	AmbientHosts []string

	// GCPTokenURIs are token endpoints that the token_uri of a
	// service-account key from a Secret may name besides Google's
	// (GoogleTokenURIs), as absolute URLs compared exactly (scheme and host
	// case-insensitively). They are meant for tests and private
	// deployments. Default none.
	GCPTokenURIs []string

	// DialFence, when set, fences the connections of credential requests
	// whose endpoint a list's Secret chooses: the token_uri of a
	// service-account key. The operator's own ambient chains (the AWS
	// SDK's, GCP's metadata server, Entra) are not fenced: the provider's
	// metadata endpoint, which the fence refuses, is where they must go,
	// and no tenant chooses their endpoints. The list's own requests are
	// fenced by the etagclient's WithDialFence. Default: none.
	DialFence *netfence.Fence
}

// Validate reports an entry of p that could never match: an AmbientHosts
// entry that is not a bare host name or IP address, or a GCPTokenURIs
// entry that is not an absolute http or https URL without user info, query
// or fragment.
func (p Policy) Validate() error {
	var errs []error
	for _, h := range p.AmbientHosts {
		if !validHost(h) {
			errs = append(errs, fmt.Errorf("ambient host %q is not a host name or an IP address", h))
		}
	}
	for _, u := range p.GCPTokenURIs {
		if _, ok := tokenURIKey(u); !ok {
			errs = append(errs, fmt.Errorf("GCP token URI %q is not an absolute http or https URL without user info, query or fragment", u))
		}
	}
	return errors.Join(errs...)
}

// ambientTo reports whether ambient credentials may go to u: a host of
// p.AmbientHosts over any scheme, or, over https only, a host that
// endpoint (the provider's rule) accepts.
func (p Policy) ambientTo(u *url.URL, endpoint func(host string) bool) bool {
	host := normalHost(u.Hostname())
	if host == "" {
		return false
	}
	addr, isIP := parseIP(host)
	for _, h := range p.AmbientHosts {
		h = normalHost(h)
		if h == host {
			return true
		}
		if a, ok := parseIP(h); ok && isIP && a == addr {
			return true
		}
	}
	return strings.EqualFold(u.Scheme, "https") && !isIP && endpoint(host)
}

// hostName is a DNS name: dot-separated labels of letters, digits and
// inner hyphens (after normalHost, so lower case).
var hostName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$`)

// validHost reports whether h is a host name or an IP address.
func validHost(h string) bool {
	h = normalHost(h)
	if _, ok := parseIP(h); ok {
		return true
	}
	return len(h) <= 253 && hostName.MatchString(h)
}

// normalHost lower-cases a host name and drops the trailing dot of a fully
// qualified one; an IPv6 literal loses its brackets.
func normalHost(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	h = strings.TrimSuffix(h, ".")
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	return h
}

// parseIP parses an IP address, IPv4-mapped IPv6 addresses as IPv4.
func parseIP(h string) (netip.Addr, bool) {
	a, err := netip.ParseAddr(h)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

// ambientCheck decides whether a list that would sign with the operator's
// own identity may, and returns the check its signer makes of every
// request: refused (policy.Ambient false, or rawURL's host neither an
// endpoint of the provider nor an ambient host) is an ErrAmbientNotAllowed
// error, returned before anything is loaded. what names the identity
// ("spec.auth.aws without a Secret"), endpoints the provider's endpoints
// in words.
func ambientCheck(policy Policy, rawURL, what, endpoints string, endpoint func(host string) bool) (func(*url.URL) error, error) {
	policy.AmbientHosts = slices.Clone(policy.AmbientHosts) // the signer keeps it
	if !policy.Ambient {
		return nil, fmt.Errorf("%w: %s would sign with the operator's own identity, which this list may not use: give it a Secret", ErrAmbientNotAllowed, what)
	}
	check := func(u *url.URL) error {
		if policy.ambientTo(u, endpoint) {
			return nil
		}
		return fmt.Errorf("%w: %s signs with the operator's own identity, which goes only to %s and the hosts the operator adds, and %q is neither: give the list a Secret",
			ErrAmbientNotAllowed, what, endpoints, u.Host)
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: the list's URL cannot be parsed", ErrAmbientNotAllowed, what)
	}
	if err := check(u); err != nil {
		return nil, err
	}
	return check, nil
}

// ambientGate signs with the operator's own identity only the requests
// that check allows (their URL, as sent: a redirect is checked again), and
// refuses any other before a credential is loaded or fetched.
type ambientGate struct {
	check func(*url.URL) error
	next  etagclient.Signer
}

// Sign implements etagclient.Signer.
func (g *ambientGate) Sign(req *http.Request, body []byte) error {
	if err := g.check(req.URL); err != nil {
		return err
	}
	return g.next.Sign(req, body)
}
