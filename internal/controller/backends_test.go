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
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/stores"
	"github.com/listkeeper/listkeeper/internal/storetest/gcstoken"
	"github.com/listkeeper/listkeeper/internal/storetest/iamfake"
	"github.com/listkeeper/listkeeper/internal/storetest/wafv2fake"
)

// backendEntries is how many entries the backend tests create and delete.
const backendEntries = 300

// TestWAFv2ThreeReplicas: three member replicas keep 300 entries in an AWS
// WAF IP set (wafv2fake: SigV4, lock tokens, an UpdateIPSet that clears an
// omitted description), half of them spelled as bare addresses. Every
// address arrives in the form WAF stores, the set's own addresses and its
// description survive byte for byte, and deleting the entries takes off
// exactly theirs. Then the set is filled to WAF's 10,000 addresses: a new
// entry is Rejected naming the limit and nothing is written, and an IPv6
// entry on the IPv4 set is Rejected too.
func TestWAFv2ThreeReplicas(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	ctx := ctxFor(t)
	waf, err := wafv2fake.New()
	if err != nil {
		t.Fatal(err)
	}
	waf.Start()
	t.Cleanup(waf.Close)
	const description = "egress allow-list, Terraform owns 192.0.2.1 and 198.51.100.0/24"
	foreign := []string{"192.0.2.1/32", "198.51.100.0/24"}
	id, err := waf.CreateIPSet("REGIONAL", "egress", description, "IPV4", foreign)
	if err != nil {
		t.Fatal(err)
	}

	reps := make([]*replica, 3)
	for i := range reps {
		reps[i] = startManager(t, managerConfig{namespace: ns, member: true, maxConcurrent: 8})
	}
	xl := createWAFv2List(t, ns, waf, id)
	waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	waitSplit(t, reps)
	waf.ResetRequests()

	ids, want := make([]string, backendEntries), make([]string, backendEntries)
	for i := range ids {
		addr := fmt.Sprintf("10.0.%d.%d", i/250, 1+i%250)
		ids[i], want[i] = addr, addr+"/32"
		if i%2 == 1 {
			ids[i] = want[i]
		}
	}
	addresses := func() []string {
		set, ok := waf.IPSet("REGIONAL", id)
		if !ok {
			t.Fatal("the IP set is gone")
		}
		if set.Description != description {
			t.Fatalf("the set's description is %q, want %q: an UpdateIPSet left it out", set.Description, description)
		}
		return set.Addresses
	}
	name := func(i int) string { return fmt.Sprintf("addr-%03d", i) }
	parallel(t, backendEntries, func(i int) error { return k8sClient.Create(ctx, newListEntry(ns, name(i), "waf", ids[i])) })
	start := time.Now()
	eventually(t, 3*time.Minute, "every address in the IP set", func() error {
		if n := len(missing(want, addresses())); n > 0 {
			return fmt.Errorf("%d missing", n)
		}
		return nil
	})
	created := time.Since(start)
	if got := addresses(); !slices.Equal(got[:2], foreign) || len(got) != len(foreign)+backendEntries {
		t.Errorf("the set holds %d addresses starting %v; want the set's own %v first, then exactly the %d entries' (no address twice in two spellings)",
			len(got), got[:min(len(got), 3)], foreign, backendEntries)
	}
	parallel(t, backendEntries, func(i int) error {
		return client.IgnoreNotFound(k8sClient.Delete(ctx, newListEntry(ns, name(i), "waf", ids[i])))
	})
	eventually(t, 3*time.Minute, "the set back to its own addresses", func() error {
		if got := addresses(); !slices.Equal(got, foreign) {
			return fmt.Errorf("%d addresses, want %v", len(got), foreign)
		}
		return nil
	})
	st := waf.Stats()
	t.Logf("WAFv2, 3 replicas, %d entries created (all in the set after %s) and deleted: %d requests (%.3f per change): GetIPSet %v, UpdateIPSet %v, error codes %v",
		backendEntries, created.Round(time.Millisecond), st.Total, float64(st.Total)/(2*backendEntries),
		st.Requests["GetIPSet"], st.Requests["UpdateIPSet"], st.Codes)
	if n := st.Codes["UnrecognizedClientException"] + st.Codes["InvalidSignatureException"]; n != 0 {
		t.Errorf("%d requests were refused with the right credentials", n)
	}

	// A full set: the 10,001st address is refused before anything is sent.
	full := make([]string, stores.WAFv2MaxAddresses)
	for i := range full {
		full[i] = fmt.Sprintf("172.16.%d.%d/32", i/250, 1+i%250)
	}
	if _, err := waf.SetAddresses("REGIONAL", id, full); err != nil {
		t.Fatal(err)
	}
	// The clients' copies are stale now: a write may go out on the old
	// lock token and lose; none may commit.
	updates := waf.Stats().Count("UpdateIPSet", http.StatusOK)
	late := newListEntry(ns, "late", "waf", "10.9.9.9")
	create(t, late)
	c := waitCondition(t, late, v1alpha1.ConditionSynced, metav1.ConditionFalse, v1alpha1.ReasonRejected, waitTimeout)
	if !strings.Contains(c.Message, "10,000") {
		t.Errorf("the Rejected message does not name the limit: %s", c.Message)
	}
	v6 := newListEntry(ns, "v6", "waf", "2001:DB8::1")
	create(t, v6)
	waitCondition(t, v6, v1alpha1.ConditionSynced, metav1.ConditionFalse, v1alpha1.ReasonRejected, waitTimeout)
	if n := waf.Stats().Count("UpdateIPSet", http.StatusOK) - updates; n != 0 {
		t.Errorf("%d UpdateIPSet requests committed entries the set cannot take", n)
	}
	if got := addresses(); len(got) != stores.WAFv2MaxAddresses {
		t.Errorf("the full set holds %d addresses, want %d", len(got), stores.WAFv2MaxAddresses)
	}
}

// createWAFv2List creates, in ns, the Secret "aws" with the fake's
// credentials and the ExternalList "waf" on the REGIONAL set id of waf,
// "egress", and returns the list.
func createWAFv2List(t *testing.T, ns string, waf *wafv2fake.Server, id string, mutate ...func(*v1alpha1.ExternalListSpec)) *v1alpha1.ExternalList {
	t.Helper()
	create(t, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "aws", Namespace: ns},
		StringData: map[string]string{stores.AWSAccessKeyID: wafv2fake.TestAccessKeyID, stores.AWSSecretAccessKey: wafv2fake.TestSecretAccessKey},
	})
	xl := &v1alpha1.ExternalList{
		ObjectMeta: metav1.ObjectMeta{Name: "waf", Namespace: ns},
		Spec: v1alpha1.ExternalListSpec{
			WAFv2: &v1alpha1.WAFv2IPSet{Region: wafv2fake.DefaultRegion, Scope: v1alpha1.WAFv2ScopeRegional, Name: "egress", ID: id, Endpoint: waf.URL()},
			Auth:  &v1alpha1.StoreAuth{AWS: &v1alpha1.AWSAuth{Region: wafv2fake.DefaultRegion, SecretRef: &v1alpha1.SecretReference{Name: "aws"}}},
			// A loopback test server: plain http with credentials is opted in.
			AllowInsecureHTTP: true,
		},
	}
	for _, m := range mutate {
		m(&xl.Spec)
	}
	create(t, xl)
	return xl
}

// TestGCPIAMThreeReplicas: three member replicas keep 300 members in the
// unconditional binding of one role in a project's IAM policy (iamfake:
// bearer tokens from the fake token endpoint, etags, 409 ABORTED). The
// policy's other bindings, a conditional binding of the same role, its
// audit configs and version come back byte for byte, and so does the
// role's own foreign member, once the entries are deleted.
func TestGCPIAMThreeReplicas(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	ctx := ctxFor(t)
	tokens, err := gcstoken.New()
	if err != nil {
		t.Fatal(err)
	}
	tokenSrv := httptest.NewServer(tokens)
	t.Cleanup(tokenSrv.Close)
	tokenURL := tokenSrv.URL + gcstoken.TokenPath
	key, err := tokens.NewServiceAccountKey(tokenURL)
	if err != nil {
		t.Fatal(err)
	}
	iam, err := iamfake.New(iamfake.WithTokenCheck(tokens.Valid))
	if err != nil {
		t.Fatal(err)
	}
	iam.Start()
	t.Cleanup(iam.Close)
	const resource = "projects/p-listkeeper"
	const role = "roles/viewer"
	if _, err := iam.SetPolicy(resource, iamfake.Policy{
		Version: 3,
		Bindings: []iamfake.Binding{
			{Role: "roles/owner", Members: []string{"user:owner@example.com"}},
			{Role: role, Members: []string{"group:auditors@example.com"}},
			{Role: role, Members: []string{"user:contractor@example.com"}, Condition: &iamfake.Expr{
				Title: "until 2027", Expression: `request.time < timestamp("2027-01-01T00:00:00Z")`,
			}},
		},
		AuditConfigs: []iamfake.AuditConfig{{Service: "allServices", AuditLogConfigs: []iamfake.AuditLogConfig{{LogType: "DATA_READ"}}}},
	}); err != nil {
		t.Fatal(err)
	}
	before := policyWithoutEtag(t, iam, resource)

	reps := make([]*replica, 3)
	for i := range reps {
		reps[i] = startManager(t, managerConfig{namespace: ns, member: true, maxConcurrent: 8,
			storePolicy: stores.Policy{GCPTokenURIs: []string{tokenURL}}})
	}
	create(t, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "gcp", Namespace: ns},
		StringData: map[string]string{stores.GCPCredentialsKey: string(key)},
	})
	xl := &v1alpha1.ExternalList{
		ObjectMeta: metav1.ObjectMeta{Name: "viewers", Namespace: ns},
		Spec: v1alpha1.ExternalListSpec{
			GCPIAM:            &v1alpha1.GCPIAMBinding{Resource: "//cloudresourcemanager.googleapis.com/" + resource, Role: role, Endpoint: iam.URL()},
			Auth:              &v1alpha1.StoreAuth{GCP: &v1alpha1.GCPAuth{SecretRef: &v1alpha1.SecretReference{Name: "gcp"}}},
			AllowInsecureHTTP: true,
		},
	}
	create(t, xl)
	waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	waitSplit(t, reps)
	iam.ResetRequests()

	members := make([]string, backendEntries)
	for i := range members {
		members[i] = fmt.Sprintf("serviceAccount:job-%03d@p-listkeeper.iam.gserviceaccount.com", i)
	}
	roleMembers := func() []string {
		p, ok := iam.Policy(resource)
		if !ok {
			t.Fatal("the policy is gone")
		}
		for _, b := range p.Bindings {
			if b.Role == role && b.Condition == nil {
				return b.Members
			}
		}
		return nil
	}
	name := func(i int) string { return fmt.Sprintf("member-%03d", i) }
	parallel(t, backendEntries, func(i int) error { return k8sClient.Create(ctx, newListEntry(ns, name(i), "viewers", members[i])) })
	start := time.Now()
	eventually(t, 3*time.Minute, "every member in the binding", func() error {
		if n := len(missing(members, roleMembers())); n > 0 {
			return fmt.Errorf("%d missing", n)
		}
		return nil
	})
	created := time.Since(start)
	parallel(t, backendEntries, func(i int) error {
		return client.IgnoreNotFound(k8sClient.Delete(ctx, newListEntry(ns, name(i), "viewers", members[i])))
	})
	eventually(t, 3*time.Minute, "the binding back to its own member", func() error {
		if got := roleMembers(); !slices.Equal(got, []string{"group:auditors@example.com"}) {
			return fmt.Errorf("%d members", len(got))
		}
		return nil
	})
	if after := policyWithoutEtag(t, iam, resource); after != before {
		t.Errorf("the policy changed beyond its etag:\nbefore %s\nafter  %s", before, after)
	}
	st := iam.Stats()
	t.Logf("Google Cloud IAM, 3 replicas, %d entries created (all in the binding after %s) and deleted: %d requests (%.3f per change), %d commits: %v",
		backendEntries, created.Round(time.Millisecond), st.Total, float64(st.Total)/(2*backendEntries), st.Commits, st.Requests)
	for method, byCode := range st.Requests {
		if n := byCode[http.StatusUnauthorized] + byCode[http.StatusForbidden]; n != 0 {
			t.Errorf("%d %s requests were refused with a valid key", n, method)
		}
	}
}

// policyWithoutEtag is the policy as the fake serves it, with its etag
// blanked: what a write that changed nothing else leaves equal.
func policyWithoutEtag(t *testing.T, iam *iamfake.Server, resource string) string {
	t.Helper()
	raw, ok := iam.PolicyJSON(resource)
	if !ok {
		t.Fatalf("no policy for %s", resource)
	}
	var p map[string]json.RawMessage
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	delete(p, "etag")
	out, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
