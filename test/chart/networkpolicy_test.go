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

package chart_test

import (
	"slices"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
)

// TestDefaultNetworkPolicy: with the default values, the chart renders an
// egress NetworkPolicy for the manager's pods that lets DNS out and every
// address but link-local and the cloud metadata addresses, so that the API
// server and the list hosts are reachable on any cluster without naming
// them, and the metadata service is not. Given apiServer.cidrs, they get
// their own rule beside it.
func TestDefaultNetworkPolicy(t *testing.T) {
	r := parse(t, mustRender(t, renderOpts{release: "lk", namespace: "lk"}))
	np := one[networkingv1.NetworkPolicy](t, r, "NetworkPolicy")
	if !slices.Equal(np.Spec.PolicyTypes, []networkingv1.PolicyType{networkingv1.PolicyTypeEgress}) {
		t.Errorf("policy types %v, want Egress only", np.Spec.PolicyTypes)
	}
	if len(np.Spec.Egress) != 2 {
		t.Fatalf("egress %+v: want DNS and everything but the metadata ranges", np.Spec.Egress)
	}
	dns := np.Spec.Egress[0]
	if len(dns.To) != 1 || dns.To[0].NamespaceSelector == nil || len(dns.Ports) != 2 || dns.Ports[0].Port.IntValue() != 53 {
		t.Errorf("the first rule %+v is not DNS", dns)
	}
	all := np.Spec.Egress[1]
	if len(all.Ports) != 0 {
		t.Errorf("the open rule restricts ports %v", all.Ports)
	}
	want := map[string][]string{
		"0.0.0.0/0": {"169.254.0.0/16"},
		"::/0":      {"fe80::/10", "fd00:ec2::254/128"},
	}
	if len(all.To) != len(want) {
		t.Fatalf("the open rule goes to %+v, want %v", all.To, want)
	}
	for _, peer := range all.To {
		if peer.IPBlock == nil {
			t.Fatalf("the open rule has a peer %+v that is no ipBlock", peer)
		}
		if except, ok := want[peer.IPBlock.CIDR]; !ok || !slices.Equal(peer.IPBlock.Except, except) {
			t.Errorf("ipBlock %s except %v, want one of %v", peer.IPBlock.CIDR, peer.IPBlock.Except, want)
		}
	}

	// The API server's cidrs, when given, keep a rule of their own.
	r = parse(t, mustRender(t, renderOpts{release: "lk", namespace: "lk", values: map[string]any{
		"networkPolicy": map[string]any{"apiServer": map[string]any{"cidrs": []any{"10.0.0.1/32"}, "port": 6443},
			"metadataEndpoints": []any{map[string]any{"cidr": "169.254.169.254/32", "ports": []any{80, 988}}}}}}))
	np = one[networkingv1.NetworkPolicy](t, r, "NetworkPolicy")
	if len(np.Spec.Egress) != 4 || np.Spec.Egress[1].To[0].IPBlock.CIDR != "10.0.0.1/32" || np.Spec.Egress[1].Ports[0].Port.IntValue() != 6443 ||
		np.Spec.Egress[2].To[0].IPBlock.CIDR != "169.254.169.254/32" || len(np.Spec.Egress[2].Ports) != 2 ||
		np.Spec.Egress[3].To[0].IPBlock.CIDR != "0.0.0.0/0" {
		t.Errorf("egress %+v: want DNS, the API server on 6443, the GKE metadata server, and everything but the metadata ranges", np.Spec.Egress)
	}

	// Disabled, there is none.
	r = parse(t, mustRender(t, renderOpts{release: "lk", namespace: "lk", values: map[string]any{"networkPolicy": map[string]any{"enabled": false}}}))
	if n := kinds(r)["NetworkPolicy"]; n != 0 {
		t.Errorf("%d NetworkPolicies rendered with networkPolicy.enabled false", n)
	}
}

// mustRender renders the chart or fails the test.
func mustRender(t *testing.T, o renderOpts) string {
	t.Helper()
	out, err := renderChart(o)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
