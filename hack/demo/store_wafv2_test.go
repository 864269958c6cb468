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

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/wafv2"
	"github.com/aws/aws-sdk-go-v2/service/wafv2/types"
	"github.com/aws/smithy-go"

	"github.com/listkeeper/listkeeper/internal/storetest/wafv2fake"
	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

// wafv2Client returns aws-sdk-go-v2's WAFv2 client for the store's API,
// signing with the test key, one attempt per call.
func wafv2Client(t *testing.T, s *wafv2Store) *wafv2.Client {
	t.Helper()
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	t.Cleanup(hc.CloseIdleConnections)
	return wafv2.NewFromConfig(aws.Config{
		Region:           wafv2fake.DefaultRegion,
		Credentials:      credentials.NewStaticCredentialsProvider(wafv2fake.TestAccessKeyID, wafv2fake.TestSecretAccessKey, ""),
		HTTPClient:       hc,
		RetryMaxAttempts: 1,
	}, func(o *wafv2.Options) { o.BaseEndpoint = aws.String(s.endpoint()) })
}

// errorCode returns the AWS error code of err, "" for none.
func errorCode(err error) string {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode()
	}
	return ""
}

// TestWAFv2Store drives the demo's WAFv2 store with the SDK's own client
// over loopback, as two writers racing and as a writer that errs, and
// checks what the demo reads from it: a lost race is counted by WAF's
// error code, not by its status (every client error is a 400); the
// document's items are the set's addresses and its field "owner" the
// set's description, so an update that drops the description shows; and
// the evidence and the hint name the set.
func TestWAFv2Store(t *testing.T) {
	ctx := context.Background()
	by := wafv2Bystanders(bystanders)
	s, err := startWAFv2Store(by)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if st, _ := s.stats(ctx); st.Total != 0 || st.Conflicts != 0 || !st.known() {
		t.Fatalf("stats before any request = %+v, want known and empty (the demo's own reads make no request)", st)
	}
	doc, err := s.document(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(doc.Items, by) || doc.Field("owner") != docOwner {
		t.Fatalf("seeded document = %+v, want the bystanders and owner %q", doc, docOwner)
	}

	c := wafv2Client(t, s)
	name, scope := aws.String(wafv2SetName), types.ScopeRegional
	get := func() *wafv2.GetIPSetOutput {
		t.Helper()
		out, err := c.GetIPSet(ctx, &wafv2.GetIPSetInput{Name: name, Scope: scope, Id: aws.String(s.id)})
		if err != nil {
			t.Fatalf("GetIPSet: %v", err)
		}
		return out
	}
	update := func(read *wafv2.GetIPSetOutput, addresses []string, description *string) error {
		_, err := c.UpdateIPSet(ctx, &wafv2.UpdateIPSetInput{Name: name, Scope: scope, Id: aws.String(s.id),
			Addresses: addresses, Description: description, LockToken: read.LockToken})
		return err
	}
	// Two writers read the same lock token; the first to write wins.
	first, second := get(), get()
	added := append(slices.Clone(first.IPSet.Addresses), "10.0.0.1/32")
	if err := update(first, added, first.IPSet.Description); err != nil {
		t.Fatalf("first UpdateIPSet: %v", err)
	}
	if err := update(second, append(slices.Clone(second.IPSet.Addresses), "10.0.0.2/32"), second.IPSet.Description); errorCode(err) != wafv2LockCode {
		t.Fatalf("second UpdateIPSet with the same lock token: %v, want %s", err, wafv2LockCode)
	}
	// A 400 that is no race: an address with host bits set.
	if err := update(get(), append(slices.Clone(added), "10.0.0.3/24"), first.IPSet.Description); errorCode(err) != "WAFInvalidParameterException" {
		t.Fatalf("UpdateIPSet with 10.0.0.3/24: %v, want WAFInvalidParameterException", err)
	}

	st, err := s.stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantRequests := map[string]map[int]int64{wafv2fake.OpGetIPSet: {200: 3}, wafv2fake.OpUpdateIPSet: {200: 1, 400: 2}}
	if st.Total != 6 || !maps.EqualFunc(st.Requests, wantRequests, maps.Equal) {
		t.Errorf("stats = %d requests %v, want 6 %v", st.Total, st.Requests, wantRequests)
	}
	if st.Conflicts != 1 || st.count(http.StatusBadRequest) != 2 {
		t.Errorf("conflicts = %d of %d 400s, want only the lost race: 1 of 2", st.Conflicts, st.count(http.StatusBadRequest))
	}
	if want := map[string]int64{wafv2LockCode: 1, "WAFInvalidParameterException": 1}; !maps.Equal(st.Codes, want) {
		t.Errorf("error codes = %v, want %v", st.Codes, want)
	}
	if doc, err = s.document(ctx); err != nil || !slices.Equal(doc.Items, added) || doc.Field("owner") != docOwner {
		t.Errorf("document = %+v, %v; want the bystanders and 10.0.0.1/32, owner %q", doc, err, docOwner)
	}

	// The tables: the lost race in its own row, apart from the other 400.
	sum := summary{store: storeWAFv2, race: s.lostRace(), replicas: []string{"manager-1"},
		phases: []phaseResult{{name: "create", finished: true, changes: 1, requests: st.Total, conflicts: st.Conflicts, store: st}}}
	var b bytes.Buffer
	sum.render(&b)
	for _, want := range []string{
		"req/change  WAFOptimisticLock  lost\n",
		"list store: wafv2 (the operator's requests only, by operation and status, then the errors by error code)\n" +
			"wafv2 requests                  create  total\n" +
			"GetIPSet 200                         3      3\n" +
			"UpdateIPSet 200                      1      1\n" +
			"UpdateIPSet 400                      2      2\n" +
			"  WAFInvalidParameterException       1      1\n" +
			"  WAFOptimisticLockException         1      1\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("render lacks\n%s\ngot:\n%s", want, b.String())
		}
	}

	// An update that leaves the description out drops it, as WAF does:
	// the demo's check of the field "owner" sees that.
	if err := update(get(), added, nil); err != nil {
		t.Fatalf("UpdateIPSet without a description: %v", err)
	}
	if doc, err = s.document(ctx); err != nil || doc.Field("owner") != "" {
		t.Errorf("owner after an update without a description = %q, %v; want none", doc.Field("owner"), err)
	}

	dir := filepath.Join(t.TempDir(), "evidence")
	if err := s.evidence(ctx, &harness.Evidence{}, dir); err != nil {
		t.Fatal(err)
	}
	var set wafv2fake.IPSet
	readJSON(t, filepath.Join(dir, "list.json"), &set)
	if set.ID != s.id || set.Name != wafv2SetName || !slices.Equal(set.Addresses, added) || set.LockToken == "" {
		t.Errorf("list.json = %+v, want the set %s with its addresses and lock token", set, s.id)
	}
	var saved storeStats
	readJSON(t, filepath.Join(dir, "stats.json"), &saved)
	if saved.Total != 8 || saved.Conflicts != 1 {
		t.Errorf("stats.json = %+v, want 8 requests, 1 lost race", saved)
	}
	var log []wafv2fake.Record
	readJSON(t, filepath.Join(dir, "requests.json"), &log)
	if len(log) != 8 || log[3].Code != wafv2LockCode {
		t.Errorf("requests.json = %+v, want 8 requests, the 4th lost", log)
	}

	hint := s.hint()
	for _, want := range []string{"AWS_ACCESS_KEY_ID=" + wafv2fake.TestAccessKeyID, "aws wafv2 get-ip-set", "--endpoint-url " + s.endpoint(),
		"--scope REGIONAL", "--name " + wafv2SetName, "--id " + s.id, "--region " + wafv2fake.DefaultRegion} {
		if !strings.Contains(hint, want) {
			t.Errorf("hint %q lacks %q", hint, want)
		}
	}
	if s.outsideWriter(harness.OutsideIDs(outsidePrefix, 1)) != nil {
		t.Error("the WAFv2 store offers an outside writer; its writes carry no lock token and would undo the operator's")
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestWAFv2IDs checks the IDs of wafv2 mode against the fake's own rules:
// the most demo entries --entries allows, with the bystanders and the
// sample entry, fill an IP set exactly, every one a CIDR that WAF keeps as
// it is spelled (so the demo's comparisons by text hold), none twice, and
// no demo entry's block overlapping a bystander's or the sample's.
func TestWAFv2IDs(t *testing.T) {
	names := harness.EntryNames("demo", wafv2MaxEntries)
	ids := harness.Entries{ID: wafv2EntryID}.IDsOf(names)
	for i, want := range map[int]string{0: "10.0.0.0/32", 42: "10.0.0.42/32", 300: "10.0.1.44/32", wafv2MaxEntries - 1: "10.0.38.220/32"} {
		if ids[i] != want {
			t.Errorf("ID of %s = %q, want %q", names[i], ids[i], want)
		}
	}
	if got := wafv2EntryID("tenant-a"); got != "tenant-a" {
		t.Errorf("wafv2EntryID(tenant-a) = %q, want it unchanged", got)
	}
	others := append(wafv2Bystanders(bystanders), wafv2SampleID)
	all := append(slices.Clone(others), ids...)
	if len(all) != wafv2fake.MaxAddresses {
		t.Fatalf("%d addresses, want the set's quota %d", len(all), wafv2fake.MaxAddresses)
	}
	if n := len(slices.Compact(slices.Sorted(slices.Values(all)))); n != len(all) {
		t.Errorf("%d distinct IDs of %d", n, len(all))
	}
	for _, o := range others {
		op := netip.MustParsePrefix(o)
		for _, id := range ids {
			if netip.MustParsePrefix(id).Overlaps(op) {
				t.Fatalf("entry address %s overlaps %s", id, o)
			}
		}
	}
	srv, err := wafv2fake.New()
	if err != nil {
		t.Fatal(err)
	}
	id, err := srv.CreateIPSet(wafv2fake.ScopeRegional, wafv2SetName, docOwner, wafv2fake.IPv4, all)
	if err != nil {
		t.Fatalf("the fake refuses the demo's addresses: %v", err)
	}
	if set, _ := srv.IPSet(wafv2fake.ScopeRegional, id); !slices.Equal(set.Addresses, all) || set.Description != docOwner {
		t.Errorf("the set holds the addresses respelled, or lost the description %q", docOwner)
	}
	if _, err := srv.CreateIPSet(wafv2fake.ScopeRegional, "more", "", wafv2fake.IPv4, append(all, wafv2EntryID("demo-9949"))); err == nil {
		t.Error("a set took one address more than the quota: --entries could allow more")
	}
	for _, entries := range []string{"1", "200", "9949"} {
		if _, err := parseFlags([]string{"--store=wafv2", "--entries", entries}, io.Discard); err != nil {
			t.Errorf("--store=wafv2 --entries %s: %v", entries, err)
		}
	}
	if _, err := parseFlags([]string{"--store=wafv2", "--entries", "9950"}, io.Discard); err == nil {
		t.Error("--store=wafv2 --entries 9950 accepted: the set has no room for them")
	}
	if _, err := parseFlags([]string{"--store=s3", "--entries", "9950"}, io.Discard); err != nil {
		t.Errorf("--store=s3 --entries 9950: %v, want no WAF limit", err)
	}
}
