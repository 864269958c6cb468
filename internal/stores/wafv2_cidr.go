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
	"net/netip"
	"strings"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/safetext"
)

// ErrInvalidCIDR is wrapped by the errors of NormalizeCIDR: the ID cannot
// be an address of an AWS WAF IP set.
var ErrInvalidCIDR = errors.New("not a CIDR block that AWS WAF accepts")

// NormalizeCIDR returns id as the CIDR block AWS WAF stores: an IPv4 or
// IPv6 block in canonical form (IPv6 lower-case and compressed, RFC 5952),
// a bare address taken as the block of that one address (/32 or /128).
// "10.0.0.1" gives "10.0.0.1/32", "2001:DB8:0:0::1" "2001:db8::1/128",
// "10.0.0.0/24" itself.
//
// It refuses, with an ErrInvalidCIDR error, what WAF refuses: a block with
// bits set beyond its prefix ("10.0.0.1/24": WAF answers
// WAFInvalidParameterException rather than masking it, so the ID is
// refused rather than silently turned into another block), /0, and
// anything that is not an address; and what WAF would store as another
// family than it reads: an IPv4-mapped IPv6 address (::ffff:10.0.0.1), to
// be written as the IPv4 block. Zones (fe80::1%eth0) and leading zeros
// are refused too. The WAFv2 backend spells every ID of a change with it
// before the engine applies the change (NormalizeItem).
func NormalizeCIDR(id string) (string, error) {
	var p netip.Prefix
	if strings.Contains(id, "/") {
		var err error
		if p, err = netip.ParsePrefix(id); err != nil {
			return "", fmt.Errorf("%w: not an IP address or CIDR block", ErrInvalidCIDR)
		}
	} else {
		a, err := netip.ParseAddr(id)
		switch {
		case err != nil:
			return "", fmt.Errorf("%w: not an IP address or CIDR block", ErrInvalidCIDR)
		case a.Zone() != "":
			return "", fmt.Errorf("%w: an IPv6 address with a zone", ErrInvalidCIDR)
		}
		p = netip.PrefixFrom(a, a.BitLen())
	}
	switch {
	case p.Addr().Is4In6():
		return "", fmt.Errorf("%w: an IPv4-mapped IPv6 address: write the IPv4 block %s", ErrInvalidCIDR,
			netip.PrefixFrom(p.Addr().Unmap(), max(p.Bits()-96, 0)).Masked())
	case p.Bits() == 0:
		return "", fmt.Errorf("%w: a /0 block (AWS WAF takes /1 and longer)", ErrInvalidCIDR)
	case p.Masked() != p:
		return "", fmt.Errorf("%w: bits are set beyond the prefix length (the block is %s)", ErrInvalidCIDR, p.Masked())
	}
	return p.String(), nil
}

// checkWAFv2Item decides whether id may be an item of an IP set of family
// (4 or 6; 0 when not known yet): an address or CIDR block that
// NormalizeCIDR takes, of that family. The engine has spelled it
// canonically first (NormalizeItem), so what it writes is what WAF stores.
// The error wraps etagclient.ErrRejected and names the problem; the ID
// itself is shown only as a short printable excerpt.
func checkWAFv2Item(id string, family int) error {
	shown := safetext.Short(id, 64)
	norm, err := NormalizeCIDR(id)
	if err != nil {
		return fmt.Errorf("%w: ID %q is %w", etagclient.ErrRejected, shown, err)
	}
	v4 := !strings.Contains(norm, ":")
	switch {
	case family == 4 && !v4:
		return fmt.Errorf("%w: ID %q is an IPv6 block, and the IP set holds IPv4 addresses", etagclient.ErrRejected, shown)
	case family == 6 && v4:
		return fmt.Errorf("%w: ID %q is an IPv4 block, and the IP set holds IPv6 addresses", etagclient.ErrRejected, shown)
	}
	return nil
}
