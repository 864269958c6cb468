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

// Package netfence keeps the connections that a list's spec can steer out
// of the cluster's own network: it decides, when a connection is dialed and
// after DNS resolution, whether the operator may reach the address, so that
// a namespace user cannot point a list at the cloud's instance metadata
// service, at the node's loopback, or at the Kubernetes API server.
//
// A Fence refuses by default:
//
//   - link-local addresses, 169.254.0.0/16 (where AWS, GCP and Azure serve
//     instance metadata, at 169.254.169.254) and fe80::/10;
//   - the other cloud metadata addresses: fd00:ec2::254 (AWS over IPv6)
//     and 100.100.100.200 (Alibaba Cloud);
//   - loopback, 127.0.0.0/8 and ::1, and the unspecified addresses,
//     0.0.0.0/8 and ::, which reach the local host too;
//   - the addresses of the Kubernetes API server (Options.APIServerHosts);
//   - the IPv4-mapped IPv6 forms of all of these (::ffff:169.254.169.254),
//     and host names that are numeric IPv4 spellings other than a dotted
//     quad ("2852039166", "0x7f.1"), which C resolvers read as addresses.
//
// An administrator lifts a refusal with a range entry of --allowed-hosts
// (an Allowlist) that contains the address dialed: "127.0.0.0/8" lets the
// operator reach a list server on the node's loopback.
//
// When the Allowlist is not empty, a connection must also go to a host
// that an entry matches (by name pattern, or by an IP literal inside a
// range, and by port where the entry has one), and when every entry that
// matches is a range, the address dialed must be inside one of them: a
// name that matched a name pattern may resolve anywhere but to a refused
// address, a name that matched nothing is refused.
//
// Refusals are ErrNotAllowed, whose message names no address: a tenant
// must not learn what a name resolves to.
package netfence

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrNotAllowed is the class of every refusal of a Fence (errors.Is).
var ErrNotAllowed = errors.New("destination not allowed")

// NotAllowedMessage is the text of every refusal: it names no address, so
// that the condition and event that show it do not tell a tenant what its
// host resolves to.
const NotAllowedMessage = "the list's host resolves to an address the operator may not reach " +
	"(link-local, loopback, metadata or the Kubernetes API server), or is not in --allowed-hosts; " +
	"an administrator can allow it with --allowed-hosts"

// DeniedError is a refused connection. Its message is NotAllowedMessage;
// the host and address it was refused for are kept for the operator's own
// logs and tests, and never shown by Error.
type DeniedError struct {
	// Host is the host name or literal the connection was for.
	Host string
	// Addr is the refused address, invalid when the host itself was
	// refused (an odd numeric spelling, a name no entry matches).
	Addr netip.Addr
}

func (e *DeniedError) Error() string { return NotAllowedMessage }

// Is makes a DeniedError an ErrNotAllowed.
func (e *DeniedError) Is(target error) bool { return target == ErrNotAllowed }

// Resolver looks up the addresses of a host name; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Options configure New.
type Options struct {
	// Allow is the parsed --allowed-hosts; nil is empty.
	Allow *Allowlist
	// APIServerHosts are the hosts (names or IP literals, with or without
	// a port) of the Kubernetes API server: the host of the manager's
	// rest.Config and KUBERNETES_SERVICE_HOST. New resolves the names once;
	// their addresses are refused like the metadata addresses.
	APIServerHosts []string
	// Resolver resolves host names when dialing (and APIServerHosts in
	// New). Default: net.DefaultResolver. Tests inject a fake one.
	Resolver Resolver
	// Dialer makes the connections once the fence allowed them. Its
	// Control is chained after the fence's own check. Default: a
	// net.Dialer with http.DefaultTransport's timeouts.
	Dialer *net.Dialer
}

// Fence decides which addresses the operator may dial for a list (see the
// package documentation). It is safe for concurrent use; the zero Fence is
// not usable, use New.
type Fence struct {
	allow    *Allowlist
	denied   []netip.Prefix
	resolver Resolver
	dialer   *net.Dialer
}

// defaultDenied are the ranges refused unless a range entry allows them.
var defaultDenied = []netip.Prefix{
	netip.MustParsePrefix("169.254.0.0/16"),
	netip.MustParsePrefix("fe80::/10"),
	netip.MustParsePrefix("fd00:ec2::254/128"),
	netip.MustParsePrefix("100.100.100.200/32"),
	netip.MustParsePrefix("127.0.0.0/8"),
	netip.MustParsePrefix("::1/128"),
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("::/128"),
}

// DefaultDenied returns the ranges every Fence refuses by default, the
// API server's addresses aside.
func DefaultDenied() []netip.Prefix { return append([]netip.Prefix(nil), defaultDenied...) }

// New returns a Fence. It resolves the names of o.APIServerHosts under
// ctx; one that does not resolve is skipped and reported in the returned
// error, which is informational (the Fence is usable): the API server's
// service IP, KUBERNETES_SERVICE_HOST, is an IP literal in a cluster.
func New(ctx context.Context, o Options) (*Fence, error) {
	f := &Fence{allow: o.Allow, resolver: o.Resolver, dialer: o.Dialer,
		denied: append([]netip.Prefix(nil), defaultDenied...)}
	if f.resolver == nil {
		f.resolver = net.DefaultResolver
	}
	if f.dialer == nil {
		f.dialer = &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	}
	var errs []error
	for _, h := range o.APIServerHosts {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		if host, _, err := net.SplitHostPort(h); err == nil {
			h = host
		}
		if a, ok := parseLiteral(h); ok {
			f.denied = append(f.denied, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		addrs, err := f.resolver.LookupNetIP(lctx, "ip", h)
		cancel()
		if err != nil {
			errs = append(errs, fmt.Errorf("resolve the API server's host %q: %w", h, err))
			continue
		}
		for _, a := range addrs {
			a = a.WithZone("").Unmap()
			f.denied = append(f.denied, netip.PrefixFrom(a, a.BitLen()))
		}
	}
	return f, errors.Join(errs...)
}

// Allowlist returns the Fence's Allowlist (nil when empty).
func (f *Fence) Allowlist() *Allowlist { return f.allow }

// Check decides whether the fence lets a connection for host (the URL's
// host name or IP literal) on port go to ip. It returns nil or a
// *DeniedError.
func (f *Fence) Check(host string, port int, ip netip.Addr) error {
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	ip = ip.WithZone("").Unmap()
	deny := &DeniedError{Host: host, Addr: ip}
	if !ip.IsValid() {
		return deny
	}
	refusedByDefault := f.deniedByDefault(ip) && !f.allow.coveredByRange(ip, port)
	if f.allow.Empty() {
		if refusedByDefault {
			return deny
		}
		return nil
	}
	for _, e := range f.allow.matching(host, port) {
		if e.IsRange() {
			if e.Prefix.Contains(ip) {
				return nil
			}
			continue
		}
		if !refusedByDefault {
			return nil
		}
	}
	// An IP literal host that matched a range is inside it, so the
	// address dialed is too: only names get here with an address outside
	// every entry, or no entry matched the host at all.
	return deny
}

// CheckHost refuses a host before it is resolved: a numeric IPv4 spelling
// other than a dotted quad, which resolvers disagree on.
func (f *Fence) CheckHost(host string) error {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if oddIPv4(h) {
		return &DeniedError{Host: h}
	}
	return nil
}

func (f *Fence) deniedByDefault(ip netip.Addr) bool {
	for _, p := range f.denied {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// resolve returns the addresses of host (one for an IP literal), after
// CheckHost.
func (f *Fence) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if err := f.CheckHost(host); err != nil {
		return nil, err
	}
	if a, ok := parseLiteral(host); ok {
		return []netip.Addr{a}, nil
	}
	addrs, err := f.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, err
	}
	return addrs, nil
}

// CheckTarget resolves the host of u and checks every address it has
// against the fence: it is what the fence can check of a request that goes
// through a proxy, whose connection is the proxy's, and of a transport
// that is not an *http.Transport. The request is refused if any address
// is, since the fence does not dial and cannot pick the address used.
func (f *Fence) CheckTarget(ctx context.Context, u *url.URL) error {
	host := u.Hostname()
	port := urlPort(u)
	addrs, err := f.resolve(ctx, host)
	if err != nil {
		return err
	}
	if len(addrs) == 0 {
		return &DeniedError{Host: host}
	}
	for _, a := range addrs {
		if err := f.Check(host, port, a); err != nil {
			return err
		}
	}
	return nil
}

// DialContext dials address (host:port) on network after the fence's
// check: it resolves the host itself (with Options.Resolver), drops the
// addresses the fence refuses, and dials the others in turn, each as an
// IP literal, so that the address connected to is the one checked. The
// dialer's Control checks the connected address once more. When every
// address is refused, it returns a *DeniedError and dials nothing.
func (f *Fence) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, portStr, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return nil, &DeniedError{Host: host}
	}
	addrs, err := f.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	var allowed []netip.Addr
	var denied error
	for _, a := range addrs {
		if err := f.Check(host, port, a); err != nil {
			denied = err
			continue
		}
		allowed = append(allowed, a)
	}
	if len(allowed) == 0 {
		if denied == nil {
			denied = &DeniedError{Host: host}
		}
		return nil, denied
	}
	d := *f.dialer
	next := d.Control
	d.Control = func(network, addr string, c syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(addr)
		if err != nil {
			return &DeniedError{Host: host}
		}
		if err := f.Check(host, port, ap.Addr()); err != nil {
			return err
		}
		if next != nil {
			return next(network, addr, c)
		}
		return nil
	}
	var firstErr error
	for _, a := range allowed {
		conn, err := d.DialContext(ctx, network, netip.AddrPortFrom(a, uint16(port)).String())
		if err == nil {
			return conn, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, firstErr
}

// Transport returns a clone of base whose connections go through the
// fence: DialContext is the fence's (base's own DialContext, DialTLSContext
// and Dial are dropped: they would resolve names themselves). When base
// sends a request through a proxy (base.Proxy, http.ProxyFromEnvironment
// in a clone of http.DefaultTransport), the connection goes to the proxy,
// which the administrator configured and the fence lets through; the
// request's own host is checked before, every address it resolves to
// (CheckTarget). The proxy resolves it again, so a name whose addresses
// change between the two lookups is the proxy's to police.
func (f *Fence) Transport(base *http.Transport) *http.Transport {
	t := base.Clone()
	t.Dial = nil    //nolint:staticcheck // cleared so that it cannot bypass the fence
	t.DialTLS = nil //nolint:staticcheck // as above
	t.DialTLSContext = nil
	proxies := &sync.Map{} // "host:port" of the proxies base.Proxy named
	if proxy := base.Proxy; proxy != nil {
		t.Proxy = func(req *http.Request) (*url.URL, error) {
			pu, err := proxy(req)
			if err != nil || pu == nil {
				return pu, err
			}
			if err := f.CheckTarget(req.Context(), req.URL); err != nil {
				return nil, err
			}
			proxies.Store(canonicalAddr(pu), true)
			return pu, nil
		}
	}
	t.DialContext = func(ctx context.Context, network, address string) (net.Conn, error) {
		if _, ok := proxies.Load(address); ok {
			d := *f.dialer
			return d.DialContext(ctx, network, address)
		}
		return f.DialContext(ctx, network, address)
	}
	return t
}

// RoundTripper returns rt with the fence's check of every request's target
// (CheckTarget) before it is sent: the fallback for an HTTP client whose
// transport is not an *http.Transport, so that the fence cannot be in its
// dialer. A transport that is one gets Transport instead.
func (f *Fence) RoundTripper(rt http.RoundTripper) http.RoundTripper {
	if t, ok := rt.(*http.Transport); ok {
		return f.Transport(t)
	}
	return &checkingTransport{fence: f, next: rt}
}

type checkingTransport struct {
	fence *Fence
	next  http.RoundTripper
}

func (t *checkingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.fence.CheckTarget(req.Context(), req.URL); err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, err
	}
	return t.next.RoundTrip(req)
}

// CloseIdleConnections passes on to the wrapped transport.
func (t *checkingTransport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// canonicalAddr is u's host:port as http.Transport dials it: the scheme's
// default port when u names none.
func canonicalAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https":
			port = "443"
		case "socks5", "socks5h":
			port = "1080"
		default:
			port = "80"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}
