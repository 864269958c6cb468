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

package ec2fake

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// canonicalCIDR checks one CIDR block of an entry of a list of this
// address family and returns the form the list keeps. A CIDR block names
// its prefix length (a bare address is not one), has no bits set beyond
// it (10.0.0.1/24 is refused, not rounded), and is of the list's family;
// /0 is allowed (0.0.0.0/0, ::/0). IPv6 is kept lower-case and compressed
// (RFC 5952), so that 2001:DB8:0::/32 and 2001:db8::/32 are one entry.
func canonicalCIDR(family, cidr string) (netip.Prefix, *Error) {
	if !strings.Contains(cidr, "/") {
		return netip.Prefix{}, errInvalidParameterValue(fmt.Sprintf("The CIDR %s is not valid: a CIDR block needs a prefix length, as in %s/32.", cidr, cidr))
	}
	p, err := netip.ParsePrefix(cidr)
	if err != nil || p.Masked() != p {
		return netip.Prefix{}, errInvalidParameterValue(fmt.Sprintf("The CIDR %s is not valid.", cidr))
	}
	if p.Addr().Is4() != (family == IPv4) {
		return netip.Prefix{}, errInvalidParameterValue(fmt.Sprintf("The CIDR %s does not match the address family of the prefix list (%s).", cidr, family))
	}
	return p, nil
}

// comparePrefixes orders CIDR blocks by address, then by prefix length.
func comparePrefixes(a, b netip.Prefix) int {
	if c := a.Addr().Compare(b.Addr()); c != 0 {
		return c
	}
	return cmp.Compare(a.Bits(), b.Bits())
}

// sortEntries orders entries by their CIDR blocks, which are canonical.
func sortEntries(entries []Entry) {
	slices.SortFunc(entries, func(a, b Entry) int {
		return comparePrefixes(netip.MustParsePrefix(a.CIDR), netip.MustParsePrefix(b.CIDR))
	})
}
