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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/listkeeper/listkeeper/internal/storetest/wafv2fake"
	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

// The WAFv2 store's IP set, and what its entries hold. An IP set holds
// CIDRs only, so in wafv2 mode every ID on the list is an address block:
// the demo entries' of 10.0.0.0/8 (wafv2EntryID), the bystanders' of the
// documentation ranges 198.51.100.0/24 and 192.0.2.0/24
// (wafv2Bystanders), and the sample entry's 203.0.113.0/24, so that no two
// kinds can meet.
const (
	// wafv2SetName is the IP set's name, the samples' list name.
	wafv2SetName = sampleList
	// wafv2SampleID is the ID of the sample entry in wafv2 mode, which
	// stands in for the samples' "tenant-a".
	wafv2SampleID = "203.0.113.0/24"
	// wafv2LockCode is WAF's error code for an UpdateIPSet whose lock
	// token is stale: a lost race, answered 400 like every other client
	// error.
	wafv2LockCode = "WAFOptimisticLockException"
	// wafv2MaxEntries is the most demo entries the set has room for beside
	// the bystanders and the sample entry: WAF holds at most
	// wafv2fake.MaxAddresses addresses in a set.
	wafv2MaxEntries = wafv2fake.MaxAddresses - bystanders - 1
)

// wafv2Store is an in-process AWS WAFv2 IP-set API
// (internal/storetest/wafv2fake) that checks the managers' SigV4
// signatures and WAF's lock tokens. The list is one IP set: its addresses
// are the items, and its description stands for the document's other
// content, which every UpdateIPSet must carry back (docOwner). The demo
// reads the set without a request, so the request counts are the
// managers' alone.
type wafv2Store struct {
	srv *wafv2fake.Server
	id  string // the IP set's ID, as the fake assigned it
}

// startWAFv2Store starts the API on a free port of 127.0.0.1 with an IP set
// of scope REGIONAL holding addresses, whose description is docOwner.
func startWAFv2Store(addresses []string) (*wafv2Store, error) {
	srv, err := wafv2fake.New()
	if err != nil {
		return nil, err
	}
	id, err := srv.CreateIPSet(wafv2fake.ScopeRegional, wafv2SetName, docOwner, wafv2fake.IPv4, addresses)
	if err != nil {
		return nil, fmt.Errorf("create IP set %s: %w", wafv2SetName, err)
	}
	srv.Start()
	return &wafv2Store{srv: srv, id: id}, nil
}

func (s *wafv2Store) kind() string { return storeWAFv2 }

// url is the location the operator shows for the set (internal/controller
// names a WAFv2 list so in its logs and conditions).
func (s *wafv2Store) url() string {
	return fmt.Sprintf("wafv2://%s/%s/%s/%s", s.srv.Region(), wafv2fake.ScopeRegional, wafv2SetName, s.id)
}

// endpoint is the API's base URL, the ExternalList's spec.wafv2.endpoint.
func (s *wafv2Store) endpoint() string { return s.srv.URL() }

func (s *wafv2Store) describe() string {
	return fmt.Sprintf("in-process AWS WAFv2 IP-set API (wafv2fake: SigV4 verified, lock tokens checked) on %s, region %s, IP set %s (%s, id %s)",
		s.srv.URL(), s.srv.Region(), wafv2SetName, wafv2fake.ScopeRegional, s.id)
}

// document reads the set as a document: its addresses are the items, and
// its description the field "owner", so that the demo's check that the
// field survived every write checks that every UpdateIPSet carried the
// description back (WAF drops a description an update leaves out).
func (s *wafv2Store) document(context.Context) (harness.Document, error) {
	set, ok := s.srv.IPSet(wafv2fake.ScopeRegional, s.id)
	if !ok {
		return harness.Document{}, fmt.Errorf("IP set %s (%s) is gone", wafv2SetName, s.id)
	}
	owner, err := json.Marshal(set.Description)
	if err != nil {
		return harness.Document{}, err
	}
	return harness.Document{Items: set.Addresses, Fields: map[string]json.RawMessage{"owner": owner}}, nil
}

// stats counts by operation (GetIPSet, UpdateIPSet) and status; the lost
// races are the answers with WAF's lock error code, not every 400.
func (s *wafv2Store) stats(context.Context) (storeStats, error) {
	return wafv2Stats(s.srv.Stats()), nil
}

// wafv2Stats maps the fake's counts into the demo's.
func wafv2Stats(st wafv2fake.Stats) storeStats {
	return storeStats{Requests: cloneCounts(st.Requests), Total: st.Total,
		Conflicts: st.CountCode(wafv2LockCode), Codes: maps.Clone(st.Codes)}
}

// lostRace: an UpdateIPSet with a stale lock token gets 400
// WAFOptimisticLockException.
func (s *wafv2Store) lostRace() lostRace {
	return lostRace{label: "WAFOptimisticLock", rows: []requestRow{{wafv2fake.OpUpdateIPSet, http.StatusBadRequest}}}
}

// outsideWriter: none. The fake's SetAddresses writes without a lock
// token, so an edit made with it could undo an operator's write between
// its read and its write, and the demo would count that as the operator's
// lost update; an honest outside writer would sign UpdateIPSet requests
// of its own.
func (s *wafv2Store) outsideWriter([]string) *harness.OutsideWriter { return nil }

func (s *wafv2Store) hint() string {
	return fmt.Sprintf("AWS_ACCESS_KEY_ID=%s AWS_SECRET_ACCESS_KEY='%s' aws wafv2 get-ip-set --region %s --endpoint-url %s --scope %s --name %s --id %s",
		wafv2fake.TestAccessKeyID, wafv2fake.TestSecretAccessKey, s.srv.Region(), s.srv.URL(), wafv2fake.ScopeRegional, wafv2SetName, s.id)
}

// evidence writes list.json (the set: addresses, description, lock
// token), stats.json (the counts) and requests.json (the request log)
// into dir.
func (s *wafv2Store) evidence(_ context.Context, _ *harness.Evidence, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var errs []error
	if set, ok := s.srv.IPSet(wafv2fake.ScopeRegional, s.id); !ok {
		errs = append(errs, fmt.Errorf("IP set %s (%s) is gone", wafv2SetName, s.id))
	} else {
		errs = append(errs, writeJSON(filepath.Join(dir, "list.json"), set))
	}
	st, _ := s.stats(context.Background())
	errs = append(errs, writeJSON(filepath.Join(dir, "stats.json"), st), writeJSON(filepath.Join(dir, "requests.json"), s.srv.Requests()))
	return errors.Join(errs...)
}

func (s *wafv2Store) close() { s.srv.Close() }

// wafv2EntryID maps a demo entry's name to an address of its own: the
// entry's number counted from 10.0.0.0, as a /32 (demo-0042 is
// 10.0.0.42/32, demo-0300 10.0.1.44/32). 10.0.0.0/8 holds far more
// addresses than a set may (wafv2MaxEntries). A name without a number in
// range is returned as it is, and the operator refuses it as an ID.
func wafv2EntryID(name string) string {
	i := strings.LastIndexByte(name, '-')
	n, err := strconv.Atoi(name[i+1:])
	if err != nil || n < 0 || n >= 1<<24 {
		return name
	}
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(n >> 16), byte(n >> 8), byte(n)}), 32).String()
}

// wafv2Bystanders returns n (at most 256) addresses that are in the set
// before the operator touches it: the block 198.51.100.0/24, then
// 192.0.2.1/32 onwards, so that the list starts with a range as well as
// single addresses.
func wafv2Bystanders(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		if i == 0 {
			ids[i] = "198.51.100.0/24"
			continue
		}
		ids[i] = netip.PrefixFrom(netip.AddrFrom4([4]byte{192, 0, 2, byte(i)}), 32).String()
	}
	return ids
}
