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

package ipgroupfake

import (
	"net/netip"
	"strings"
)

// validAddress reports whether an entry of ipAddresses is one of the
// forms an IP Group takes: an IPv4 address (10.0.0.0), a CIDR block
// (10.1.0.0/32) or a range of two addresses, the first not above the
// second (10.2.0.0-10.2.0.31). Surrounding spaces, IPv6, zones and
// leading zeros are refused. Bits set past a block's prefix are allowed,
// since nothing shows the service refuses them; the entry is kept as
// sent.
func validAddress(s string) bool {
	if first, last, ok := strings.Cut(s, "-"); ok {
		a, errA := netip.ParseAddr(first)
		b, errB := netip.ParseAddr(last)
		return errA == nil && errB == nil && a.Is4() && b.Is4() && a.Compare(b) <= 0
	}
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		return err == nil && p.Addr().Is4()
	}
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is4()
}
