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

package ipgroupfake_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/storetest/ipgroupfake"
)

// TestDocumentAsSent: what a write sends comes back byte for byte, but
// for the read-only fields, which the Server sets; the answer to the
// write is 201 or 200 with Updating and an nfvOperations URL, which
// reports the operation's status.
func TestDocumentAsSent(t *testing.T) {
	s := start(t)
	tok := issue(t, s, ipgroupfake.Audiences[3], time.Hour)
	const sent = `{"location": "West Europe", "tags": {"b": "2",  "a":"1"}, "zones":[ "1" ], "etag":"W/\"bogus\"", "id":"/x",
		"properties": {"ipAddresses": [ "10.0.0.1",  "10.0.0.0/8" ], "provisioningState":"Deleting", "firewalls":[{"id":"/f"}]}}`
	status, h, body := send(t, s, http.MethodPut, groupURL(s, "Office"), tok, sent, "Content-Type", "application/json")
	if status != http.StatusCreated {
		t.Fatalf("PUT: %d %s", status, body)
	}
	for _, want := range []string{
		`"location":"West Europe"`, `"tags":{"b": "2",  "a":"1"}`, `"zones":[ "1" ]`,
		`"ipAddresses":[ "10.0.0.1",  "10.0.0.0/8" ]`, `"provisioningState":"Updating"`,
		`"firewalls":[]`, `"firewallPolicies":[]`, `"type":"Microsoft.Network/ipGroups"`, `"name":"Office"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("answer lacks %s: %s", want, body)
		}
	}
	if strings.Contains(body, "bogus") || strings.Contains(body, "Deleting") || strings.Contains(body, `"/x"`) || strings.Contains(body, `"/f"`) {
		t.Errorf("a read-only field was taken from the client: %s", body)
	}
	op := h.Get("Azure-AsyncOperation")
	if !strings.HasPrefix(op, s.URL()+"/subscriptions/"+s.SubscriptionID()+"/providers/Microsoft.Network/locations/westeurope/nfvOperations/") {
		t.Errorf("Azure-AsyncOperation = %q", op)
	}
	if _, _, opBody := send(t, s, http.MethodGet, op, tok, ""); opBody != `{"status":"Succeeded"}` {
		t.Errorf("operation status = %s", opBody)
	}

	// The name is not case-sensitive; the group keeps the case it was
	// created with, and the GET shows what the PUT's answer did, settled.
	_, _, got := send(t, s, http.MethodGet, groupURL(s, "office"), tok, "")
	if want := strings.Replace(body, `"provisioningState":"Updating"`, `"provisioningState":"Succeeded"`, 1); got != want {
		t.Errorf("GET = %s\nwant %s", got, want)
	}
	if doc, _ := s.GroupJSON(rg, "OFFICE"); string(doc) != got {
		t.Errorf("GroupJSON = %s", doc)
	}
	if g, _ := s.Group(rg, "office"); g.Location != "West Europe" || g.Tags["a"] != "1" || len(g.Addresses) != 2 {
		t.Errorf("Group = %+v", g)
	}

	status, _, _ = send(t, s, http.MethodPut, groupURL(s, "office"), tok, `{"location":"westeurope","properties":{"ipAddresses":[]}}`)
	if status != http.StatusOK {
		t.Errorf("update: %d", status)
	}
	var doc map[string]any
	_, _, got = send(t, s, http.MethodGet, groupURL(s, "office"), tok, "")
	if err := json.Unmarshal([]byte(got), &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc["tags"]; ok {
		t.Errorf("tags kept by a write without them: %s", got)
	}
}

// TestRequestRefusals: the answers to requests the Server refuses before
// or instead of a write.
func TestRequestRefusals(t *testing.T) {
	s := start(t)
	seed(t, s)
	tok := issue(t, s, ipgroupfake.Audiences[2], time.Hour)
	base := s.URL() + "/subscriptions/" + s.SubscriptionID() + "/resourceGroups/" + rg + "/providers/Microsoft.Network/ipGroups/allow"
	for _, tt := range []struct {
		name, method, url, body string
		status                  int
		code                    string
	}{
		{"no api-version", http.MethodGet, base, "", http.StatusBadRequest, "MissingApiVersionParameter"},
		{"another subscription", http.MethodGet, strings.Replace(groupURL(s, "allow"), s.SubscriptionID(), "11111111-0000-4000-8000-000000000000", 1), "", http.StatusNotFound, "SubscriptionNotFound"},
		{"DELETE", http.MethodDelete, groupURL(s, "allow"), "", http.StatusMethodNotAllowed, "MethodNotAllowed"},
		{"another resource type", http.MethodGet, strings.Replace(groupURL(s, "allow"), "ipGroups", "azureFirewalls", 1), "", http.StatusNotFound, "InvalidResourceType"},
		{"unknown operation", http.MethodGet, s.URL() + "/subscriptions/" + s.SubscriptionID() + "/providers/Microsoft.Network/locations/westeurope/nfvOperations/x?api-version=1", "", http.StatusNotFound, "OperationNotFound"},
		{"not JSON", http.MethodPut, groupURL(s, "allow"), "location=westeurope", http.StatusBadRequest, ipgroupfake.CodeInvalidRequestFormat},
		{"addresses not strings", http.MethodPut, groupURL(s, "allow"), `{"location":"westeurope","properties":{"ipAddresses":[1]}}`, http.StatusBadRequest, ipgroupfake.CodeInvalidRequestFormat},
		{"tags not strings", http.MethodPut, groupURL(s, "allow"), `{"location":"westeurope","tags":{"a":1}}`, http.StatusBadRequest, ipgroupfake.CodeInvalidRequestFormat},
		{"no location", http.MethodPut, groupURL(s, "allow"), `{"properties":{"ipAddresses":["10.0.0.1"]}}`, http.StatusBadRequest, ipgroupfake.CodeLocationRequired},
		{"another location", http.MethodPut, groupURL(s, "allow"), `{"location":"eastus"}`, http.StatusBadRequest, ipgroupfake.CodeInvalidResourceLocation},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, _, body := send(t, s, tt.method, tt.url, tok, tt.body)
			if status != tt.status || armCode(t, body) != tt.code {
				t.Errorf("answer %d %s, want %d %s", status, body, tt.status, tt.code)
			}
		})
	}
	if st := s.Stats(); st.Writes != 0 {
		t.Errorf("%d writes accepted", st.Writes)
	}
	// The same location, spelt as its display name, is not another one.
	if status, _, body := send(t, s, http.MethodPut, groupURL(s, "allow"), tok, `{"location":"West Europe"}`); status != http.StatusOK {
		t.Errorf("location by display name: %d %s", status, body)
	}
}

// TestPollRetryAfter: WithPollRetryAfter puts Retry-After on a write's
// answer and on each InProgress poll, as Azure does.
func TestPollRetryAfter(t *testing.T) {
	clk := newClock()
	s := start(t, ipgroupfake.WithClock(clk.Now), ipgroupfake.WithOperationDelay(time.Minute), ipgroupfake.WithPollRetryAfter(10*time.Second))
	tok := issue(t, s, ipgroupfake.Audiences[2], time.Hour)
	_, h, _ := send(t, s, http.MethodPut, groupURL(s, "g"), tok, `{"location":"westeurope"}`)
	if h.Get("Retry-After") != "10" {
		t.Errorf("write: Retry-After = %q", h.Get("Retry-After"))
	}
	_, ph, body := send(t, s, http.MethodGet, h.Get("Azure-AsyncOperation"), tok, "")
	if ph.Get("Retry-After") != "10" || body != `{"status":"InProgress"}` {
		t.Errorf("poll: Retry-After %q, %s", ph.Get("Retry-After"), body)
	}
	clk.Advance(time.Minute)
	_, ph, body = send(t, s, http.MethodGet, h.Get("Azure-AsyncOperation"), tok, "")
	if ph.Get("Retry-After") != "" || body != `{"status":"Succeeded"}` {
		t.Errorf("done: Retry-After %q, %s", ph.Get("Retry-After"), body)
	}
}

// TestNewRefusesBadOptions: New names what is wrong with its options.
func TestNewRefusesBadOptions(t *testing.T) {
	for name, opt := range map[string]ipgroupfake.Option{
		"subscription":  ipgroupfake.WithSubscriptionID("a/b"),
		"clock":         ipgroupfake.WithClock(nil),
		"body":          ipgroupfake.WithMaxBodyBytes(0),
		"lifetime":      ipgroupfake.WithTokenLifetime(0),
		"delay":         ipgroupfake.WithOperationDelay(-time.Second),
		"busy":          ipgroupfake.WithBusyAnswer(7),
		"no principals": ipgroupfake.WithServicePrincipals(),
		"no secret":     ipgroupfake.WithServicePrincipals(ipgroupfake.ServicePrincipal{TenantID: "t", ClientID: "c"}),
	} {
		if _, err := ipgroupfake.New(opt); err == nil {
			t.Errorf("%s: New accepted it", name)
		}
	}
}
