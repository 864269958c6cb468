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
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v9"

	"github.com/listkeeper/listkeeper/internal/storetest/ipgroupfake"
)

var etagForm = regexp.MustCompile(`^W/"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"$`)

// TestGet: what armnetwork's Get returns is the group the Server holds,
// with ARM's read-only fields.
func TestGet(t *testing.T) {
	s := start(t)
	etag := seed(t, s)
	g := get(t, client(t, s), "allow")

	wantID := "/subscriptions/" + ipgroupfake.DefaultSubscriptionID + "/resourceGroups/" + rg + "/providers/Microsoft.Network/ipGroups/allow"
	if str(g.ID) != wantID || str(g.Name) != "allow" || str(g.Type) != "Microsoft.Network/ipGroups" || str(g.Location) != "westeurope" {
		t.Errorf("ID %q, Name %q, Type %q, Location %q", str(g.ID), str(g.Name), str(g.Type), str(g.Location))
	}
	if str(g.Etag) != etag || !etagForm.MatchString(etag) {
		t.Errorf("Etag = %q, CreateGroup said %q; want W/\"<uuid>\"", str(g.Etag), etag)
	}
	p := g.Properties
	if p == nil || *p.ProvisioningState != armnetwork.ProvisioningStateSucceeded || !equal(addresses(g), []string{"192.0.2.0/24", "198.51.100.7"}) ||
		p.Firewalls == nil || len(p.Firewalls) != 0 || p.FirewallPolicies == nil {
		t.Errorf("Properties = %+v", p)
	}
	if st := s.Stats(); st.Succeeded(ipgroupfake.OpGet) != 1 || st.Methods[http.MethodGet] < 1 {
		t.Errorf("stats = %+v", st)
	}
}

// TestGetMissing: a group that does not exist is a 404 ResourceNotFound.
func TestGetMissing(t *testing.T) {
	s := start(t)
	_, err := client(t, s).Get(t.Context(), rg, "nothing", nil)
	wantError(t, err, http.StatusNotFound, ipgroupfake.CodeResourceNotFound)
}

// TestCreateOrUpdate: BeginCreateOrUpdate creates a group (201), the
// poller follows Azure-AsyncOperation through InProgress to Succeeded and
// reads the group; an update with If-Match of the current etag is a 200
// and gets a new etag.
func TestCreateOrUpdate(t *testing.T) {
	clk := newClock()
	var polls atomic.Int32
	s := start(t, ipgroupfake.WithClock(clk.Now), ipgroupfake.WithOperationDelay(time.Minute),
		ipgroupfake.WithFaultHook(func(c ipgroupfake.Call) *ipgroupfake.Error {
			// The hook runs before the poll is answered: every third
			// poll is the first after an operation's minute.
			if c.Operation == ipgroupfake.OpOperationStatus && polls.Add(1)%3 == 0 {
				clk.Advance(time.Minute)
			}
			return nil
		}))
	c := client(t, s)
	in := group("westeurope", "10.0.0.0", "10.1.0.0/16", "10.2.0.0-10.2.0.31")
	in.Tags = map[string]*string{"owner": to.Ptr("listkeeper")}

	p, err := c.BeginCreateOrUpdate(t.Context(), rg, "allow", in, nil)
	if err != nil {
		t.Fatalf("BeginCreateOrUpdate: %v", err)
	}
	if during, _ := s.Group(rg, "allow"); during.ProvisioningState != ipgroupfake.StateUpdating {
		t.Errorf("during the operation: provisioningState %q", during.ProvisioningState)
	}
	out, err := p.PollUntilDone(t.Context(), poll)
	if err != nil {
		t.Fatalf("PollUntilDone: %v", err)
	}
	if *out.Properties.ProvisioningState != armnetwork.ProvisioningStateSucceeded || !equal(addresses(out.IPGroup), []string{"10.0.0.0", "10.1.0.0/16", "10.2.0.0-10.2.0.31"}) ||
		str(out.Tags["owner"]) != "listkeeper" {
		t.Errorf("result = %+v", out.IPGroup)
	}
	if n := polls.Load(); n != 3 {
		t.Errorf("%d polls of the operation, want 3 (two InProgress, then Succeeded)", n)
	}
	st := s.Stats()
	if st.Count(ipgroupfake.OpCreateOrUpdate, http.StatusCreated) != 1 || st.Writes != 1 || st.Succeeded(ipgroupfake.OpGet) != 1 {
		t.Errorf("stats = %+v: want one 201 write and the poller's final GET", st.Requests)
	}

	first := str(out.Etag)
	out2, err := put(ifMatch(t.Context(), first), c, "allow", group("westeurope", "10.9.9.9"))
	if err != nil {
		t.Fatalf("update with If-Match of the current etag: %v", err)
	}
	if str(out2.Etag) == first || !etagForm.MatchString(str(out2.Etag)) {
		t.Errorf("etag after the update = %q, before %q: want a new one", str(out2.Etag), first)
	}
	if out2.Tags != nil {
		t.Errorf("tags = %v after a write without tags: PUT replaces them", out2.Tags)
	}
	if st := s.Stats(); st.Count(ipgroupfake.OpCreateOrUpdate, http.StatusOK) != 1 || st.Writes != 2 {
		t.Errorf("stats = %+v: want the update answered 200", st.Requests)
	}
}

// TestStaleEtag: a write with the etag of a read that another writer
// overtook is a 412 PreconditionFailed and changes nothing; If-None-Match:
// * refuses to overwrite a group and creates a new one.
func TestStaleEtag(t *testing.T) {
	s := start(t)
	seed(t, s)
	c := client(t, s)
	stale := str(get(t, c, "allow").Etag)
	if _, err := s.SetAddresses(rg, "allow", []string{"203.0.113.0/24"}); err != nil {
		t.Fatal(err)
	}

	_, err := c.BeginCreateOrUpdate(ifMatch(t.Context(), stale), rg, "allow", group("westeurope", "10.0.0.1"), nil)
	wantError(t, err, http.StatusPreconditionFailed, ipgroupfake.CodePreconditionFailed)
	if g, _ := s.Group(rg, "allow"); !equal(g.Addresses, []string{"203.0.113.0/24"}) {
		t.Errorf("addresses = %v: the refused write changed the group", g.Addresses)
	}

	noneMatch := func(name string) error {
		_, err := c.BeginCreateOrUpdate(policy.WithHTTPHeader(t.Context(), http.Header{"If-None-Match": {"*"}}), rg, name, group("westeurope", "10.0.0.1"), nil)
		return err
	}
	wantError(t, noneMatch("allow"), http.StatusPreconditionFailed, ipgroupfake.CodePreconditionFailed)
	if err := noneMatch("new"); err != nil {
		t.Errorf("If-None-Match: * for a new group: %v", err)
	}
	if _, err := c.BeginCreateOrUpdate(ifMatch(t.Context(), "*"), rg, "absent", group("westeurope"), nil); err == nil {
		t.Error("If-Match: * created a group")
	}
	if st := s.Stats(); st.PreconditionFailures() != 3 || st.Writes != 1 {
		t.Errorf("412s = %d, writes = %d; want 3 and 1", st.PreconditionFailures(), st.Writes)
	}
}

// TestWriteHookForeignWriter: a writer that gets in between the client's
// read and its write, through the WriteHook, makes the write a 412.
func TestWriteHookForeignWriter(t *testing.T) {
	var s *ipgroupfake.Server
	var once atomic.Bool
	s = start(t, ipgroupfake.WithWriteHook(func(rg, name string, _ *http.Request) {
		if once.CompareAndSwap(false, true) {
			if _, err := s.SetAddresses(rg, name, []string{"203.0.113.9"}); err != nil {
				t.Error(err)
			}
		}
	}))
	seed(t, s)
	c := client(t, s)
	read := get(t, c, "allow")
	_, err := c.BeginCreateOrUpdate(ifMatch(t.Context(), str(read.Etag)), rg, "allow", group("westeurope", "10.0.0.1"), nil)
	wantError(t, err, http.StatusPreconditionFailed, ipgroupfake.CodePreconditionFailed)
	again := get(t, c, "allow")
	if _, err := put(ifMatch(t.Context(), str(again.Etag)), c, "allow", group("westeurope", "10.0.0.1")); err != nil {
		t.Fatalf("retry with the new etag: %v", err)
	}
}

// TestBusy: a write while the group's operation runs is refused, 409
// AnotherOperationInProgress naming the operation (or, BusyRetryable, 429
// RetryableError), and accepted once the operation is done.
func TestBusy(t *testing.T) {
	for _, tt := range []struct {
		name   string
		mode   ipgroupfake.BusyAnswer
		status int
		code   string
	}{
		{"conflict", ipgroupfake.BusyConflict, http.StatusConflict, ipgroupfake.CodeAnotherOperationInProgress},
		{"retryable", ipgroupfake.BusyRetryable, http.StatusTooManyRequests, ipgroupfake.CodeRetryableError},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clk := newClock()
			s := start(t, ipgroupfake.WithClock(clk.Now), ipgroupfake.WithOperationDelay(time.Minute), ipgroupfake.WithBusyAnswer(tt.mode))
			seed(t, s)
			c := client(t, s)
			first, err := c.BeginCreateOrUpdate(t.Context(), rg, "allow", group("westeurope", "10.0.0.1"), nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.BeginCreateOrUpdate(t.Context(), rg, "allow", group("westeurope", "10.0.0.2"), nil)
			re := responseError(t, err, tt.status, tt.code)
			body := re.Error()
			switch tt.mode {
			case ipgroupfake.BusyConflict:
				if !strings.Contains(body, "/providers/Microsoft.Network/locations/westeurope/nfvOperations/") {
					t.Errorf("409 does not name the operation's URL: %s", body)
				}
			case ipgroupfake.BusyRetryable:
				if re.RawResponse.Header.Get("Retry-After") == "" || !strings.Contains(body, ipgroupfake.CodeRetryableErrorDueToAnotherOperation) {
					t.Errorf("429 without Retry-After or its detail: %s", body)
				}
			}
			if g, _ := s.Group(rg, "allow"); !equal(g.Addresses, []string{"10.0.0.1"}) || g.ProvisioningState != ipgroupfake.StateUpdating {
				t.Errorf("group = %+v", g)
			}

			clk.Advance(time.Minute)
			if _, err := first.PollUntilDone(t.Context(), poll); err != nil {
				t.Fatalf("first write's operation: %v", err)
			}
			if _, err := c.BeginCreateOrUpdate(t.Context(), rg, "allow", group("westeurope", "10.0.0.3"), nil); err != nil {
				t.Fatalf("write after the operation: %v", err)
			}
			if st := s.Stats(); st.Conflicts() != 1 || st.Writes != 2 {
				t.Errorf("conflicts = %d, writes = %d; want 1 and 2", st.Conflicts(), st.Writes)
			}
		})
	}
}

// TestAddressLimit: 5,000 entries fit a group, 5,001 are a 400 that
// changes nothing; WithMaxAddresses lowers the limit.
func TestAddressLimit(t *testing.T) {
	many := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("10.%d.%d.0/24", i>>8, i&0xff)
		}
		return out
	}
	s := start(t)
	c := client(t, s)
	_, err := c.BeginCreateOrUpdate(t.Context(), rg, "big", group("westeurope", many(ipgroupfake.MaxAddresses+1)...), nil)
	wantError(t, err, http.StatusBadRequest, ipgroupfake.CodeIPAddressCountExceeded)
	if _, ok := s.Group(rg, "big"); ok {
		t.Error("the refused write created the group")
	}
	if _, err := put(t.Context(), c, "big", group("westeurope", many(ipgroupfake.MaxAddresses)...)); err != nil {
		t.Fatalf("5,000 entries: %v", err)
	}
	if g, _ := s.Group(rg, "big"); len(g.Addresses) != ipgroupfake.MaxAddresses {
		t.Errorf("%d entries stored", len(g.Addresses))
	}

	small := start(t, ipgroupfake.WithMaxAddresses(2))
	_, err = client(t, small).BeginCreateOrUpdate(t.Context(), rg, "g", group("westeurope", many(3)...), nil)
	wantError(t, err, http.StatusBadRequest, ipgroupfake.CodeIPAddressCountExceeded)
}

// TestAddressForms: an entry is an IPv4 address, CIDR block or range; any
// other is a 400 naming it, and the group does not change.
func TestAddressForms(t *testing.T) {
	s := start(t)
	seed(t, s)
	c := client(t, s)
	for _, a := range []string{"10.0.0.0", "10.1.0.0/32", "10.2.0.0-10.2.0.31", "0.0.0.0/0", "10.1.0.5/24", "10.3.0.7-10.3.0.7"} {
		if _, err := put(t.Context(), c, "allow", group("westeurope", a)); err != nil {
			t.Errorf("%q refused: %v", a, err)
		}
	}
	before, _ := s.Group(rg, "allow")
	for _, a := range []string{"", "2001:db8::1", "2001:db8::/32", "10.0.0.256", "10.0.0.0/33", "010.0.0.1", " 10.0.0.1",
		"10.2.0.31-10.2.0.0", "10.2.0.0-", "10.2.0.0-2001:db8::1", "office", "10.0.0.1/", "::ffff:10.0.0.1"} {
		_, err := c.BeginCreateOrUpdate(t.Context(), rg, "allow", group("westeurope", "10.9.0.0/16", a), nil)
		re := responseError(t, err, http.StatusBadRequest, ipgroupfake.CodeInvalidIPAddress)
		if !strings.Contains(re.Error(), "'"+a+"'") {
			t.Errorf("%q: the message does not name the entry", a)
		}
	}
	if after, _ := s.Group(rg, "allow"); after.Etag != before.Etag {
		t.Error("a refused write changed the group")
	}
}

// TestEmptyGroups: a group without addresses is accepted, unless
// WithEmptyGroupsRefused, as in the regions that refuse it.
func TestEmptyGroups(t *testing.T) {
	if _, err := put(t.Context(), client(t, start(t)), "empty", group("westeurope")); err != nil {
		t.Errorf("empty group: %v", err)
	}
	strict := start(t, ipgroupfake.WithEmptyGroupsRefused())
	_, err := client(t, strict).BeginCreateOrUpdate(t.Context(), rg, "empty", group("eastus"), nil)
	wantError(t, err, http.StatusBadRequest, ipgroupfake.CodeIPAddressCountZero)
}

// TestNewEtagOnCompletion: with the option, the etag a write's answer
// showed is stale once its operation is done; without, it stays current.
func TestNewEtagOnCompletion(t *testing.T) {
	for _, changes := range []bool{false, true} {
		t.Run(fmt.Sprint(changes), func(t *testing.T) {
			clk := newClock()
			opts := []ipgroupfake.Option{ipgroupfake.WithClock(clk.Now), ipgroupfake.WithOperationDelay(time.Minute)}
			if changes {
				opts = append(opts, ipgroupfake.WithNewEtagOnCompletion())
			}
			s := start(t, opts...)
			p, err := client(t, s).BeginCreateOrUpdate(t.Context(), rg, "g", group("westeurope", "10.0.0.1"), nil)
			if err != nil {
				t.Fatal(err)
			}
			during, _ := s.Group(rg, "g")
			clk.Advance(time.Minute)
			out, err := p.PollUntilDone(t.Context(), poll)
			if err != nil {
				t.Fatal(err)
			}
			if got := str(out.Etag) != during.Etag; got != changes {
				t.Errorf("etag changed on completion = %v, want %v", got, changes)
			}
		})
	}
}

// TestThrottle: a throttled request is a 429 with Retry-After, which
// azcore's retry policy honours: it gives up when Retry-After is beyond
// its MaxRetryDelay, and otherwise waits that long before it retries.
func TestThrottle(t *testing.T) {
	t.Run("beyond MaxRetryDelay", func(t *testing.T) {
		s := start(t)
		seed(t, s)
		c := client(t, s, policy.RetryOptions{MaxRetries: 3, MaxRetryDelay: 100 * time.Millisecond})
		s.Throttle(1, time.Second)
		_, err := c.Get(t.Context(), rg, "allow", nil)
		re := responseError(t, err, http.StatusTooManyRequests, ipgroupfake.CodeThrottled)
		if got := re.RawResponse.Header.Get("Retry-After"); got != "1" {
			t.Errorf("Retry-After = %q, want 1", got)
		}
		if n := s.Stats().Operations(ipgroupfake.OpGet); n != 1 {
			t.Errorf("%d GETs: the SDK retried before Retry-After", n)
		}
	})
	t.Run("honoured", func(t *testing.T) {
		s := start(t)
		seed(t, s)
		c := client(t, s, policy.RetryOptions{MaxRetries: 2, RetryDelay: time.Millisecond, MaxRetryDelay: time.Minute})
		s.Throttle(1, time.Second)
		begin := time.Now()
		get(t, c, "allow")
		if waited := time.Since(begin); waited < 900*time.Millisecond {
			t.Errorf("the retry came after %s, before Retry-After's second", waited)
		}
		if st := s.Stats(); st.Count(ipgroupfake.OpGet, http.StatusTooManyRequests) != 1 || st.Succeeded(ipgroupfake.OpGet) != 1 {
			t.Errorf("stats = %+v, want one throttled and one served GET", st.Requests)
		}
	})
}

// TestFaults: dropped connections before and after a write, a failed
// operation, and errors a FaultHook injects reach the SDK as Azure's
// would.
func TestFaults(t *testing.T) {
	for _, tt := range []struct {
		name  string
		fault func() *ipgroupfake.Error
		lands bool
	}{
		{"DropConnection", ipgroupfake.DropConnection, false},
		{"DropAnswer", ipgroupfake.DropAnswer, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, ipgroupfake.WithFaultHook(ipgroupfake.FailFirst(ipgroupfake.OpCreateOrUpdate, 1, tt.fault)))
			etag := seed(t, s)
			_, err := client(t, s).BeginCreateOrUpdate(t.Context(), rg, "allow", group("westeurope", "10.0.0.1"), nil)
			var re *azcore.ResponseError
			if err == nil || errors.As(err, &re) {
				t.Fatalf("err = %v, want a request that got no answer", err)
			}
			g, _ := s.Group(rg, "allow")
			if landed := g.Etag != etag; landed != tt.lands {
				t.Errorf("write landed = %v, want %v", landed, tt.lands)
			}
			recs := s.Requests()
			if last := recs[len(recs)-1]; !last.Dropped || last.Status != 0 || last.Operation != ipgroupfake.OpCreateOrUpdate {
				t.Errorf("last record = %+v", last)
			}
		})
	}

	t.Run("failed operation", func(t *testing.T) {
		s := start(t, ipgroupfake.WithFaultHook(ipgroupfake.FailFirst(ipgroupfake.OpCreateOrUpdate, 1,
			func() *ipgroupfake.Error { return ipgroupfake.IPGroupsUpdateFailed("allow") })))
		seed(t, s)
		c := client(t, s)
		_, err := put(t.Context(), c, "allow", group("westeurope", "10.0.0.1"))
		re := responseError(t, err, http.StatusOK, ipgroupfake.CodeIPGroupsUpdateFailed)
		if !strings.Contains(re.Error(), "Put on IP Groups allow Failed") {
			t.Errorf("error = %v", re)
		}
		g := get(t, c, "allow")
		if *g.Properties.ProvisioningState != armnetwork.ProvisioningStateFailed || !equal(addresses(g), []string{"10.0.0.1"}) {
			t.Errorf("after the failed operation: %s, %v", *g.Properties.ProvisioningState, addresses(g))
		}
		if _, err := put(ifMatch(t.Context(), str(g.Etag)), c, "allow", group("westeurope", "10.0.0.2")); err != nil {
			t.Errorf("a write after a failed operation: %v", err)
		}
	})

	for _, tt := range []struct {
		fault  func() *ipgroupfake.Error
		status int
		code   string
	}{
		{ipgroupfake.InternalServerError, http.StatusInternalServerError, "InternalServerError"},
		{ipgroupfake.ServiceUnavailable, http.StatusServiceUnavailable, "ServiceUnavailable"},
		{ipgroupfake.AuthorizationFailed, http.StatusForbidden, "AuthorizationFailed"},
		{func() *ipgroupfake.Error { return ipgroupfake.Throttled(2 * time.Second) }, http.StatusTooManyRequests, ipgroupfake.CodeThrottled},
	} {
		t.Run(tt.code, func(t *testing.T) {
			s := start(t, ipgroupfake.WithFaultHook(ipgroupfake.FailFirst(ipgroupfake.OpGet, 1, tt.fault)))
			seed(t, s)
			_, err := client(t, s).Get(t.Context(), rg, "allow", nil)
			wantError(t, err, tt.status, tt.code)
		})
	}
}
