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
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v9"
	"go.uber.org/goleak"

	"github.com/listkeeper/listkeeper/internal/storetest/ipgroupfake"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const rg = "network-rg"

// start builds a Server served over TLS, closed when the test ends.
func start(t *testing.T, opts ...ipgroupfake.Option) *ipgroupfake.Server {
	t.Helper()
	s, err := ipgroupfake.New(opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

// credential is azidentity's ClientSecretCredential for the default
// service principal (or p), getting its tokens from s.
func credential(t *testing.T, s *ipgroupfake.Server, p ...ipgroupfake.ServicePrincipal) *azidentity.ClientSecretCredential {
	t.Helper()
	sp := ipgroupfake.DefaultServicePrincipal()
	if len(p) > 0 {
		sp = p[0]
	}
	cred, err := azidentity.NewClientSecretCredential(sp.TenantID, sp.ClientID, sp.ClientSecret, &azidentity.ClientSecretCredentialOptions{
		ClientOptions:            azcore.ClientOptions{Cloud: s.Cloud(), Transport: s.Client()},
		DisableInstanceDiscovery: true,
	})
	if err != nil {
		t.Fatalf("NewClientSecretCredential: %v", err)
	}
	return cred
}

// client is armnetwork's IPGroupsClient for s with the default service
// principal. retry, when given, replaces "no retries".
func client(t *testing.T, s *ipgroupfake.Server, retry ...policy.RetryOptions) *armnetwork.IPGroupsClient {
	t.Helper()
	return clientWith(t, s, credential(t, s), retry...)
}

func clientWith(t *testing.T, s *ipgroupfake.Server, cred azcore.TokenCredential, retry ...policy.RetryOptions) *armnetwork.IPGroupsClient {
	t.Helper()
	r := policy.RetryOptions{MaxRetries: -1}
	if len(retry) > 0 {
		r = retry[0]
	}
	c, err := armnetwork.NewIPGroupsClient(s.SubscriptionID(), cred, &arm.ClientOptions{
		ClientOptions: policy.ClientOptions{Cloud: s.Cloud(), Transport: s.Client(), Retry: r},
	})
	if err != nil {
		t.Fatalf("NewIPGroupsClient: %v", err)
	}
	return c
}

// seed creates the group "allow" in westeurope with two addresses.
func seed(t *testing.T, s *ipgroupfake.Server) string {
	t.Helper()
	etag, err := s.CreateGroup(rg, "allow", "westeurope", []string{"192.0.2.0/24", "198.51.100.7"})
	if err != nil {
		t.Fatalf("CreateGroup: %v", err)
	}
	return etag
}

func get(t *testing.T, c *armnetwork.IPGroupsClient, name string) armnetwork.IPGroup {
	t.Helper()
	out, err := c.Get(t.Context(), rg, name, nil)
	if err != nil {
		t.Fatalf("Get %s: %v", name, err)
	}
	return out.IPGroup
}

// group is the body of a write: location, and addresses.
func group(location string, addresses ...string) armnetwork.IPGroup {
	return armnetwork.IPGroup{Location: to.Ptr(location), Properties: &armnetwork.IPGroupPropertiesFormat{IPAddresses: to.SliceOfPtrs(addresses...)}}
}

// ifMatch returns ctx carrying If-Match: etag, the header the SDK's
// method has no parameter for.
func ifMatch(ctx context.Context, etag string) context.Context {
	return policy.WithHTTPHeader(ctx, http.Header{"If-Match": {etag}})
}

// poll is how often the tests poll an operation: they do not wait the
// SDK's 30 s.
var poll = &runtime.PollUntilDoneOptions{Frequency: time.Millisecond}

// put writes and waits for the operation.
func put(ctx context.Context, c *armnetwork.IPGroupsClient, name string, g armnetwork.IPGroup) (armnetwork.IPGroup, error) {
	p, err := c.BeginCreateOrUpdate(ctx, rg, name, g, nil)
	if err != nil {
		return armnetwork.IPGroup{}, err
	}
	out, err := p.PollUntilDone(ctx, poll)
	return out.IPGroup, err
}

// wantError checks that err is an ARM answer with this status and code.
func wantError(t *testing.T, err error, status int, code string) {
	t.Helper()
	_ = responseError(t, err, status, code)
}

// responseError is wantError that hands back the answer to look at further.
func responseError(t *testing.T, err error, status int, code string) *azcore.ResponseError {
	t.Helper()
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v, want a %d %s answer", err, status, code)
	}
	if re.StatusCode != status || re.ErrorCode != code {
		t.Fatalf("answer %d %s, want %d %s", re.StatusCode, re.ErrorCode, status, code)
	}
	return re
}

func addresses(g armnetwork.IPGroup) []string {
	if g.Properties == nil {
		return nil
	}
	out := make([]string, 0, len(g.Properties.IPAddresses))
	for _, a := range g.Properties.IPAddresses {
		out = append(out, *a)
	}
	return out
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

// clock is a settable clock for WithClock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// str is *p, or "" for nil.
func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
