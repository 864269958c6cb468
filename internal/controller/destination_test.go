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

package controller

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
	"github.com/listkeeper/listkeeper/internal/storetest/wafv2fake"
)

// fixedResolver answers the dial fence's lookups from a map, and the
// system resolver's answer for any other name.
type fixedResolver map[string]string

func (r fixedResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if a, ok := r[host]; ok {
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	}
	return net.DefaultResolver.LookupNetIP(ctx, network, host)
}

// ipLike finds an IPv4 address in a message.
var ipLike = regexp.MustCompile(`\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b`)

// countingServer is a fake list server on 127.0.0.1 holding ["bystander"]
// at /list, which counts the requests it gets.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	lists, err := fakeapi.New()
	if err != nil {
		t.Fatal(err)
	}
	setDoc(t, lists, "/list", []string{"bystander"})
	var n atomic.Int64
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		lists.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	return hs, &n
}

// TestDestinationNotAllowedByDefault: with no --allowed-hosts, the
// operator reaches none of the cluster's own addresses for a list: the
// metadata address, a name resolving to it, a loopback server by address
// and by name, and odd numeric spellings of addresses all end
// DestinationNotAllowed (Stalled), on the list and on its entry, with a
// message that names no address; nothing reaches the loopback server and
// nothing is written.
func TestDestinationNotAllowedByDefault(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startManager(t, managerConfig{namespace: ns, allowedHosts: []string{},
		dialResolver: fixedResolver{"metadata.lists.test": "169.254.169.254"}})
	hs, hits := countingServer(t)
	_, port, _ := net.SplitHostPort(hs.Listener.Addr().String())
	insecure := func(s *v1alpha1.ExternalListSpec) { s.AllowInsecureHTTP = true }
	cases := map[string]string{
		"metadata":      "http://169.254.169.254/latest/meta-data/",
		"metadata-name": "http://metadata.lists.test/latest/meta-data/",
		"loopback":      hs.URL + "/list",
		"loopback-name": "http://localhost:" + port + "/list",
		"mapped":        "http://[::ffff:127.0.0.1]:" + port + "/list",
		"decimal":       "http://2852039166/latest/meta-data/",
		"hex-and-short": "http://0x7f.1:" + port + "/list",
		"unspecified":   "http://0.0.0.0:" + port + "/list",
	}
	var entries []*v1alpha1.ListEntry
	for name, u := range cases {
		// One document each: two spellings of one would share a claim.
		xl := newExternalList(ns, name, strings.Replace(u, "/list", "/"+name, 1), insecure)
		create(t, xl)
		entry := newListEntry(ns, "e-"+name, name, "tenant-"+name)
		create(t, entry)
		entries = append(entries, entry)
		c := waitCondition(t, xl, v1alpha1.ConditionStalled, metav1.ConditionTrue, v1alpha1.ReasonDestinationNotAllowed, waitTimeout)
		if ip := ipLike.FindString(c.Message); ip != "" || strings.Contains(c.Message, "::") {
			t.Errorf("%s: the message %q names an address", name, c.Message)
		}
		if !strings.Contains(c.Message, "--allowed-hosts") {
			t.Errorf("%s: the message %q does not say how to allow it", name, c.Message)
		}
		ev := waitEvent(t, ns, "ExternalList", name, corev1.EventTypeWarning, v1alpha1.ReasonDestinationNotAllowed, waitTimeout)
		if ip := ipLike.FindString(ev.Note); ip != "" {
			t.Errorf("%s: the event %q names an address", name, ev.Note)
		}
	}
	for _, e := range entries {
		waitCondition(t, e, v1alpha1.ConditionSynced, metav1.ConditionFalse, v1alpha1.ReasonDestinationNotAllowed, waitTimeout)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the loopback server got %d requests, want none", n)
	}
}

// TestDestinationAllowedByCIDRAndPort: --allowed-hosts with a CIDR and a
// port lets the operator reach a loopback server on that port, and no
// other: a server on another port of 127.0.0.1 is HostNotAllowed, and
// nothing reaches it.
func TestDestinationAllowedByCIDRAndPort(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	allowed, _ := countingServer(t)
	other, otherHits := countingServer(t)
	_, port, _ := net.SplitHostPort(allowed.Listener.Addr().String())
	startManager(t, managerConfig{namespace: ns, allowedHosts: []string{"127.0.0.0/8:" + port}})
	insecure := func(s *v1alpha1.ExternalListSpec) { s.AllowInsecureHTTP = true }
	ok := newExternalList(ns, "allowed", allowed.URL+"/list", insecure)
	create(t, ok)
	create(t, newListEntry(ns, "e-allowed", "allowed", "tenant-a"))
	waitCondition(t, ok, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)

	bad := newExternalList(ns, "other-port", other.URL+"/list", insecure)
	create(t, bad)
	waitCondition(t, bad, v1alpha1.ConditionStalled, metav1.ConditionTrue, v1alpha1.ReasonHostNotAllowed, waitTimeout)
	if n := otherHits.Load(); n != 0 {
		t.Fatalf("the server on another port got %d requests, want none", n)
	}
}

// TestDestinationWAFv2Endpoint: an IP set list whose spec.wafv2.endpoint
// is a loopback server (the WAF fake) or the link-local metadata address
// is DestinationNotAllowed without a loopback allowance, and the fake gets
// no request: the SDK's connections go through the fence too.
func TestDestinationWAFv2Endpoint(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	waf, err := wafv2fake.New()
	if err != nil {
		t.Fatal(err)
	}
	waf.Start()
	t.Cleanup(waf.Close)
	id, err := waf.CreateIPSet("REGIONAL", "egress", "", "IPV4", nil)
	if err != nil {
		t.Fatal(err)
	}
	startManager(t, managerConfig{namespace: ns, allowedHosts: []string{}})
	xl := createWAFv2List(t, ns, waf, id)
	waitCondition(t, xl, v1alpha1.ConditionStalled, metav1.ConditionTrue, v1alpha1.ReasonDestinationNotAllowed, waitTimeout)
	meta := &v1alpha1.ExternalList{
		ObjectMeta: metav1.ObjectMeta{Name: "waf-metadata", Namespace: ns},
		Spec: v1alpha1.ExternalListSpec{
			WAFv2:             &v1alpha1.WAFv2IPSet{Region: wafv2fake.DefaultRegion, Scope: v1alpha1.WAFv2ScopeRegional, Name: "egress", ID: id, Endpoint: "http://169.254.169.254/"},
			Auth:              &v1alpha1.StoreAuth{AWS: &v1alpha1.AWSAuth{Region: wafv2fake.DefaultRegion, SecretRef: &v1alpha1.SecretReference{Name: "aws"}}},
			AllowInsecureHTTP: true,
		},
	}
	create(t, meta)
	c := waitCondition(t, meta, v1alpha1.ConditionStalled, metav1.ConditionTrue, v1alpha1.ReasonDestinationNotAllowed, waitTimeout)
	if ip := ipLike.FindString(c.Message); ip != "" {
		t.Errorf("the message %q names an address", c.Message)
	}
	if n := len(waf.Requests()); n != 0 {
		t.Fatalf("the WAF fake got %d requests, want none", n)
	}
}
