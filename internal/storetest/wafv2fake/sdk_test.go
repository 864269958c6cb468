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

package wafv2fake_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/wafv2"
	"github.com/aws/aws-sdk-go-v2/service/wafv2/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"go.uber.org/goleak"

	"github.com/listkeeper/listkeeper/internal/storetest/wafv2fake"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// start builds a started Server, closed when the test ends.
func start(t *testing.T, opts ...wafv2fake.Option) *wafv2fake.Server {
	t.Helper()
	s, err := wafv2fake.New(opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// client returns aws-sdk-go-v2's WAFv2 client for s, signing with creds
// (the default test key when none), making one attempt per call.
func client(t *testing.T, s *wafv2fake.Server, creds ...aws.Credentials) *wafv2.Client {
	t.Helper()
	c := wafv2fake.DefaultCredentials()
	if len(creds) > 0 {
		c = creds[0]
	}
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	t.Cleanup(hc.CloseIdleConnections)
	return wafv2.NewFromConfig(aws.Config{
		Region:           s.Region(),
		Credentials:      credentials.NewStaticCredentialsProvider(c.AccessKeyID, c.SecretAccessKey, c.SessionToken),
		HTTPClient:       hc,
		RetryMaxAttempts: 1,
	}, func(o *wafv2.Options) { o.BaseEndpoint = aws.String(s.URL()) })
}

// seed creates an IPv4 set named "allow" with a description and two
// addresses, and returns its ID.
func seed(t *testing.T, s *wafv2fake.Server) string {
	t.Helper()
	id, err := s.CreateIPSet(wafv2fake.ScopeRegional, "allow", "office and VPN", wafv2fake.IPv4, []string{"192.0.2.0/24", "198.51.100.7/32"})
	if err != nil {
		t.Fatalf("CreateIPSet: %v", err)
	}
	return id
}

func get(t *testing.T, c *wafv2.Client, id string) *wafv2.GetIPSetOutput {
	t.Helper()
	out, err := c.GetIPSet(t.Context(), &wafv2.GetIPSetInput{Name: aws.String("allow"), Scope: types.ScopeRegional, Id: aws.String(id)})
	if err != nil {
		t.Fatalf("GetIPSet: %v", err)
	}
	return out
}

func update(ctx context.Context, c *wafv2.Client, id, token string, description *string, addresses ...string) (*wafv2.UpdateIPSetOutput, error) {
	if addresses == nil {
		addresses = []string{}
	}
	return c.UpdateIPSet(ctx, &wafv2.UpdateIPSetInput{Name: aws.String("allow"), Scope: types.ScopeRegional, Id: aws.String(id),
		Description: description, Addresses: addresses, LockToken: aws.String(token)})
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestGetUpdateRoundTrip: what GetIPSet returns is what the set holds,
// UpdateIPSet with the read's lock token replaces the addresses, and its
// NextLockToken is the token the next read shows, a new one.
func TestGetUpdateRoundTrip(t *testing.T) {
	s := start(t)
	id := seed(t, s)
	c := client(t, s)

	got := get(t, c, id)
	if got.IPSet == nil || aws.ToString(got.IPSet.Name) != "allow" || aws.ToString(got.IPSet.Id) != id ||
		aws.ToString(got.IPSet.Description) != "office and VPN" || got.IPSet.IPAddressVersion != types.IPAddressVersionIpv4 ||
		!equal(got.IPSet.Addresses, []string{"192.0.2.0/24", "198.51.100.7/32"}) {
		t.Fatalf("GetIPSet = %+v", got.IPSet)
	}
	if arn := aws.ToString(got.IPSet.ARN); arn != "arn:aws:wafv2:us-east-1:123456789012:regional/ipset/allow/"+id {
		t.Errorf("ARN = %q", arn)
	}
	token := aws.ToString(got.LockToken)
	if token == "" {
		t.Fatal("no lock token")
	}

	out, err := update(t.Context(), c, id, token, aws.String("office and VPN"), "192.0.2.0/24", "203.0.113.9/32")
	if err != nil {
		t.Fatalf("UpdateIPSet: %v", err)
	}
	next := aws.ToString(out.NextLockToken)
	if next == "" || next == token {
		t.Fatalf("NextLockToken = %q, read token %q: want a new one", next, token)
	}
	again := get(t, c, id)
	if aws.ToString(again.LockToken) != next {
		t.Errorf("token after the update = %q, want NextLockToken %q", aws.ToString(again.LockToken), next)
	}
	if !equal(again.IPSet.Addresses, []string{"192.0.2.0/24", "203.0.113.9/32"}) || aws.ToString(again.IPSet.Description) != "office and VPN" {
		t.Errorf("after the update: %+v", again.IPSet)
	}
	if st := s.Stats(); st.Succeeded(wafv2fake.OpGetIPSet) != 2 || st.Succeeded(wafv2fake.OpUpdateIPSet) != 1 {
		t.Errorf("stats = %+v", st.Requests)
	}
}

// TestStaleLockToken: an update with the token of a read that another
// writer has overtaken fails with WAFOptimisticLockException and changes
// nothing.
func TestStaleLockToken(t *testing.T) {
	s := start(t)
	id := seed(t, s)
	c := client(t, s)
	stale := aws.ToString(get(t, c, id).LockToken)
	if _, err := s.SetAddresses(wafv2fake.ScopeRegional, id, []string{"10.1.0.0/16"}); err != nil {
		t.Fatal(err)
	}

	_, err := update(t.Context(), c, id, stale, aws.String("office and VPN"), "192.0.2.1/32")
	var lock *types.WAFOptimisticLockException
	if !errors.As(err, &lock) {
		t.Fatalf("err = %v, want WAFOptimisticLockException", err)
	}
	wantStatus(t, err, http.StatusBadRequest)
	set, _ := s.IPSet(wafv2fake.ScopeRegional, id)
	if !equal(set.Addresses, []string{"10.1.0.0/16"}) {
		t.Errorf("addresses = %v: a stale update changed the set", set.Addresses)
	}
	if n := s.Stats().CountCode("WAFOptimisticLockException"); n != 1 {
		t.Errorf("WAFOptimisticLockException counted %d times, want 1", n)
	}
}

// TestDescriptionClearedWhenOmitted: UpdateIPSet replaces the set's
// mutable fields; without Description the set has none afterwards.
func TestDescriptionClearedWhenOmitted(t *testing.T) {
	s := start(t)
	id := seed(t, s)
	c := client(t, s)
	if _, err := update(t.Context(), c, id, aws.ToString(get(t, c, id).LockToken), nil, "192.0.2.0/24"); err != nil {
		t.Fatalf("UpdateIPSet: %v", err)
	}
	got := get(t, c, id)
	if got.IPSet.Description != nil {
		t.Errorf("Description = %q after an update without one, want none", *got.IPSet.Description)
	}
	if set, _ := s.IPSet(wafv2fake.ScopeRegional, id); set.Description != "" {
		t.Errorf("stored description = %q", set.Description)
	}
}

// TestAddressQuota: 10,000 addresses fit an IP set, 10,001 are refused
// with WAFLimitsExceededException and change nothing.
func TestAddressQuota(t *testing.T) {
	s := start(t)
	id := seed(t, s)
	c := client(t, s)
	addresses := make([]string, wafv2fake.MaxAddresses+1)
	for i := range addresses {
		addresses[i] = fmt.Sprintf("10.%d.%d.%d/32", i>>16, i>>8&0xff, i&0xff)
	}
	token := aws.ToString(get(t, c, id).LockToken)

	_, err := update(t.Context(), c, id, token, nil, addresses...)
	var limits *types.WAFLimitsExceededException
	if !errors.As(err, &limits) {
		t.Fatalf("10,001 addresses: err = %v, want WAFLimitsExceededException", err)
	}
	if set, _ := s.IPSet(wafv2fake.ScopeRegional, id); len(set.Addresses) != 2 || set.LockToken != token {
		t.Errorf("the refused update changed the set: %d addresses", len(set.Addresses))
	}

	if _, err := update(t.Context(), c, id, token, nil, addresses[:wafv2fake.MaxAddresses]...); err != nil {
		t.Fatalf("10,000 addresses: %v", err)
	}
	if set, _ := s.IPSet(wafv2fake.ScopeRegional, id); len(set.Addresses) != wafv2fake.MaxAddresses {
		t.Errorf("%d addresses stored, want %d", len(set.Addresses), wafv2fake.MaxAddresses)
	}
}

// TestInvalidAddress: an address that is not a CIDR block of the set's
// family, with no host bits and a prefix of at least /1, is refused with
// WAFInvalidParameterException naming the field and the address, and the
// set does not change.
func TestInvalidAddress(t *testing.T) {
	s := start(t)
	id4 := seed(t, s)
	id6, err := s.CreateIPSet(wafv2fake.ScopeRegional, "allow6", "", wafv2fake.IPv6, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := client(t, s)
	tests := []struct {
		name, set, address string
	}{
		{"bare IPv4 address", "allow", "192.0.2.1"},
		{"host bits set", "allow", "195.178.188.66/29"},
		{"slash zero", "allow", "0.0.0.0/0"},
		{"prefix too long", "allow", "192.0.2.0/33"},
		{"IPv6 in an IPv4 set", "allow", "2001:db8::/32"},
		{"not an address", "allow", "office/24"},
		{"leading zero", "allow", "192.0.2.010/32"},
		{"IPv4 in an IPv6 set", "allow6", "192.0.2.0/24"},
		{"IPv6 host bits", "allow6", "2001:db8::1/64"},
		{"IPv6 zone", "allow6", "fe80::1%eth0/128"},
		{"IPv6 slash zero", "allow6", "::/0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := id4
			if tt.set == "allow6" {
				id = id6
			}
			before, _ := s.IPSet(wafv2fake.ScopeRegional, id)
			_, err := c.UpdateIPSet(t.Context(), &wafv2.UpdateIPSetInput{Name: aws.String(tt.set), Scope: types.ScopeRegional,
				Id: aws.String(id), Addresses: []string{tt.address}, LockToken: aws.String(before.LockToken)})
			var invalid *types.WAFInvalidParameterException
			if !errors.As(err, &invalid) {
				t.Fatalf("err = %v, want WAFInvalidParameterException", err)
			}
			if invalid.Field != types.ParameterExceptionFieldIpAddress || aws.ToString(invalid.Parameter) != tt.address {
				t.Errorf("Field = %q, Parameter = %q", invalid.Field, aws.ToString(invalid.Parameter))
			}
			if after, _ := s.IPSet(wafv2fake.ScopeRegional, id); after.LockToken != before.LockToken {
				t.Error("the refused update changed the set")
			}
		})
	}
}

// TestIPv6Canonical: IPv6 blocks are stored, and read back, lower-case
// and compressed.
func TestIPv6Canonical(t *testing.T) {
	s := start(t)
	id, err := s.CreateIPSet(wafv2fake.ScopeRegional, "allow", "", wafv2fake.IPv6, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := client(t, s)
	if _, err := update(t.Context(), c, id, aws.ToString(get(t, c, id).LockToken), nil,
		"2001:DB8:0:0::1/128", "1111:0000:0000:0000:0000:0000:0000:0000/64"); err != nil {
		t.Fatal(err)
	}
	if got := get(t, c, id).IPSet.Addresses; !equal(got, []string{"2001:db8::1/128", "1111::/64"}) {
		t.Errorf("addresses = %v", got)
	}
}

// TestNonexistentSet: a scope, name and ID that name no set get
// WAFNonexistentItemException, for a read and for an update.
func TestNonexistentSet(t *testing.T) {
	s := start(t)
	id := seed(t, s)
	c := client(t, s)
	const other = "00000000-0000-4000-8000-000000000000"
	tests := []struct {
		name string
		call func() error
	}{
		{"get, unknown ID", func() error {
			_, err := c.GetIPSet(t.Context(), &wafv2.GetIPSetInput{Name: aws.String("allow"), Scope: types.ScopeRegional, Id: aws.String(other)})
			return err
		}},
		{"get, wrong name", func() error {
			_, err := c.GetIPSet(t.Context(), &wafv2.GetIPSetInput{Name: aws.String("deny"), Scope: types.ScopeRegional, Id: aws.String(id)})
			return err
		}},
		{"get, wrong scope", func() error {
			_, err := c.GetIPSet(t.Context(), &wafv2.GetIPSetInput{Name: aws.String("allow"), Scope: types.ScopeCloudfront, Id: aws.String(id)})
			return err
		}},
		{"update, unknown ID", func() error {
			_, err := update(t.Context(), c, other, "00000000-0000-4000-8000-000000000001", nil)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var missing *types.WAFNonexistentItemException
			if err := tt.call(); !errors.As(err, &missing) {
				t.Fatalf("err = %v, want WAFNonexistentItemException", err)
			}
		})
	}
}

// TestCreateAndList: CreateIPSet through the API makes a set that
// GetIPSet and ListIPSets see; a second set of the same name and scope is
// a WAFDuplicateItemException; ListIPSets pages by Limit.
func TestCreateAndList(t *testing.T) {
	s := start(t)
	c := client(t, s)
	var ids []string
	for _, name := range []string{"b-set", "a-set", "c-set"} {
		out, err := c.CreateIPSet(t.Context(), &wafv2.CreateIPSetInput{Name: aws.String(name), Scope: types.ScopeRegional,
			IPAddressVersion: types.IPAddressVersionIpv4, Addresses: []string{"192.0.2.0/24"}, Description: aws.String("made by " + name)})
		if err != nil {
			t.Fatalf("CreateIPSet %s: %v", name, err)
		}
		if out.Summary == nil || aws.ToString(out.Summary.LockToken) == "" || aws.ToString(out.Summary.Id) == "" {
			t.Fatalf("summary = %+v", out.Summary)
		}
		ids = append(ids, aws.ToString(out.Summary.Id))
	}
	_, err := c.CreateIPSet(t.Context(), &wafv2.CreateIPSetInput{Name: aws.String("a-set"), Scope: types.ScopeRegional,
		IPAddressVersion: types.IPAddressVersionIpv4, Addresses: []string{}})
	var dup *types.WAFDuplicateItemException
	if !errors.As(err, &dup) {
		t.Errorf("duplicate name: err = %v, want WAFDuplicateItemException", err)
	}
	if set, ok := s.IPSet(wafv2fake.ScopeRegional, ids[0]); !ok || set.Name != "b-set" || set.Description != "made by b-set" {
		t.Errorf("IPSet = %+v, %v", set, ok)
	}

	var names []string
	in := &wafv2.ListIPSetsInput{Scope: types.ScopeRegional, Limit: aws.Int32(2)}
	for pages := 0; ; pages++ {
		out, err := c.ListIPSets(t.Context(), in)
		if err != nil {
			t.Fatal(err)
		}
		for _, sum := range out.IPSets {
			names = append(names, aws.ToString(sum.Name))
		}
		if out.NextMarker == nil {
			break
		}
		if pages > 3 {
			t.Fatal("ListIPSets does not end")
		}
		in.NextMarker = out.NextMarker
	}
	if !equal(names, []string{"a-set", "b-set", "c-set"}) {
		t.Errorf("listed %v", names)
	}
}

// wantStatus checks the HTTP status of the answer an SDK error reports.
func wantStatus(t *testing.T, err error, status int) {
	t.Helper()
	var re *smithyhttp.ResponseError
	if !errors.As(err, &re) || re.HTTPStatusCode() != status {
		t.Errorf("err = %v, want an answer with status %d", err, status)
	}
}

// wantCode checks the error code an SDK error carries.
func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != code {
		t.Errorf("err = %v, want %s", err, code)
	}
}

// TestFaultsThroughTheSDK: the injected errors reach the SDK as AWS's
// would: ThrottlingException and WAFUnavailableEntityException as 400
// with their codes, ServiceUnavailable as 503 (and the SDK's standard
// retryer retries throttling by itself).
func TestFaultsThroughTheSDK(t *testing.T) {
	tests := []struct {
		name   string
		fault  func() *wafv2fake.Error
		status int
	}{
		{"ThrottlingException", wafv2fake.Throttling, http.StatusBadRequest},
		{"WAFUnavailableEntityException", wafv2fake.UnavailableEntity, http.StatusBadRequest},
		{"ServiceUnavailable", wafv2fake.ServiceUnavailable, http.StatusServiceUnavailable},
		{"WAFInternalErrorException", wafv2fake.WAFInternalError, http.StatusInternalServerError},
		{"AccessDeniedException", wafv2fake.AccessDenied, http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, wafv2fake.WithFaultHook(wafv2fake.FailFirst(wafv2fake.OpGetIPSet, 1, tt.fault)))
			id := seed(t, s)
			_, err := client(t, s).GetIPSet(t.Context(), &wafv2.GetIPSetInput{Name: aws.String("allow"), Scope: types.ScopeRegional, Id: aws.String(id)})
			wantCode(t, err, tt.name)
			wantStatus(t, err, tt.status)
		})
	}

	t.Run("throttled once, then served, by the SDK's own retry", func(t *testing.T) {
		s := start(t, wafv2fake.WithFaultHook(wafv2fake.FailFirst(wafv2fake.OpGetIPSet, 1, wafv2fake.Throttling)))
		id := seed(t, s)
		c := wafv2.New(client(t, s).Options(), func(o *wafv2.Options) {
			o.RetryMaxAttempts = 0 // the retryer's own
			o.Retryer = retry.NewStandard(func(o *retry.StandardOptions) {
				o.MaxAttempts = 2
				o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return time.Millisecond, nil })
			})
		})
		if _, err := c.GetIPSet(t.Context(), &wafv2.GetIPSetInput{Name: aws.String("allow"), Scope: types.ScopeRegional, Id: aws.String(id)}); err != nil {
			t.Fatalf("GetIPSet: %v", err)
		}
		if st := s.Stats(); st.Count(wafv2fake.OpGetIPSet, http.StatusBadRequest) != 1 || st.Succeeded(wafv2fake.OpGetIPSet) != 1 {
			t.Errorf("stats = %+v, want one throttled and one served GetIPSet", st.Requests)
		}
	})
}

// TestDroppedConnections: DropConnection ends a request without an answer
// and without running it; DropAnswer runs it first, so an update lands
// although the client saw no answer.
func TestDroppedConnections(t *testing.T) {
	for _, tt := range []struct {
		name  string
		fault func() *wafv2fake.Error
		lands bool
	}{
		{"DropConnection", wafv2fake.DropConnection, false},
		{"DropAnswer", wafv2fake.DropAnswer, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, wafv2fake.WithFaultHook(wafv2fake.FailFirst(wafv2fake.OpUpdateIPSet, 1, tt.fault)))
			id := seed(t, s)
			c := client(t, s)
			token := aws.ToString(get(t, c, id).LockToken)
			_, err := update(t.Context(), c, id, token, nil, "203.0.113.0/24")
			var re *smithyhttp.ResponseError
			if err == nil || (errors.As(err, &re) && re.HTTPStatusCode() != 0) {
				t.Fatalf("err = %v, want a request that got no answer", err)
			}
			set, _ := s.IPSet(wafv2fake.ScopeRegional, id)
			if landed := set.LockToken != token; landed != tt.lands {
				t.Errorf("update landed = %v, want %v", landed, tt.lands)
			}
			recs := s.Requests()
			if last := recs[len(recs)-1]; !last.Dropped || last.Status != 0 || last.Operation != wafv2fake.OpUpdateIPSet {
				t.Errorf("last record = %+v", last)
			}
		})
	}
}
