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

package wafv2fake

import (
	"net/netip"
	"strings"
)

// canonicalAddress checks one address of a set of IP version version, as
// WAF does, and returns the form the set stores it in. An address is a
// CIDR block of the set's family with a prefix of /1 to /32 (IPv4) or /1
// to /128 (IPv6), and no bits set beyond the prefix: WAF refuses
// 195.178.188.66/29 as "formatting that is not valid" (field IP_ADDRESS),
// and /0 too. A bare address is not a CIDR block. IPv6 is stored
// lower-case and compressed (RFC 5952), the way WAF hands addresses back.
func canonicalAddress(version, address string) (string, *Error) {
	refuse := func() (string, *Error) { return "", errInvalidParameter("IP_ADDRESS", address, reasonFormat) }
	if !strings.Contains(address, "/") {
		return refuse()
	}
	p, err := netip.ParsePrefix(address)
	if err != nil || p.Bits() == 0 || p.Masked() != p {
		return refuse()
	}
	if (version == IPv4) != p.Addr().Is4() {
		return refuse()
	}
	return p.String(), nil
}

// canonicalAddresses checks every address of a request, in order, and
// returns the forms the set stores; the first address refused is the
// answer.
func canonicalAddresses(version string, addresses []string) ([]string, *Error) {
	out := make([]string, len(addresses))
	for i, a := range addresses {
		c, e := canonicalAddress(version, a)
		if e != nil {
			return nil, e
		}
		out[i] = c
	}
	return out, nil
}
