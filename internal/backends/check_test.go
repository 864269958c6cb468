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
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/backends/backend"
	"github.com/listkeeper/listkeeper/internal/netfence"
)

// atURL is the list behind raw (spec.url), with the spec that mutate
// makes.
func atURL(raw string, mutate ...func(*v1alpha1.ExternalListSpec)) backend.List {
	spec := &v1alpha1.ExternalListSpec{URL: raw}
	for _, m := range mutate {
		m(spec)
	}
	return backend.List{Spec: spec, RawURL: raw, URL: backend.ParseURL(raw)}
}

// TestHostAllowed: the operator's --allowed-hosts admit a list's endpoint
// by host name, wildcard subdomain, port and address range, and refuse
// every other with HostNotAllowed.
func TestHostAllowed(t *testing.T) {
	tests := []struct {
		name     string
		url      string
		patterns []string
		want     bool
	}{
		{name: "no patterns allow all", url: "https://anything.example.com/l", want: true},
		{name: "exact host", url: "https://lists.example.com/l", patterns: []string{"lists.example.com"}, want: true},
		{name: "exact host, URL with port", url: "https://lists.example.com:8443/l", patterns: []string{"lists.example.com"}, want: true},
		{name: "host:port pattern", url: "http://127.0.0.1:8080/l", patterns: []string{"127.0.0.1:8080"}, want: true},
		{name: "host:port pattern, other port", url: "http://127.0.0.1:9090/l", patterns: []string{"127.0.0.1:8080"}, want: false},
		{name: "wildcard subdomain", url: "https://a.lists.example.com/l", patterns: []string{"*.lists.example.com"}, want: true},
		{name: "wildcard does not match the apex", url: "https://lists.example.com/l", patterns: []string{"*.lists.example.com"}, want: false},
		{name: "wildcard does not cross into a suffix", url: "https://a.lists.example.com.evil.io/l", patterns: []string{"*.lists.example.com"}, want: false},
		{name: "other host", url: "https://evil.example.org/l", patterns: []string{"lists.example.com"}, want: false},
		{name: "second pattern matches", url: "https://b.example.net/l", patterns: []string{"a.example.net", "b.example.net"}, want: true},
		{name: "userinfo is not the host", url: "https://lists.example.com@evil.io/l", patterns: []string{"lists.example.com"}, want: false},
		{name: "IPv6 literal", url: "http://[::1]:8080/l", patterns: []string{"::1"}, want: true},
		{name: "pattern with port", url: "https://a.lists.example.com/l", patterns: []string{"*.lists.example.com:443"}, want: true},
		{name: "pattern with port, other port", url: "https://a.lists.example.com:8443/l", patterns: []string{"*.lists.example.com:443"}, want: false},
		{name: "CIDR", url: "http://10.20.1.2:8080/l", patterns: []string{"10.20.0.0/16"}, want: true},
		{name: "CIDR, address outside", url: "http://10.21.1.2/l", patterns: []string{"10.20.0.0/16"}, want: false},
		{name: "CIDR does not match a name", url: "http://lists.example.com/l", patterns: []string{"10.20.0.0/16"}, want: false},
		{name: "IPv6 CIDR with port", url: "https://[fd00::5]/l", patterns: []string{"[fd00::/8]:443"}, want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := atURL(tc.url)
			k := For(l)
			err := Check(k, l, k.Locate(l), netfence.MustParseAllowlist(tc.patterns...))
			var refusal *backend.Refusal
			switch got := err == nil; {
			case got != tc.want:
				t.Errorf("Check(%s, %v) = %v, want allowed %t", tc.url, tc.patterns, err, tc.want)
			case !got && (!errors.As(err, &refusal) || refusal.Reason != v1alpha1.ReasonHostNotAllowed):
				t.Errorf("Check(%s, %v) = %#v, want HostNotAllowed", tc.url, tc.patterns, err)
			}
		})
	}
}

// TestCheckRefuses: every kind's endpoint passes the same checks, and a
// refusal names what is wrong without the URL.
func TestCheckRefuses(t *testing.T) {
	t.Parallel()
	fromSecret := func(s *v1alpha1.ExternalListSpec) {
		s.URL = ""
		s.URLFrom = &v1alpha1.URLSource{SecretKeyRef: v1alpha1.SecretKeySelector{Name: "list-url", Key: "url"}}
	}
	waf := func(endpoint string, allow bool) backend.List {
		return backend.List{Spec: &v1alpha1.ExternalListSpec{
			WAFv2:             &v1alpha1.WAFv2IPSet{Region: "us-east-1", Scope: v1alpha1.WAFv2ScopeRegional, Name: "allow", ID: "x", Endpoint: endpoint},
			Auth:              &v1alpha1.StoreAuth{AWS: &v1alpha1.AWSAuth{Region: "us-east-1"}},
			AllowInsecureHTTP: allow,
		}}
	}
	tests := []struct {
		name   string
		l      backend.List
		reason string // "" = allowed
		msg    string
	}{
		{name: "spec.url not http", l: atURL("ftp://lists.example.com/a"), reason: v1alpha1.ReasonInvalidSpec, msg: "spec.url must be an absolute http or https URL"},
		{name: "URL from a Secret without a host", l: atURL("https:///a?sig=secret", fromSecret), reason: v1alpha1.ReasonInvalidSpec,
			msg: `the URL in secret "list-url" key "url" must be an absolute http or https URL`},
		{name: "an IP set's endpoint not http", l: waf("ftp://wafv2.example.com", false), reason: v1alpha1.ReasonInvalidSpec, msg: "the list's endpoint must be an absolute http or https URL"},
		{name: "an IP set's endpoint unparsable", l: waf("http://[::1", false), reason: v1alpha1.ReasonInvalidSpec, msg: "the list's endpoint must be"},
		{name: "an IP set over plain http", l: waf("http://127.0.0.1:8081", false), reason: v1alpha1.ReasonInsecureTransport, msg: "store credentials (spec.auth) over plain http: use an https endpoint"},
		{name: "an IP set over plain http, allowed", l: waf("http://127.0.0.1:8081", true)},
		{name: "an IP set at its region's endpoint", l: waf("", false)},
		{name: "a plain document over http", l: atURL("http://lists.example.com/a")},
		{name: "a URL from a Secret over http", l: atURL("http://lists.example.com/a?sig=secret", fromSecret), reason: v1alpha1.ReasonInsecureTransport,
			msg: "a URL from a Secret (spec.urlFrom) over plain http: use an https URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := For(tt.l)
			err := Check(k, tt.l, k.Locate(tt.l), nil)
			if tt.reason == "" {
				if err != nil {
					t.Fatalf("want allowed, got %v", err)
				}
				return
			}
			var refusal *backend.Refusal
			if !errors.As(err, &refusal) || refusal.Reason != tt.reason || !strings.Contains(refusal.Msg, tt.msg) {
				t.Fatalf("got %#v, want %s saying %q", err, tt.reason, tt.msg)
			}
			if strings.Contains(err.Error(), "secret?") || strings.Contains(err.Error(), "sig=") || strings.Contains(err.Error(), "127.0.0.1") {
				t.Errorf("the message shows the URL: %v", err)
			}
		})
	}
}

// TestCheckTransport: secrets (headers, store credentials, a URL from a
// Secret) never go over plain http unless the list opts in, and the
// refusal names what would have been sent, never the URL.
func TestCheckTransport(t *testing.T) {
	t.Parallel()
	headers := func(s *v1alpha1.ExternalListSpec) {
		s.HeadersFrom = &v1alpha1.HeadersSource{SecretRef: v1alpha1.SecretReference{Name: "h"}}
	}
	adc := func(s *v1alpha1.ExternalListSpec) { s.Auth = &v1alpha1.StoreAuth{GCP: &v1alpha1.GCPAuth{}} }
	fromSecret := func(s *v1alpha1.ExternalListSpec) {
		s.URL = ""
		s.URLFrom = &v1alpha1.URLSource{SecretKeyRef: v1alpha1.SecretKeySelector{Name: "u", Key: "url"}}
	}
	allow := func(s *v1alpha1.ExternalListSpec) { s.AllowInsecureHTTP = true }
	tests := []struct {
		name   string
		url    string
		mutate []func(*v1alpha1.ExternalListSpec)
		want   string // a fragment of the message; "" = allowed
	}{
		{name: "plain http without secrets", url: "http://lists.example.com/a"},
		{name: "https with headers", url: "https://lists.example.com/a", mutate: []func(*v1alpha1.ExternalListSpec){headers}},
		{name: "http with headers", url: "http://lists.example.com/a", mutate: []func(*v1alpha1.ExternalListSpec){headers}, want: "spec.headersFrom"},
		{name: "HTTP in capitals with headers", url: "HTTP://lists.example.com/a", mutate: []func(*v1alpha1.ExternalListSpec){headers}, want: "spec.headersFrom"},
		{name: "http with default credentials", url: "http://lists.example.com/a", mutate: []func(*v1alpha1.ExternalListSpec){adc}, want: "spec.auth"},
		{name: "http URL from a Secret", url: "http://lists.example.com/a?sig=x", mutate: []func(*v1alpha1.ExternalListSpec){fromSecret}, want: "spec.urlFrom"},
		{name: "https URL from a Secret", url: "https://lists.example.com/a?sig=x", mutate: []func(*v1alpha1.ExternalListSpec){fromSecret}},
		{name: "all of them", url: "http://lists.example.com/a", mutate: []func(*v1alpha1.ExternalListSpec){fromSecret, headers, adc}, want: "spec.headersFrom) and store credentials (spec.auth) and a URL"},
		{name: "opted in", url: "http://lists.example.com/a", mutate: []func(*v1alpha1.ExternalListSpec){fromSecret, headers, adc, allow}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := atURL(tt.url, tt.mutate...)
			u, err := url.Parse(tt.url)
			if err != nil {
				t.Fatal(err)
			}
			err = CheckTransport(For(l), l.Spec, u)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("want allowed, got %v", err)
				}
				return
			}
			var refusal *backend.Refusal
			if !errors.As(err, &refusal) || refusal.Reason != v1alpha1.ReasonInsecureTransport || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("want InsecureTransport naming %q, got %v", tt.want, err)
			}
			if strings.Contains(err.Error(), "sig=") || strings.Contains(err.Error(), "lists.example.com") {
				t.Errorf("the message prints the URL: %v", err)
			}
		})
	}
}
