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
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"path"
	"strconv"
	"strings"
)

// Entry is one parsed entry of --allowed-hosts: either a host name pattern
// (Pattern) or an address range (Prefix), each with an optional port.
type Entry struct {
	// Pattern is a lower-case path.Match pattern that a URL's host name
	// must match; empty for an address range.
	Pattern string
	// Prefix is the address range of a CIDR or IP entry; invalid for a
	// name pattern. An IP address is the range of that one address.
	Prefix netip.Prefix
	// Port is the one port the entry allows; 0 allows every port.
	Port int
	// Raw is the entry as written, for messages.
	Raw string
}

// IsRange reports whether e is a CIDR (or IP) entry.
func (e Entry) IsRange() bool { return e.Prefix.IsValid() }

// portMatches reports whether e allows port.
func (e Entry) portMatches(port int) bool { return e.Port == 0 || e.Port == port }

// Allowlist is the parsed value of --allowed-hosts. The zero Allowlist (and
// nil) is empty: every host is allowed by name, and only the default
// refusals of a Fence apply to the addresses dialed.
type Allowlist struct {
	entries []Entry
}

// ParseAllowlist parses the entries of --allowed-hosts. Each entry is one
// of:
//
//   - a host name pattern (path.Match syntax, matched case-insensitively
//     against the URL's host name): "lists.example.com", "*.example.com";
//   - a host name pattern with a port: "*.lists.example.com:443";
//   - an address range in CIDR notation, or a single IP address:
//     "10.20.0.0/16", "127.0.0.0/8", "fd00::/8", "192.0.2.7";
//   - an address range or address with a port; an IPv6 one in brackets:
//     "10.20.0.0/16:8443", "[fd00::/8]:443", "[2001:db8::7]:443".
//
// A malformed entry (an empty one, a pattern path.Match rejects, a
// character no host name has, a CIDR with host bits set, a port outside
// 1-65535) is an error that names it: the operator must not start with a
// fence other than the one its administrator meant.
func ParseAllowlist(raw []string) (*Allowlist, error) {
	a := &Allowlist{}
	var errs []error
	for _, s := range raw {
		e, err := parseEntry(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("--allowed-hosts entry %q: %w", s, err))
			continue
		}
		a.entries = append(a.entries, e)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return a, nil
}

// MustParseAllowlist is ParseAllowlist for constant entries (tests,
// defaults); it panics on a malformed entry.
func MustParseAllowlist(raw ...string) *Allowlist {
	a, err := ParseAllowlist(raw)
	if err != nil {
		panic(err)
	}
	return a
}

func parseEntry(raw string) (Entry, error) {
	s := strings.TrimSpace(raw)
	e := Entry{Raw: s}
	if s == "" {
		return e, errors.New("empty")
	}
	host, port := s, ""
	switch {
	case strings.HasPrefix(s, "["):
		end := strings.Index(s, "]")
		if end < 0 {
			return e, errors.New("an opening bracket without its closing one")
		}
		host = s[1:end]
		rest := s[end+1:]
		if rest != "" {
			if !strings.HasPrefix(rest, ":") {
				return e, errors.New("after the brackets only :port may follow")
			}
			port = rest[1:]
			if port == "" {
				return e, errors.New("an empty port")
			}
		}
		if !strings.Contains(host, ":") {
			return e, errors.New("brackets are for IPv6 addresses and ranges only")
		}
	case strings.Count(s, ":") > 1:
		// A bare IPv6 address or range; a port needs brackets.
	case strings.Contains(s, ":"):
		i := strings.LastIndex(s, ":")
		host, port = s[:i], s[i+1:]
		if port == "" {
			return e, errors.New("an empty port")
		}
	}
	if port != "" {
		p, err := strconv.Atoi(port)
		if err != nil || p < 1 || p > 65535 || strconv.Itoa(p) != port {
			return e, fmt.Errorf("port %q is not a number in 1-65535", port)
		}
		e.Port = p
	}
	if strings.Contains(host, "/") {
		pfx, err := netip.ParsePrefix(host)
		if err != nil {
			return e, fmt.Errorf("not a CIDR range: %w", err)
		}
		if pfx.Addr().Zone() != "" {
			return e, errors.New("a range with an IPv6 zone")
		}
		if pfx != pfx.Masked() {
			return e, fmt.Errorf("the range has host bits set; did you mean %s?", pfx.Masked())
		}
		e.Prefix = unmapPrefix(pfx)
		return e, nil
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		if addr.Zone() != "" {
			return e, errors.New("an address with an IPv6 zone")
		}
		addr = addr.Unmap()
		e.Prefix = netip.PrefixFrom(addr, addr.BitLen())
		return e, nil
	}
	if strings.Contains(host, ":") {
		return e, errors.New("not an IPv6 address or range")
	}
	pattern := strings.TrimSuffix(strings.ToLower(host), ".")
	if pattern == "" {
		return e, errors.New("an empty host")
	}
	for _, c := range pattern {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && !strings.ContainsRune("-.*?[]^!_", c) {
			return e, fmt.Errorf("%q cannot be part of a host name pattern", c)
		}
	}
	if _, err := path.Match(pattern, ""); err != nil {
		return e, fmt.Errorf("not a valid pattern: %w", err)
	}
	if oddIPv4(pattern) {
		return e, errors.New("a numeric host that is not a dotted-quad IPv4 address")
	}
	e.Pattern = pattern
	return e, nil
}

// unmapPrefix turns a range of IPv4-mapped IPv6 addresses into the IPv4
// range, so that it matches the unmapped addresses the fence compares.
func unmapPrefix(p netip.Prefix) netip.Prefix {
	if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
		return netip.PrefixFrom(a.Unmap(), p.Bits()-96)
	}
	return p
}

// Empty reports whether a has no entries: every host is allowed by name.
func (a *Allowlist) Empty() bool { return a == nil || len(a.entries) == 0 }

// Entries returns a copy of a's entries.
func (a *Allowlist) Entries() []Entry {
	if a == nil {
		return nil
	}
	return append([]Entry(nil), a.entries...)
}

// AllowsURL reports whether u's host and port match an entry: a name
// pattern by the host name, a range by an IP literal host inside it, and
// by the port when the entry has one (the scheme's default port when u
// names none). An empty Allowlist allows every URL. This is the check by
// name only; where the name leads is the Fence's to check when it dials.
func (a *Allowlist) AllowsURL(u *url.URL) bool {
	if a.Empty() {
		return true
	}
	return len(a.matching(u.Hostname(), urlPort(u))) > 0
}

// matching returns the entries that host (a name or an IP literal, without
// brackets) and port match.
func (a *Allowlist) matching(host string, port int) []Entry {
	if a == nil {
		return nil
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	ip, isIP := parseLiteral(host)
	var out []Entry
	for _, e := range a.entries {
		if !e.portMatches(port) {
			continue
		}
		switch {
		case e.IsRange():
			if isIP && e.Prefix.Contains(ip) {
				out = append(out, e)
			}
		case !isIP:
			if ok, _ := path.Match(e.Pattern, host); ok {
				out = append(out, e)
			}
		}
	}
	return out
}

// coveredByRange reports whether a range entry that allows port contains
// ip: the administrator's explicit permission to reach it.
func (a *Allowlist) coveredByRange(ip netip.Addr, port int) bool {
	if a == nil {
		return false
	}
	for _, e := range a.entries {
		if e.IsRange() && e.portMatches(port) && e.Prefix.Contains(ip) {
			return true
		}
	}
	return false
}

// urlPort returns u's port, or the default port of its scheme (0 when it
// has none).
func urlPort(u *url.URL) int {
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil {
			return -1
		}
		return n
	}
	switch strings.ToLower(u.Scheme) {
	case "http":
		return 80
	case "https":
		return 443
	}
	return 0
}

// parseLiteral parses an IP literal host (brackets and an IPv6 zone
// dropped), IPv4-mapped IPv6 addresses as IPv4.
func parseLiteral(host string) (netip.Addr, bool) {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.WithZone("").Unmap(), true
}

// oddIPv4 reports whether host is a numeric IPv4 spelling that is not a
// plain dotted quad: "2852039166", "0x7f.1", "0177.0.0.1", "127.1". C
// resolvers (inet_aton) read such names as addresses, Go's netip does not;
// the fence refuses them rather than guess which reading a resolver makes.
func oddIPv4(host string) bool {
	host = strings.TrimSuffix(host, ".")
	if host == "" {
		return false
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return false
	}
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return false
	}
	for _, p := range parts {
		if p == "" {
			return false
		}
		digits := p
		hex := false
		if len(p) > 1 && (p[:2] == "0x" || p[:2] == "0X") {
			digits, hex = p[2:], true
		}
		for _, c := range strings.ToLower(digits) {
			if (c < '0' || c > '9') && (!hex || c < 'a' || c > 'f') {
				return false
			}
		}
	}
	return true
}
