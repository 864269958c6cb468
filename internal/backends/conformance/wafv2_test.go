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

package conformance_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/backends/conformance"
	"github.com/listkeeper/listkeeper/internal/stores"
	"github.com/listkeeper/listkeeper/internal/storetest/wafv2fake"
)

// TestWAFv2: an AWS WAF IP set, served by wafv2fake, which checks SigV4
// and WAF's lock tokens.
func TestWAFv2(t *testing.T) { conformance.Run(t, wafv2Harness()) }

func wafv2Harness() conformance.Harness {
	return conformance.Harness{
		Kind: "wafv2", Start: startWAFv2, IDs: cidrIDs, IsWrite: isUpdateIPSet,
		Unsafe: map[string]func(*http.Response){"no-lock-token": deleteJSONField("LockToken")}, //nolint:bodyclose // rewrites an answer the probe closes
	}
}

// cidrIDs are IPv4 /24 blocks, spelled as WAF stores them.
func cidrIDs(from, n int) []string {
	out := make([]string, n)
	for i := range out {
		k := from + i
		out[i] = fmt.Sprintf("10.%d.%d.0/24", k/256, k%256)
	}
	return out
}

func isUpdateIPSet(r *http.Request) bool {
	return strings.HasSuffix(r.Header.Get("X-Amz-Target"), ".UpdateIPSet")
}

// wafv2Description is the set's own field a write must carry back.
const wafv2Description = "office and VPN, managed elsewhere"

// startWAFv2 serves wafv2fake with an IPv4 set "allow" that has a
// description and no addresses.
func startWAFv2(t *testing.T, _ *conformance.Probe) *conformance.Target {
	srv, err := wafv2fake.New()
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	t.Cleanup(srv.Close)
	id, err := srv.CreateIPSet(wafv2fake.ScopeRegional, "allow", wafv2Description, wafv2fake.IPv4, []string{})
	if err != nil {
		t.Fatal(err)
	}
	sec := secrets(map[string]map[string]string{"aws": {
		stores.AWSAccessKeyID: wafv2fake.TestAccessKeyID, stores.AWSSecretAccessKey: wafv2fake.TestSecretAccessKey}})
	target := func(t *testing.T, id string) *conformance.Target {
		spec := &v1alpha1.WAFv2IPSet{Region: srv.Region(), Scope: v1alpha1.WAFv2ScopeRegional, Name: "allow", ID: id, Endpoint: srv.URL()}
		auth := &v1alpha1.AWSAuth{Region: srv.Region(), SecretRef: &v1alpha1.SecretReference{Name: "aws"}}
		factory, _, err := stores.WAFv2Backend(t.Context(), spec, auth, sec, stores.Policy{}, true)
		if err != nil {
			t.Fatalf("WAFv2Backend: %v", err)
		}
		set := func() (wafv2fake.IPSet, bool) { return srv.IPSet(wafv2fake.ScopeRegional, id) }
		return &conformance.Target{
			URL:     "wafv2://" + srv.Region() + "/REGIONAL/allow",
			Factory: factory,
			Seed: func(t *testing.T, items []string) {
				if _, err := srv.SetAddresses(wafv2fake.ScopeRegional, id, items); err != nil {
					t.Fatal(err)
				}
			},
			Stored: func(t *testing.T) ([]byte, bool) {
				s, ok := set()
				if !ok {
					return nil, false
				}
				raw, err := json.Marshal(s)
				if err != nil {
					t.Fatal(err)
				}
				return raw, true
			},
			Items: func(t *testing.T, raw []byte) []string {
				var s wafv2fake.IPSet
				if err := json.Unmarshal(raw, &s); err != nil {
					t.Fatal(err)
				}
				return s.Addresses
			},
			Foreign: func(t *testing.T, raw []byte) []byte {
				var s wafv2fake.IPSet
				if err := json.Unmarshal(raw, &s); err != nil {
					t.Fatal(err)
				}
				s.Addresses, s.LockToken = nil, ""
				out, _ := json.Marshal(s)
				return out
			},
			Inject: func(f conformance.Fault, pick func(*http.Request) bool) error {
				fault := map[conformance.Fault]func() *wafv2fake.Error{
					conformance.FaultThrottled:   wafv2fake.Throttling,
					conformance.FaultUnavailable: wafv2fake.ServiceUnavailable,
					conformance.FaultInternal:    wafv2fake.InternalFailure,
					conformance.FaultDropBefore:  wafv2fake.DropConnection,
					conformance.FaultDropAfter:   wafv2fake.DropAnswer,
				}[f]
				if fault == nil {
					return fmt.Errorf("%w: %s", conformance.ErrNoFault, f)
				}
				srv.SetFaultHook(func(_ string, r *http.Request) *wafv2fake.Error {
					if pick(r) {
						return fault()
					}
					return nil
				})
				return nil
			},
		}
	}
	tg := target(t, id)
	tg.Missing = func(t *testing.T, _ *conformance.Probe) *conformance.Target {
		return target(t, "a1b2c3d4-0000-4000-8000-000000000000")
	}
	return tg
}
