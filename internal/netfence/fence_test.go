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

package netfence

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

func TestParseAllowlist(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Entry
	}{
		{"lists.example.com", Entry{Pattern: "lists.example.com"}},
		{"*.Lists.Example.com.", Entry{Pattern: "*.lists.example.com"}},
		{"*.lists.example.com:443", Entry{Pattern: "*.lists.example.com", Port: 443}},
		{"10.20.0.0/16", Entry{Prefix: netip.MustParsePrefix("10.20.0.0/16")}},
		{"10.20.0.0/16:8443", Entry{Prefix: netip.MustParsePrefix("10.20.0.0/16"), Port: 8443}},
		{"127.0.0.1", Entry{Prefix: netip.MustParsePrefix("127.0.0.1/32")}},
		{"127.0.0.1:80", Entry{Prefix: netip.MustParsePrefix("127.0.0.1/32"), Port: 80}},
		{"fd00::/8", Entry{Prefix: netip.MustParsePrefix("fd00::/8")}},
		{"[fd00::/8]:443", Entry{Prefix: netip.MustParsePrefix("fd00::/8"), Port: 443}},
		{"[2001:db8::7]:443", Entry{Prefix: netip.MustParsePrefix("2001:db8::7/128"), Port: 443}},
		{"::1", Entry{Prefix: netip.MustParsePrefix("::1/128")}},
		{"::ffff:127.0.0.0/104", Entry{Prefix: netip.MustParsePrefix("127.0.0.0/8")}},
	} {
		t.Run(tc.in, func(t *testing.T) {
			a, err := ParseAllowlist([]string{tc.in})
			if err != nil {
				t.Fatal(err)
			}
			got := a.Entries()[0]
			got.Raw = ""
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestParseAllowlistRejects(t *testing.T) {
	for _, in := range []string{
		"", " ", "a.example.com:", "a.example.com:0", "a.example.com:65536", "a.example.com:http",
		"a.example.com:080", "10.0.0.1/8", "10.0.0.0/33", "[fd00::/8", "[fd00::/8]443", "[10.0.0.0/8]:443",
		"fd00::/8:443", "a b.example.com", "a/b", "[a-", "2852039166", "0x7f.1", "user@host", "http://a.example.com",
		"fe80::1%eth0",
	} {
		if _, err := ParseAllowlist([]string{in}); err == nil {
			t.Errorf("ParseAllowlist(%q) accepted it", in)
		} else if in != "" && !strings.Contains(err.Error(), fmt.Sprintf("%q", in)) {
			t.Errorf("ParseAllowlist(%q): %v does not name the entry", in, err)
		}
	}
}

func TestAllowsURL(t *testing.T) {
	a := MustParseAllowlist("*.lists.example.com:443", "plain.example.com", "10.20.0.0/16", "[fd00::/8]:8443", "127.0.0.1:80")
	for _, tc := range []struct {
		url  string
		want bool
	}{
		{"https://a.lists.example.com/x", true},
		{"https://a.lists.example.com:443/x", true},
		{"http://a.lists.example.com/x", false},
		{"https://a.lists.example.com:8443/x", false},
		{"http://plain.example.com:1234/", true},
		{"http://PLAIN.example.com./", true},
		{"http://10.20.3.4:9999/", true},
		{"http://10.21.3.4/", false},
		{"https://[fd00::1]:8443/", true},
		{"https://[fd00::1]/", false},
		{"http://127.0.0.1/", true},
		{"http://127.0.0.1:81/", false},
		{"http://[::ffff:10.20.0.1]/", true},
		{"http://other.example.com/", false},
	} {
		u, err := url.Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.AllowsURL(u); got != tc.want {
			t.Errorf("AllowsURL(%s) = %t, want %t", tc.url, got, tc.want)
		}
	}
	if u, _ := url.Parse("http://169.254.169.254/"); !(*Allowlist)(nil).AllowsURL(u) {
		t.Error("an empty allowlist refused a URL by name")
	}
}

func TestCheck(t *testing.T) {
	apiServer := "10.96.0.1"
	mk := func(allow ...string) *Fence {
		f, err := New(context.Background(), Options{Allow: MustParseAllowlist(allow...), APIServerHosts: []string{apiServer, "[2001:db8::1]:6443"}})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	none := mk()
	for _, tc := range []struct {
		name  string
		f     *Fence
		host  string
		port  int
		ip    string
		allow bool
	}{
		{"public", none, "lists.example.com", 443, "203.0.113.7", true},
		{"metadata", none, "169.254.169.254", 80, "169.254.169.254", false},
		{"link-local", none, "x", 80, "169.254.1.1", false},
		{"link-local v6", none, "x", 80, "fe80::1", false},
		{"link-local v6 zoned", none, "x", 80, "fe80::1%eth0", false},
		{"aws v6 metadata", none, "x", 80, "fd00:ec2::254", false},
		{"alibaba metadata", none, "x", 80, "100.100.100.200", false},
		{"loopback", none, "localhost", 80, "127.0.0.1", false},
		{"loopback high", none, "x", 80, "127.255.0.9", false},
		{"loopback v6", none, "x", 80, "::1", false},
		{"unspecified", none, "x", 80, "0.0.0.0", false},
		{"unspecified v6", none, "x", 80, "::", false},
		{"mapped metadata", none, "x", 80, "::ffff:169.254.169.254", false},
		{"mapped loopback", none, "x", 80, "::ffff:127.0.0.1", false},
		{"api server", none, "kubernetes.default.svc", 443, apiServer, false},
		{"api server v6", none, "x", 443, "2001:db8::1", false},
		{"private is not refused", none, "x", 80, "10.1.2.3", true},
		{"loopback allowed by range", mk("127.0.0.0/8"), "127.0.0.1", 8080, "127.0.0.1", true},
		{"range port", mk("127.0.0.0/8:8080"), "127.0.0.1", 8081, "127.0.0.1", false},
		{"name to loopback refused", mk("localhost"), "localhost", 80, "127.0.0.1", false},
		{"name to loopback lifted by range", mk("localhost", "127.0.0.0/8"), "localhost", 80, "127.0.0.1", true},
		{"name to public", mk("*.example.com"), "a.example.com", 80, "203.0.113.7", true},
		{"name not listed", mk("*.example.com"), "a.example.org", 80, "203.0.113.7", false},
		{"name port", mk("*.example.com:443"), "a.example.com", 80, "203.0.113.7", false},
		{"range entry, address outside", mk("10.20.0.0/16"), "10.20.0.1", 80, "10.30.0.1", false},
		{"metadata lifted", mk("169.254.169.254/32"), "169.254.169.254", 80, "169.254.169.254", true},
		{"api server lifted by range", mk("10.96.0.0/12"), "10.96.0.1", 443, apiServer, true},
		{"api server by name with a range elsewhere", mk("kubernetes.default.svc", "10.20.0.0/16"), "kubernetes.default.svc", 443, apiServer, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.f.Check(tc.host, tc.port, netip.MustParseAddr(tc.ip))
			if (err == nil) != tc.allow {
				t.Fatalf("Check(%s, %d, %s) = %v, want allowed %t", tc.host, tc.port, tc.ip, err, tc.allow)
			}
			if err != nil {
				if !errors.Is(err, ErrNotAllowed) {
					t.Errorf("%v is not ErrNotAllowed", err)
				}
				if strings.Contains(err.Error(), tc.ip) {
					t.Errorf("the refusal %q names the address", err)
				}
			}
		})
	}
}

func TestOddIPv4Spellings(t *testing.T) {
	f, _ := New(context.Background(), Options{})
	for _, h := range []string{"2852039166", "0x7f.1", "0x7f000001", "0177.0.0.1", "127.1", "0xa9.0xfe.0xa9.0xfe", "017700000001"} {
		if err := f.CheckHost(h); !errors.Is(err, ErrNotAllowed) {
			t.Errorf("CheckHost(%q) = %v, want ErrNotAllowed", h, err)
		}
	}
	for _, h := range []string{"203.0.113.7", "a1.example.com", "0a.example.com", "example"} {
		if err := f.CheckHost(h); err != nil {
			t.Errorf("CheckHost(%q) = %v", h, err)
		}
	}
}

// fakeResolver answers names from a map.
type fakeResolver map[string][]string

func (r fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	var out []netip.Addr
	for _, s := range r[host] {
		out = append(out, netip.MustParseAddr(s))
	}
	if len(out) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return out, nil
}

// server is a test server on loopback that counts its requests.
func server(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func client(t *testing.T, o Options) *http.Client {
	f, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.Proxy = nil
	t.Cleanup(base.CloseIdleConnections)
	return &http.Client{Transport: f.Transport(base)}
}

// get GETs url with c, for a test that wants only the error.
func get(c *http.Client, url string) error {
	resp, err := c.Get(url)
	if err == nil {
		_ = resp.Body.Close()
	}
	return err
}

func TestTransportRefusesLoopbackUnlessAllowed(t *testing.T) {
	srv, hits := server(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	err := get(client(t, Options{}), srv.URL)
	if !errors.Is(err, ErrNotAllowed) {
		t.Fatalf("GET %s without an allowance: %v, want ErrNotAllowed", srv.URL, err)
	}
	if hits.Load() != 0 {
		t.Fatalf("the server got %d requests", hits.Load())
	}
	resp, err := client(t, Options{Allow: MustParseAllowlist("127.0.0.0/8")}).Get(srv.URL)
	if err != nil {
		t.Fatalf("GET with 127.0.0.0/8 allowed: %v", err)
	}
	_ = resp.Body.Close()
	if hits.Load() != 1 {
		t.Fatalf("the server got %d requests, want 1", hits.Load())
	}
}

func TestTransportResolvesNamesItself(t *testing.T) {
	srv, hits := server(t, func(w http.ResponseWriter, _ *http.Request) {})
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	res := fakeResolver{"lists.test": {"127.0.0.1"}, "metadata.test": {"169.254.169.254"}, "mixed.test": {"169.254.169.254", "127.0.0.1"}}
	c := client(t, Options{Allow: MustParseAllowlist("*.test", "127.0.0.0/8"), Resolver: res})
	resp, err := c.Get("http://lists.test:" + port + "/")
	if err != nil {
		t.Fatalf("a name resolving to an allowed address: %v", err)
	}
	_ = resp.Body.Close()
	// A name to a refused address: refused, whatever the allowance of
	// the name.
	if err := get(c, "http://metadata.test:"+port+"/"); !errors.Is(err, ErrNotAllowed) || strings.Contains(err.Error(), "169.254") {
		t.Fatalf("a name resolving to the metadata address: %v", err)
	}
	// Of a name's addresses, only the allowed ones are dialed.
	resp, err = c.Get("http://mixed.test:" + port + "/")
	if err != nil {
		t.Fatalf("a name with an allowed address among refused ones: %v", err)
	}
	_ = resp.Body.Close()
	if hits.Load() != 2 {
		t.Fatalf("the server got %d requests, want 2", hits.Load())
	}
}

func TestTransportRefusesRedirectToDeniedAddress(t *testing.T) {
	var denied atomic.Int64
	res := fakeResolver{"inside.test": {"127.0.0.2"}}
	inside, _ := server(t, func(http.ResponseWriter, *http.Request) { denied.Add(1) })
	_, insidePort, _ := net.SplitHostPort(inside.Listener.Addr().String())
	srv, hits := server(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://inside.test:"+insidePort+"/", http.StatusFound)
	})
	// 127.0.0.1 is allowed, 127.0.0.2 (where inside.test resolves) is
	// not; a plain client follows every redirect, and each is a dial.
	c := client(t, Options{Allow: MustParseAllowlist("127.0.0.1/32", "*.test"), Resolver: res})
	err := get(c, srv.URL)
	if !errors.Is(err, ErrNotAllowed) {
		t.Fatalf("a redirect to a refused address: %v, want ErrNotAllowed", err)
	}
	if hits.Load() != 1 || denied.Load() != 0 {
		t.Fatalf("allowed server %d requests (want 1), refused one %d (want 0)", hits.Load(), denied.Load())
	}
}

func TestTransportThroughProxyChecksTarget(t *testing.T) {
	proxy, proxied := server(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "via proxy") })
	pu, _ := url.Parse(proxy.URL)
	f, err := New(context.Background(), Options{Resolver: fakeResolver{"lists.test": {"203.0.113.7"}}})
	if err != nil {
		t.Fatal(err)
	}
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.Proxy = http.ProxyURL(pu)
	t.Cleanup(base.CloseIdleConnections)
	c := &http.Client{Transport: f.Transport(base)}
	// The proxy is on loopback, which the fence refuses for lists, but
	// it is the administrator's: its connection is let through.
	resp, err := c.Get("http://lists.test/doc.json")
	if err != nil {
		t.Fatalf("GET through the proxy: %v", err)
	}
	_ = resp.Body.Close()
	// The target's own addresses are checked before the request.
	for _, target := range []string{"http://169.254.169.254/latest/meta-data/", "http://2852039166/"} {
		if err := get(c, target); !errors.Is(err, ErrNotAllowed) {
			t.Errorf("GET %s through the proxy: %v, want ErrNotAllowed", target, err)
		}
	}
	if proxied.Load() != 1 {
		t.Fatalf("the proxy got %d requests, want 1", proxied.Load())
	}
}

func TestRoundTripperChecksTarget(t *testing.T) {
	f, _ := New(context.Background(), Options{})
	var sent atomic.Int64
	rt := f.RoundTripper(roundTripFunc(func(*http.Request) (*http.Response, error) {
		sent.Add(1)
		return nil, errors.New("sent")
	}))
	c := &http.Client{Transport: rt}
	if err := get(c, "http://[::ffff:169.254.169.254]/"); !errors.Is(err, ErrNotAllowed) {
		t.Fatalf("got %v, want ErrNotAllowed", err)
	}
	if sent.Load() != 0 {
		t.Fatal("the request was sent")
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestAPIServerHostsResolved: an API server host that is a name (a
// kubeconfig's server) is resolved once by New, and its addresses are
// refused like the metadata addresses; one that does not resolve is
// reported and skipped, and the Fence works without it.
func TestAPIServerHostsResolved(t *testing.T) {
	res := fakeResolver{"api.cluster.test": {"10.0.0.10", "fd00::10"}}
	f, err := New(context.Background(), Options{Resolver: res, APIServerHosts: []string{"api.cluster.test:6443", "gone.cluster.test"}})
	if err == nil || !strings.Contains(err.Error(), "gone.cluster.test") {
		t.Errorf("New: %v, want the name that did not resolve reported", err)
	}
	for _, ip := range []string{"10.0.0.10", "fd00::10", "::ffff:10.0.0.10"} {
		if err := f.Check("kubernetes.default.svc", 443, netip.MustParseAddr(ip)); !errors.Is(err, ErrNotAllowed) {
			t.Errorf("Check(%s) = %v, want ErrNotAllowed", ip, err)
		}
	}
	if err := f.Check("x", 443, netip.MustParseAddr("10.0.0.11")); err != nil {
		t.Errorf("Check(10.0.0.11) = %v, want allowed", err)
	}
}
