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

package ec2fake_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"go.uber.org/goleak"

	"github.com/listkeeper/listkeeper/internal/storetest/ec2fake"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// start builds a started Server, closed when the test ends.
func start(t *testing.T, opts ...ec2fake.Option) *ec2fake.Server {
	t.Helper()
	s, err := ec2fake.New(opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// client returns aws-sdk-go-v2's EC2 client for s over s.Client(),
// signing with creds (the default test key when none), making one attempt
// per call.
func client(t *testing.T, s *ec2fake.Server, creds ...aws.Credentials) *ec2.Client {
	t.Helper()
	c := ec2fake.DefaultCredentials()
	if len(creds) > 0 {
		c = creds[0]
	}
	return ec2.NewFromConfig(aws.Config{
		Region:           s.Region(),
		Credentials:      credentials.NewStaticCredentialsProvider(c.AccessKeyID, c.SecretAccessKey, c.SessionToken),
		HTTPClient:       s.Client(),
		RetryMaxAttempts: 1,
	}, func(o *ec2.Options) { o.BaseEndpoint = aws.String(s.URL()) })
}

// seed creates an IPv4 list "office" with MaxEntries maxEntries and the
// entries given, and returns its ID.
func seed(t *testing.T, s *ec2fake.Server, maxEntries int32, entries ...ec2fake.Entry) string {
	t.Helper()
	id, err := s.CreatePrefixList("office", ec2fake.IPv4, maxEntries, entries...)
	if err != nil {
		t.Fatalf("CreatePrefixList: %v", err)
	}
	return id
}

// hosts returns n entries 10.x.y.z/32, described "host i".
func hosts(n int) []ec2fake.Entry {
	out := make([]ec2fake.Entry, n)
	for i := range out {
		out[i] = ec2fake.Entry{CIDR: fmt.Sprintf("10.%d.%d.%d/32", i>>16, i>>8&0xff, i&0xff), Description: fmt.Sprintf("host %d", i)}
	}
	return out
}

// describe returns the list with this ID as DescribeManagedPrefixLists
// answers it.
func describe(t *testing.T, c *ec2.Client, id string) types.ManagedPrefixList {
	t.Helper()
	out, err := c.DescribeManagedPrefixLists(t.Context(), &ec2.DescribeManagedPrefixListsInput{PrefixListIds: []string{id}})
	if err != nil {
		t.Fatalf("DescribeManagedPrefixLists: %v", err)
	}
	if len(out.PrefixLists) != 1 {
		t.Fatalf("DescribeManagedPrefixLists answered %d lists, want 1", len(out.PrefixLists))
	}
	return out.PrefixLists[0]
}

// entries reads every entry of a list (at version, when not 0), page by
// page with the SDK's paginator, and returns them with the number of
// pages.
func entries(t *testing.T, c *ec2.Client, id string, version int64) ([]types.PrefixListEntry, int) {
	t.Helper()
	in := &ec2.GetManagedPrefixListEntriesInput{PrefixListId: aws.String(id)}
	if version != 0 {
		in.TargetVersion = aws.Int64(version)
	}
	var out []types.PrefixListEntry
	pages := 0
	for p := ec2.NewGetManagedPrefixListEntriesPaginator(c, in); p.HasMorePages(); pages++ {
		page, err := p.NextPage(t.Context())
		if err != nil {
			t.Fatalf("GetManagedPrefixListEntries: %v", err)
		}
		out = append(out, page.Entries...)
	}
	return out, pages
}

func cidrs(es []types.PrefixListEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = aws.ToString(e.Cidr)
	}
	return out
}

func add(entries ...string) []types.AddPrefixListEntry {
	out := make([]types.AddPrefixListEntry, len(entries))
	for i, c := range entries {
		out[i] = types.AddPrefixListEntry{Cidr: aws.String(c)}
	}
	return out
}

func remove(entries ...string) []types.RemovePrefixListEntry {
	out := make([]types.RemovePrefixListEntry, len(entries))
	for i, c := range entries {
		out[i] = types.RemovePrefixListEntry{Cidr: aws.String(c)}
	}
	return out
}

// modify sends a ModifyManagedPrefixList of entries with this
// CurrentVersion.
func modify(ctx context.Context, c *ec2.Client, id string, version int64, a []types.AddPrefixListEntry, r []types.RemovePrefixListEntry) (*ec2.ModifyManagedPrefixListOutput, error) {
	return c.ModifyManagedPrefixList(ctx, &ec2.ModifyManagedPrefixListInput{PrefixListId: aws.String(id),
		CurrentVersion: aws.Int64(version), AddEntries: a, RemoveEntries: r})
}

// wantCode checks the error code and the HTTP status an SDK error carries.
func wantCode(t *testing.T, err error, code string, status int) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != code {
		t.Errorf("err = %v, want %s", err, code)
	}
	var re *smithyhttp.ResponseError
	if !errors.As(err, &re) || re.HTTPStatusCode() != status {
		t.Errorf("err = %v, want an answer with status %d", err, status)
	}
}

// TestDescribe: a list made with CreateManagedPrefixList is described with
// everything the SDK reads of it, alone by its ID or among others by a
// filter; an ID that names no list is InvalidPrefixListID.NotFound.
func TestDescribe(t *testing.T) {
	s := start(t)
	c := client(t, s)
	created, err := c.CreateManagedPrefixList(t.Context(), &ec2.CreateManagedPrefixListInput{
		PrefixListName: aws.String("vpn"), AddressFamily: aws.String(ec2fake.IPv6), MaxEntries: aws.Int32(20),
		Entries: []types.AddPrefixListEntry{{Cidr: aws.String("2001:DB8::/32"), Description: aws.String("office")}},
		TagSpecifications: []types.TagSpecification{{ResourceType: types.ResourceTypePrefixList,
			Tags: []types.Tag{{Key: aws.String("team"), Value: aws.String("net")}}}},
	})
	if err != nil {
		t.Fatalf("CreateManagedPrefixList: %v", err)
	}
	id := aws.ToString(created.PrefixList.PrefixListId)
	other := seed(t, s, 5)

	got := describe(t, c, id)
	want := types.ManagedPrefixList{PrefixListId: aws.String(id), PrefixListName: aws.String("vpn"), AddressFamily: aws.String("IPv6"),
		State: types.PrefixListStateCreateComplete, MaxEntries: aws.Int32(20), Version: aws.Int64(1),
		OwnerId: aws.String(ec2fake.DefaultAccountID), PrefixListArn: aws.String("arn:aws:ec2:us-east-1:123456789012:prefix-list/" + id)}
	if aws.ToString(got.PrefixListId) != id || aws.ToString(got.PrefixListName) != "vpn" || aws.ToString(got.AddressFamily) != "IPv6" ||
		got.State != want.State || aws.ToInt32(got.MaxEntries) != 20 || aws.ToInt64(got.Version) != 1 ||
		aws.ToString(got.OwnerId) != ec2fake.DefaultAccountID || aws.ToString(got.PrefixListArn) != aws.ToString(want.PrefixListArn) {
		t.Errorf("described %+v", got)
	}
	if len(got.Tags) != 1 || aws.ToString(got.Tags[0].Key) != "team" || aws.ToString(got.Tags[0].Value) != "net" {
		t.Errorf("tags = %+v", got.Tags)
	}
	if es, _ := entries(t, c, id, 0); len(es) != 1 || aws.ToString(es[0].Cidr) != "2001:db8::/32" || aws.ToString(es[0].Description) != "office" {
		t.Errorf("entries = %+v", es)
	}

	byName, err := c.DescribeManagedPrefixLists(t.Context(), &ec2.DescribeManagedPrefixListsInput{
		Filters: []types.Filter{{Name: aws.String("prefix-list-name"), Values: []string{"office"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(byName.PrefixLists) != 1 || aws.ToString(byName.PrefixLists[0].PrefixListId) != other {
		t.Errorf("filtered by name: %+v", byName.PrefixLists)
	}

	_, err = c.DescribeManagedPrefixLists(t.Context(), &ec2.DescribeManagedPrefixListsInput{PrefixListIds: []string{id, "pl-00000000000000000"}})
	wantCode(t, err, "InvalidPrefixListID.NotFound", http.StatusBadRequest)
}

// TestEntriesPaginated: a list of 250 entries is read in pages of at most
// 100, in order; after a modification, the old version is still readable
// with TargetVersion, and the current one has the change.
func TestEntriesPaginated(t *testing.T) {
	s := start(t)
	seeded := hosts(250)
	id := seed(t, s, 1000, seeded...)
	c := client(t, s)

	got, pages := entries(t, c, id, 0)
	if pages != 3 || len(got) != 250 {
		t.Fatalf("read %d entries in %d pages, want 250 in 3", len(got), pages)
	}
	for i, e := range got {
		if aws.ToString(e.Cidr) != seeded[i].CIDR || aws.ToString(e.Description) != seeded[i].Description {
			t.Fatalf("entry %d = %s %q, want %s %q", i, aws.ToString(e.Cidr), aws.ToString(e.Description), seeded[i].CIDR, seeded[i].Description)
		}
	}
	if n := s.Stats().Actions(ec2fake.ActionGetManagedPrefixListEntries); n != 3 {
		t.Errorf("%d GetManagedPrefixListEntries requests, want 3", n)
	}

	if _, err := modify(t.Context(), c, id, 1, add("192.0.2.0/24"), remove(seeded[0].CIDR)); err != nil {
		t.Fatalf("ModifyManagedPrefixList: %v", err)
	}
	old, _ := entries(t, c, id, 1)
	if !slices.Equal(cidrs(old), cidrs(got)) {
		t.Errorf("version 1 read after the change differs from version 1 read before it")
	}
	now, _ := entries(t, c, id, 0)
	if len(now) != 250 || slices.Contains(cidrs(now), seeded[0].CIDR) || !slices.Contains(cidrs(now), "192.0.2.0/24") {
		t.Errorf("version 2 = %d entries, has removed %v, has added %v", len(now),
			slices.Contains(cidrs(now), seeded[0].CIDR), slices.Contains(cidrs(now), "192.0.2.0/24"))
	}
	if v2, _ := entries(t, c, id, 2); !slices.Equal(cidrs(v2), cidrs(now)) {
		t.Error("TargetVersion 2 differs from the current version")
	}
	_, err := c.GetManagedPrefixListEntries(t.Context(), &ec2.GetManagedPrefixListEntriesInput{PrefixListId: aws.String(id), TargetVersion: aws.Int64(3)})
	wantCode(t, err, "InvalidParameterValue", http.StatusBadRequest)
}

// TestPagesUnderAForeignWriter: a read that pins TargetVersion sees one
// version whatever happens between its pages; a read that does not can
// see a change made between them.
func TestPagesUnderAForeignWriter(t *testing.T) {
	for _, pin := range []bool{true, false} {
		t.Run(fmt.Sprintf("pinned=%v", pin), func(t *testing.T) {
			s := start(t)
			seeded := hosts(150)
			id := seed(t, s, 1000, seeded...)
			var calls int
			var once sync.Once
			s.SetFaultHook(func(a string, _ *http.Request) *ec2fake.Error {
				if a != ec2fake.ActionGetManagedPrefixListEntries {
					return nil
				}
				if calls++; calls == 2 { // before the second page: the first entry goes
					once.Do(func() {
						if _, err := s.ModifyEntries(id, nil, []string{seeded[0].CIDR}); err != nil {
							t.Errorf("ModifyEntries: %v", err)
						}
					})
				}
				return nil
			})
			var version int64
			if pin {
				version = 1
			}
			got, _ := entries(t, client(t, s), id, version)
			if pin && len(got) != 150 {
				t.Errorf("pinned read saw %d entries, want version 1's 150", len(got))
			}
			if !pin && len(got) != 149 {
				t.Errorf("unpinned read saw %d entries, want 149: the second page cut from version 2 skips one", len(got))
			}
			if st := s.Stats(); st.ForeignModifies != 1 {
				t.Errorf("ForeignModifies = %d, want 1", st.ForeignModifies)
			}
		})
	}
}

// TestModifyLands: a modification with the current version adds and
// removes entries, keeps descriptions, and answers the next version.
func TestModifyLands(t *testing.T) {
	s := start(t)
	id := seed(t, s, 10, ec2fake.Entry{CIDR: "192.0.2.0/24", Description: "office"}, ec2fake.Entry{CIDR: "198.51.100.7/32"})
	c := client(t, s)
	v := aws.ToInt64(describe(t, c, id).Version)

	out, err := modify(t.Context(), c, id, v, []types.AddPrefixListEntry{{Cidr: aws.String("203.0.113.0/24"), Description: aws.String("vpn")}},
		remove("198.51.100.7/32"))
	if err != nil {
		t.Fatalf("ModifyManagedPrefixList: %v", err)
	}
	if got := aws.ToInt64(out.PrefixList.Version); got != v+1 {
		t.Errorf("answered version %d, want %d", got, v+1)
	}
	if got := aws.ToInt64(describe(t, c, id).Version); got != v+1 {
		t.Errorf("described version %d, want %d", got, v+1)
	}
	pl, _ := s.PrefixList(id)
	want := []ec2fake.Entry{{CIDR: "192.0.2.0/24", Description: "office"}, {CIDR: "203.0.113.0/24", Description: "vpn"}}
	if !slices.Equal(pl.Entries, want) {
		t.Errorf("entries = %+v, want %+v", pl.Entries, want)
	}
	if st := s.Stats(); st.Modifies() != 1 || st.VersionMismatches() != 0 {
		t.Errorf("Modifies = %d, VersionMismatches = %d", st.Modifies(), st.VersionMismatches())
	}

	renamed, err := c.ModifyManagedPrefixList(t.Context(), &ec2.ModifyManagedPrefixListInput{PrefixListId: aws.String(id), PrefixListName: aws.String("office-2")})
	if err != nil {
		t.Fatalf("rename: %v", err)
	}
	if aws.ToString(renamed.PrefixList.PrefixListName) != "office-2" || aws.ToInt64(renamed.PrefixList.Version) != v+1 {
		t.Errorf("after a rename: %+v, want the name changed and the version kept", renamed.PrefixList)
	}
}

// TestStaleCurrentVersion: another writer changes the list between the
// client's read and its modification; the modification, with the version
// it read, is refused with PrefixListVersionMismatch and changes nothing.
func TestStaleCurrentVersion(t *testing.T) {
	s := start(t)
	id := seed(t, s, 10, ec2fake.Entry{CIDR: "192.0.2.0/24"})
	c := client(t, s)
	read := aws.ToInt64(describe(t, c, id).Version)
	s.SetFaultHook(ec2fake.RunBefore(ec2fake.ActionModifyManagedPrefixList, 1, func() {
		if _, err := s.ModifyEntries(id, []ec2fake.Entry{{CIDR: "198.51.100.0/24", Description: "theirs"}}, nil); err != nil {
			t.Errorf("ModifyEntries: %v", err)
		}
	}))

	_, err := modify(t.Context(), c, id, read, add("203.0.113.0/24"), nil)
	wantCode(t, err, "PrefixListVersionMismatch", http.StatusBadRequest)
	pl, _ := s.PrefixList(id)
	want := []ec2fake.Entry{{CIDR: "192.0.2.0/24"}, {CIDR: "198.51.100.0/24", Description: "theirs"}}
	if pl.Version != read+1 || !slices.Equal(pl.Entries, want) {
		t.Errorf("list = version %d %+v: want the foreign change alone", pl.Version, pl.Entries)
	}
	if st := s.Stats(); st.VersionMismatches() != 1 || st.ForeignModifies != 1 || st.Modifies() != 0 {
		t.Errorf("VersionMismatches = %d, ForeignModifies = %d, Modifies = %d", st.VersionMismatches(), st.ForeignModifies, st.Modifies())
	}

	if _, err := modify(t.Context(), c, id, read+1, add("203.0.113.0/24"), nil); err != nil {
		t.Errorf("with the version read again: %v", err)
	}
}

// TestEntryChangeLimit: one modification adds and removes at most 100
// entries together; one beyond is refused, and changes nothing.
func TestEntryChangeLimit(t *testing.T) {
	s := start(t)
	seeded := hosts(60)
	id := seed(t, s, 1000, seeded...)
	c := client(t, s)
	fresh := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("172.16.%d.0/24", i)
		}
		return out
	}
	removals := make([]string, 0, 51)
	for _, e := range seeded[:51] {
		removals = append(removals, e.CIDR)
	}

	for _, tt := range []struct {
		name string
		a    []string
		r    []string
	}{
		{"101 additions", fresh(101), nil},
		{"50 additions and 51 removals", fresh(50), removals},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := modify(t.Context(), c, id, 1, add(tt.a...), remove(tt.r...))
			wantCode(t, err, "InvalidParameterValue", http.StatusBadRequest)
			if pl, _ := s.PrefixList(id); pl.Version != 1 {
				t.Errorf("version = %d: the refused modification changed the list", pl.Version)
			}
		})
	}
	if _, err := modify(t.Context(), c, id, 1, add(fresh(49)...), remove(removals...)); err != nil {
		t.Errorf("49 additions and 51 removals: %v", err)
	}
	if _, err := modify(t.Context(), c, id, 2, add(fresh(100)[49:]...), nil); err != nil {
		t.Errorf("51 additions: %v", err)
	}
}

// TestMaxEntries: entries beyond MaxEntries are refused; MaxEntries cannot
// change with the entries, nor go below them; raising it keeps the
// version and makes room.
func TestMaxEntries(t *testing.T) {
	s := start(t)
	id := seed(t, s, 3, ec2fake.Entry{CIDR: "192.0.2.0/24"}, ec2fake.Entry{CIDR: "198.51.100.0/24"})
	c := client(t, s)

	_, err := modify(t.Context(), c, id, 1, add("203.0.113.0/24", "203.0.113.128/25"), nil)
	wantCode(t, err, "PrefixListMaxEntriesExceeded", http.StatusBadRequest)

	_, err = c.ModifyManagedPrefixList(t.Context(), &ec2.ModifyManagedPrefixListInput{PrefixListId: aws.String(id),
		CurrentVersion: aws.Int64(1), MaxEntries: aws.Int32(5), AddEntries: add("203.0.113.0/24")})
	wantCode(t, err, "InvalidParameterCombination", http.StatusBadRequest)

	for _, n := range []int32{1, 0, 1001} {
		_, err = c.ModifyManagedPrefixList(t.Context(), &ec2.ModifyManagedPrefixListInput{PrefixListId: aws.String(id), MaxEntries: aws.Int32(n)})
		wantCode(t, err, "InvalidParameterValue", http.StatusBadRequest)
	}

	out, err := c.ModifyManagedPrefixList(t.Context(), &ec2.ModifyManagedPrefixListInput{PrefixListId: aws.String(id), MaxEntries: aws.Int32(4)})
	if err != nil {
		t.Fatalf("raise MaxEntries: %v", err)
	}
	if aws.ToInt32(out.PrefixList.MaxEntries) != 4 || aws.ToInt64(out.PrefixList.Version) != 1 {
		t.Errorf("after the resize: MaxEntries %d, version %d; want 4, 1", aws.ToInt32(out.PrefixList.MaxEntries), aws.ToInt64(out.PrefixList.Version))
	}
	if _, err := modify(t.Context(), c, id, 1, add("203.0.113.0/24", "203.0.113.128/25"), nil); err != nil {
		t.Errorf("two entries into a list of 4 with 2: %v", err)
	}
}

// TestIncorrectState: after a modification the list is
// modify-in-progress for the settle delay; a modification that meets it
// (with the new version, or from another writer) gets IncorrectState;
// once the delay has passed by the Server's clock, the list is
// modify-complete and the modification lands.
func TestIncorrectState(t *testing.T) {
	clock := newClock(time.Now())
	s := start(t, ec2fake.WithSettleDelay(30*time.Second), ec2fake.WithClock(clock.Now))
	id := seed(t, s, 10, ec2fake.Entry{CIDR: "192.0.2.0/24"})
	c := client(t, s)
	if st := describe(t, c, id).State; st != types.PrefixListStateCreateComplete {
		t.Errorf("a seeded list is %s, want create-complete", st)
	}

	out, err := modify(t.Context(), c, id, 1, add("198.51.100.0/24"), nil)
	if err != nil {
		t.Fatalf("ModifyManagedPrefixList: %v", err)
	}
	if out.PrefixList.State != types.PrefixListStateModifyInProgress || aws.ToInt64(out.PrefixList.Version) != 2 {
		t.Errorf("answered %s version %d, want modify-in-progress version 2", out.PrefixList.State, aws.ToInt64(out.PrefixList.Version))
	}
	_, err = modify(t.Context(), c, id, 2, add("203.0.113.0/24"), nil)
	wantCode(t, err, "IncorrectState", http.StatusBadRequest)
	if _, err := s.ModifyEntries(id, nil, []string{"192.0.2.0/24"}); err == nil {
		t.Error("a foreign change landed on a list in progress")
	}

	clock.Add(29 * time.Second)
	if st := describe(t, c, id).State; st != types.PrefixListStateModifyInProgress {
		t.Errorf("29s later the list is %s, want modify-in-progress", st)
	}
	clock.Add(time.Second)
	if st := describe(t, c, id).State; st != types.PrefixListStateModifyComplete {
		t.Errorf("30s later the list is %s, want modify-complete", st)
	}
	if _, err := modify(t.Context(), c, id, 2, add("203.0.113.0/24"), nil); err != nil {
		t.Errorf("after modify-complete: %v", err)
	}
	if st := s.Stats(); st.IncorrectStates() != 1 || st.Modifies() != 2 {
		t.Errorf("IncorrectStates = %d, Modifies = %d; want 1, 2", st.IncorrectStates(), st.Modifies())
	}

	created, err := c.CreateManagedPrefixList(t.Context(), &ec2.CreateManagedPrefixListInput{PrefixListName: aws.String("new"),
		AddressFamily: aws.String(ec2fake.IPv4), MaxEntries: aws.Int32(5)})
	if err != nil {
		t.Fatal(err)
	}
	if created.PrefixList.State != types.PrefixListStateCreateInProgress {
		t.Errorf("a created list is %s, want create-in-progress", created.PrefixList.State)
	}
}

// clock is a settable clock for WithClock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock(t time.Time) *clock { return &clock{now: t} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestEntryRules: CIDR blocks of the wrong family or malformed, an entry
// removed that is not there or added that is, and a block both added and
// removed are refused, and change nothing; IPv6 is compared and kept in
// canonical form.
func TestEntryRules(t *testing.T) {
	s := start(t)
	v4 := seed(t, s, 10, ec2fake.Entry{CIDR: "192.0.2.0/24"})
	v6, err := s.CreatePrefixList("v6", ec2fake.IPv6, 10, ec2fake.Entry{CIDR: "2001:DB8:0::/48"})
	if err != nil {
		t.Fatal(err)
	}
	c := client(t, s)
	tests := []struct {
		name string
		id   string
		a, r []string
		code string
	}{
		{"IPv6 into an IPv4 list", v4, []string{"2001:db8::/32"}, nil, "InvalidParameterValue"},
		{"IPv4 into an IPv6 list", v6, []string{"192.0.2.0/24"}, nil, "InvalidParameterValue"},
		{"bare address", v4, []string{"198.51.100.7"}, nil, "InvalidParameterValue"},
		{"host bits set", v4, []string{"198.51.100.7/24"}, nil, "InvalidParameterValue"},
		{"not an address", v4, []string{"office/24"}, nil, "InvalidParameterValue"},
		{"prefix too long", v4, []string{"198.51.100.0/33"}, nil, "InvalidParameterValue"},
		{"removal of an absent entry", v4, nil, []string{"198.51.100.0/24"}, "InvalidPrefixListModification"},
		{"addition of a present entry", v4, []string{"192.0.2.0/24"}, nil, "InvalidPrefixListModification"},
		{"present IPv6 entry in another spelling", v6, []string{"2001:db8::/48"}, nil, "InvalidPrefixListModification"},
		{"added and removed", v4, []string{"192.0.2.0/24"}, []string{"192.0.2.0/24"}, "InvalidParameterValue"},
		{"added twice", v4, []string{"198.51.100.0/24", "198.51.100.0/24"}, nil, "InvalidParameterValue"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := modify(t.Context(), c, tt.id, 1, add(tt.a...), remove(tt.r...))
			wantCode(t, err, tt.code, http.StatusBadRequest)
			if pl, _ := s.PrefixList(tt.id); pl.Version != 1 {
				t.Errorf("version = %d: the refused modification changed the list", pl.Version)
			}
		})
	}
	if pl, _ := s.PrefixList(v6); pl.Entries[0].CIDR != "2001:db8::/48" {
		t.Errorf("IPv6 entry kept as %q", pl.Entries[0].CIDR)
	}
	long := make([]byte, ec2fake.MaxDescriptionLength+1)
	for i := range long {
		long[i] = 'x'
	}
	_, err = modify(t.Context(), c, v4, 1, []types.AddPrefixListEntry{{Cidr: aws.String("198.51.100.0/24"), Description: aws.String(string(long))}}, nil)
	wantCode(t, err, "InvalidParameterValue", http.StatusBadRequest)
	if _, err := modify(t.Context(), c, v4, 1, []types.AddPrefixListEntry{{Cidr: aws.String("198.51.100.0/24"), Description: aws.String(string(long[1:]))}}, nil); err != nil {
		t.Errorf("a description of %d characters: %v", ec2fake.MaxDescriptionLength, err)
	}
	if _, err := modify(t.Context(), c, "pl-00000000000000000", 1, add("198.51.100.0/24"), nil); err == nil {
		t.Error("a modification of no list succeeded")
	} else {
		wantCode(t, err, "InvalidPrefixListID.NotFound", http.StatusBadRequest)
	}
}

// TestThrottling: RequestLimitExceeded reaches the SDK as a 503 with its
// code, and the SDK's standard retryer retries it by itself.
func TestThrottling(t *testing.T) {
	t.Run("one attempt", func(t *testing.T) {
		s := start(t, ec2fake.WithFaultHook(ec2fake.FailFirst(ec2fake.ActionModifyManagedPrefixList, 1, ec2fake.RequestLimitExceeded)))
		id := seed(t, s, 10)
		_, err := modify(t.Context(), client(t, s), id, 1, add("192.0.2.0/24"), nil)
		wantCode(t, err, "RequestLimitExceeded", http.StatusServiceUnavailable)
		if pl, _ := s.PrefixList(id); pl.Version != 1 {
			t.Error("a throttled modification changed the list")
		}
	})
	t.Run("throttled twice, then served by the SDK's own retry", func(t *testing.T) {
		s := start(t, ec2fake.WithFaultHook(ec2fake.FailFirst(ec2fake.ActionModifyManagedPrefixList, 2, ec2fake.RequestLimitExceeded)))
		id := seed(t, s, 10)
		c := ec2.New(client(t, s).Options(), func(o *ec2.Options) {
			o.RetryMaxAttempts = 0 // the retryer's own
			o.Retryer = retry.NewStandard(func(o *retry.StandardOptions) {
				o.MaxAttempts = 3
				o.RateLimiter = ratelimit.None
				o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return time.Millisecond, nil })
			})
		})
		if _, err := modify(t.Context(), c, id, 1, add("192.0.2.0/24"), nil); err != nil {
			t.Fatalf("ModifyManagedPrefixList: %v", err)
		}
		st := s.Stats()
		if st.Count(ec2fake.ActionModifyManagedPrefixList, http.StatusServiceUnavailable) != 2 || st.Modifies() != 1 || st.CountCode("RequestLimitExceeded") != 2 {
			t.Errorf("stats = %+v, want two throttled and one served modification", st.Requests)
		}
		if pl, _ := s.PrefixList(id); pl.Version != 2 {
			t.Errorf("version = %d, want 2: the retried modification lands once", pl.Version)
		}
	})
}

// TestDroppedConnections: DropConnection ends a modification without an
// answer and without running it; DropAnswer runs it first, so it lands
// although the client saw no answer, and a retry with the same
// CurrentVersion is then refused as stale.
func TestDroppedConnections(t *testing.T) {
	for _, tt := range []struct {
		name  string
		fault func() *ec2fake.Error
		lands bool
	}{
		{"DropConnection", ec2fake.DropConnection, false},
		{"DropAnswer", ec2fake.DropAnswer, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, ec2fake.WithFaultHook(ec2fake.FailFirst(ec2fake.ActionModifyManagedPrefixList, 1, tt.fault)))
			id := seed(t, s, 10)
			c := client(t, s)
			_, err := modify(t.Context(), c, id, 1, add("203.0.113.0/24"), nil)
			var re *smithyhttp.ResponseError
			if err == nil || (errors.As(err, &re) && re.HTTPStatusCode() != 0) {
				t.Fatalf("err = %v, want a request that got no answer", err)
			}
			pl, _ := s.PrefixList(id)
			if landed := pl.Version == 2; landed != tt.lands {
				t.Errorf("modification landed = %v, want %v", landed, tt.lands)
			}
			recs := s.Requests()
			if last := recs[len(recs)-1]; !last.Dropped || last.Status != 0 || last.Action != ec2fake.ActionModifyManagedPrefixList || last.PrefixListID != id {
				t.Errorf("last record = %+v", last)
			}
			_, err = modify(t.Context(), c, id, 1, add("203.0.113.0/24"), nil)
			if tt.lands {
				wantCode(t, err, "PrefixListVersionMismatch", http.StatusBadRequest)
			} else if err != nil {
				t.Errorf("retry: %v", err)
			}
		})
	}
}

// TestLongAnswers: pages of 100 entries with long descriptions (answers of
// some 30 KiB, longer than a client's read buffer) arrive whole, read after
// read, through Client. Over a plain http.Client the SDK cuts such answers
// short now and then on loopback (see Client).
func TestLongAnswers(t *testing.T) {
	s := start(t)
	long := make([]ec2fake.Entry, ec2fake.MaxResults)
	for i, e := range hosts(len(long)) {
		long[i] = ec2fake.Entry{CIDR: e.CIDR, Description: fmt.Sprintf("%0*d", ec2fake.MaxDescriptionLength, i)}
	}
	id := seed(t, s, 1000, long...)
	c := client(t, s)
	for i := range 50 {
		out, err := c.GetManagedPrefixListEntries(t.Context(), &ec2.GetManagedPrefixListEntriesInput{PrefixListId: aws.String(id)})
		if err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
		if len(out.Entries) != len(long) {
			t.Fatalf("read %d: %d entries, want %d", i, len(out.Entries), len(long))
		}
	}
}
