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

package stores_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/stores"
	"github.com/listkeeper/listkeeper/internal/storetest/wafv2fake"
)

// TestNormalizeCIDR: IDs become the blocks AWS WAF stores, or are refused
// where WAF would refuse them or store another family.
func TestNormalizeCIDR(t *testing.T) {
	tests := []struct {
		id, want string // want "" means refused
	}{
		{"10.0.0.1", "10.0.0.1/32"},
		{"10.0.0.0/24", "10.0.0.0/24"},
		{"10.0.0.1/32", "10.0.0.1/32"},
		{"0.0.0.0/1", "0.0.0.0/1"},
		{"2001:DB8:0:0::1", "2001:db8::1/128"},
		{"2001:db8::1", "2001:db8::1/128"},
		{"2001:0db8:0000:0000:0000:0000:0000:0000/32", "2001:db8::/32"},
		{"1111:0000:0000:0000:0000:0000:0000:0111/128", "1111::111/128"},
		{"::1", "::1/128"},
		{"10.0.0.1/24", ""},         // host bits set: WAF refuses it
		{"2001:db8::1/64", ""},      // the same in IPv6
		{"0.0.0.0/0", ""},           // WAF takes /1 and longer
		{"::/0", ""},                //
		{"10.0.0.0/33", ""},         // no such prefix
		{"::ffff:10.0.0.1", ""},     // IPv4-mapped: write 10.0.0.1/32
		{"::ffff:10.0.0.0/120", ""}, //
		{"fe80::1%eth0", ""},        // zone
		{"010.0.0.1", ""},           // leading zero
		{"10.0.0.1/032", ""},        //
		{" 10.0.0.1", ""},           // no trimming
		{"10.0.0.1/", ""},           //
		{"host.example", ""},        //
		{"", ""},                    //
	}
	for _, tt := range tests {
		got, err := stores.NormalizeCIDR(tt.id)
		switch {
		case tt.want == "" && (err == nil || !errors.Is(err, stores.ErrInvalidCIDR)):
			t.Errorf("NormalizeCIDR(%q) = %q, %v; want ErrInvalidCIDR", tt.id, got, err)
		case tt.want != "" && (err != nil || got != tt.want):
			t.Errorf("NormalizeCIDR(%q) = %q, %v; want %q", tt.id, got, err, tt.want)
		}
	}
	// The errors say what to write instead, where there is an answer.
	if _, err := stores.NormalizeCIDR("10.0.0.1/24"); err == nil || !strings.Contains(err.Error(), "10.0.0.0/24") {
		t.Errorf("host bits: %v, want it to name the block 10.0.0.0/24", err)
	}
	if _, err := stores.NormalizeCIDR("::ffff:10.0.0.1"); err == nil || !strings.Contains(err.Error(), "10.0.0.1/32") {
		t.Errorf("IPv4-mapped: %v, want it to name 10.0.0.1/32", err)
	}
}

// TestWAFv2CheckItem: the backend spells IDs as WAF stores them
// (NormalizeItem) and takes addresses and blocks NormalizeCIDR takes, of
// either family before a read and of the set's family after one; a
// refused ID is ErrRejected, naming the problem.
func TestWAFv2CheckItem(t *testing.T) {
	f := startWAF(t) // an IPv4 set
	b := mustWAFBackend(t, f, 0)
	checker, ok := b.(etagclient.ItemChecker)
	if !ok {
		t.Fatal("the WAFv2 backend is not an ItemChecker")
	}
	normalizer, ok := b.(etagclient.ItemNormalizer)
	if !ok {
		t.Fatal("the WAFv2 backend is not an ItemNormalizer")
	}
	for id, want := range map[string]string{
		"10.0.0.1": "10.0.0.1/32", "10.0.0.0/8": "10.0.0.0/8", "2001:DB8::/32": "2001:db8::/32",
		"10.0.0.1/24": "10.0.0.1/24", "office": "office", // refused by CheckItem, left alone
	} {
		if got := normalizer.NormalizeItem(id); got != want {
			t.Errorf("NormalizeItem(%q) = %q, want %q", id, got, want)
		}
	}
	tests := []struct {
		id                    string
		beforeRead, afterRead bool // accepted?
		why                   string
	}{
		{"10.0.0.1/32", true, true, ""},
		{"10.0.0.0/8", true, true, ""},
		{"10.0.0.1", true, true, ""},
		{"2001:db8::/32", true, false, "IPv6 block"},
		{"2001:DB8::1", true, false, "IPv6 block"},
		{"10.0.0.1/24", false, false, "beyond the prefix"},
		{"office", false, false, "not an IP address"},
		{"::ffff:10.0.0.1/128", false, false, "IPv4-mapped"},
		{"0.0.0.0/0", false, false, "/0"},
	}
	check := func(after bool) {
		for _, tt := range tests {
			want := tt.beforeRead
			if after {
				want = tt.afterRead
			}
			err := checker.CheckItem(tt.id)
			switch {
			case want && err != nil:
				t.Errorf("after read %v: CheckItem(%q) = %v, want accepted", after, tt.id, err)
			case !want && (!errors.Is(err, etagclient.ErrRejected) || !strings.Contains(err.Error(), tt.why)):
				t.Errorf("after read %v: CheckItem(%q) = %v, want ErrRejected saying %q", after, tt.id, err, tt.why)
			}
		}
	}
	check(false)
	mustRead(t, b)
	check(true)

	id6, err := f.srv.CreateIPSet(wafv2fake.ScopeRegional, "allow6", "", wafv2fake.IPv6, nil)
	if err != nil {
		t.Fatal(err)
	}
	spec := f.spec()
	spec.Name, spec.ID = "allow6", id6
	b6, err := wafBackend(t, spec, wafAuth, wafKey, stores.Policy{}, wafEnv(t, 0))
	if err != nil {
		t.Fatal(err)
	}
	mustRead(t, b6)
	if err := b6.(etagclient.ItemChecker).CheckItem("10.0.0.1/32"); !errors.Is(err, etagclient.ErrRejected) || !strings.Contains(err.Error(), "IPv4 block") {
		t.Errorf("an IPv4 block for an IPv6 set: %v", err)
	}
	if err := b6.(etagclient.ItemChecker).CheckItem("2001:db8::/32"); err != nil {
		t.Errorf("an IPv6 block for an IPv6 set: %v", err)
	}
}
