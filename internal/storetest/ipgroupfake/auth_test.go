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
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"

	"github.com/listkeeper/listkeeper/internal/storetest/ipgroupfake"
)

// groupURL is the URL of a group of s, with the SDK's api-version.
func groupURL(s *ipgroupfake.Server, name string) string {
	return fmt.Sprintf("%s/subscriptions/%s/resourceGroups/%s/providers/Microsoft.Network/ipGroups/%s?api-version=%s",
		s.URL(), s.SubscriptionID(), rg, name, ipgroupfake.APIVersion)
}

// send makes a request of s with net/http, with token as the bearer token
// when it is not "", and returns the status, the headers and the body.
func send(t *testing.T, s *ipgroupfake.Server, method, url, token, body string, header ...string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// armCode is the code of an ARM error body.
func armCode(t *testing.T, body string) string {
	t.Helper()
	var e struct {
		Error struct{ Code, Message string }
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatalf("not an ARM error: %s", body)
	}
	return e.Error.Code
}

func issue(t *testing.T, s *ipgroupfake.Server, audience string, lifetime time.Duration) string {
	t.Helper()
	tok, err := s.IssueToken(ipgroupfake.DefaultServicePrincipal(), audience, lifetime)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestRefusedTokens: ARM's 401s, each with its code and a Bearer
// challenge naming the Server's authority; every audience ARM accepts is
// accepted.
func TestRefusedTokens(t *testing.T) {
	s := start(t)
	seed(t, s)
	other, err := ipgroupfake.New()
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := other.IssueToken(ipgroupfake.DefaultServicePrincipal(), ipgroupfake.Audiences[0], time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, token, code string
	}{
		{"no token", "", ipgroupfake.CodeAuthenticationFailed},
		{"not a JWT", "not-a-token", ipgroupfake.CodeInvalidAuthenticationToken},
		{"signed by another server", foreign, ipgroupfake.CodeInvalidAuthenticationToken},
		{"Storage's audience", issue(t, s, "https://storage.azure.com", time.Hour), ipgroupfake.CodeInvalidAuthenticationTokenAudience},
		{"expired", issue(t, s, "https://management.azure.com", -time.Second), ipgroupfake.CodeExpiredAuthenticationToken},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, h, body := send(t, s, http.MethodGet, groupURL(s, "allow"), tt.token, "")
			if status != http.StatusUnauthorized || armCode(t, body) != tt.code {
				t.Fatalf("answer %d %s, want 401 %s", status, body, tt.code)
			}
			if ch := h.Get("WWW-Authenticate"); !strings.HasPrefix(ch, `Bearer authorization_uri="`+s.URL()+"/"+ipgroupfake.TestTenantID+`"`) ||
				!strings.Contains(ch, `error="invalid_token"`) {
				t.Errorf("WWW-Authenticate = %q", ch)
			}
		})
	}
	for _, aud := range ipgroupfake.Audiences {
		if status, _, body := send(t, s, http.MethodGet, groupURL(s, "allow"), issue(t, s, aud, time.Hour), ""); status != http.StatusOK {
			t.Errorf("audience %s: %d %s", aud, status, body)
		}
	}
	if st := s.Stats(); st.Succeeded(ipgroupfake.OpGet) != int64(len(ipgroupfake.Audiences)) || st.Count(ipgroupfake.OpGet, http.StatusUnauthorized) != 5 {
		t.Errorf("stats = %+v", st.Requests)
	}
}

// TestExpiredThroughSDK: a token the credential still holds, which has
// expired by the Server's clock, is refused through the SDK with
// ExpiredAuthenticationToken.
func TestExpiredThroughSDK(t *testing.T) {
	clk := newClock()
	s := start(t, ipgroupfake.WithClock(clk.Now), ipgroupfake.WithTokenLifetime(time.Hour))
	seed(t, s)
	c := client(t, s)
	get(t, c, "allow")
	clk.Advance(time.Hour)
	_, err := c.Get(t.Context(), rg, "allow", nil)
	wantError(t, err, http.StatusUnauthorized, ipgroupfake.CodeExpiredAuthenticationToken)
}

// TestWrongSecret: azidentity gets no token with a wrong secret, and ARM
// sees no request.
func TestWrongSecret(t *testing.T) {
	s := start(t)
	seed(t, s)
	bad := ipgroupfake.DefaultServicePrincipal()
	bad.ClientSecret = "wrong"
	_, err := clientWith(t, s, credential(t, s, bad)).Get(t.Context(), rg, "allow", nil)
	var af *azidentity.AuthenticationFailedError
	if !errors.As(err, &af) || af.RawResponse == nil || af.RawResponse.StatusCode != http.StatusUnauthorized {
		t.Fatalf("err = %v, want azidentity's AuthenticationFailedError with Entra ID's 401", err)
	}
	st := s.Stats()
	if st.Operations(ipgroupfake.OpGet) != 0 || st.CountCode("invalid_client") == 0 {
		t.Errorf("stats = %+v", st)
	}
}

// TestTokenEndpoint: the token endpoint's refusals, with net/http.
func TestTokenEndpoint(t *testing.T) {
	s := start(t)
	form := func(tenant, id, secret, scope string) (int, string) {
		v := url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}, "scope": {scope}}
		status, _, body := send(t, s, http.MethodPost, s.URL()+"/"+tenant+"/oauth2/v2.0/token", "", v.Encode(),
			"Content-Type", "application/x-www-form-urlencoded")
		return status, body
	}
	tid, cid, sec := ipgroupfake.TestTenantID, ipgroupfake.TestClientID, ipgroupfake.TestClientSecret
	for _, tt := range []struct {
		name                      string
		tenant, id, secret, scope string
		status                    int
		want                      string
	}{
		{"ok", tid, cid, sec, ipgroupfake.Scope, http.StatusOK, `"token_type":"Bearer"`},
		{"unknown tenant", "00000000-0000-4000-8000-000000000bad", cid, sec, ipgroupfake.Scope, http.StatusBadRequest, "AADSTS90002"},
		{"unknown client", tid, "someone-else", sec, ipgroupfake.Scope, http.StatusBadRequest, "AADSTS700016"},
		{"wrong secret", tid, cid, "wrong", ipgroupfake.Scope, http.StatusUnauthorized, "invalid_client"},
		{"scope without .default", tid, cid, sec, "https://management.azure.com/user_impersonation", http.StatusBadRequest, "invalid_scope"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, body := form(tt.tenant, tt.id, tt.secret, tt.scope)
			if status != tt.status || !strings.Contains(body, tt.want) {
				t.Errorf("answer %d %s, want %d with %s", status, body, tt.status, tt.want)
			}
		})
	}
}

// TestLogHoldsNoSecrets: the request log names the client, never its
// secret or its tokens.
func TestLogHoldsNoSecrets(t *testing.T) {
	s := start(t)
	seed(t, s)
	get(t, client(t, s), "allow")
	tok := issue(t, s, ipgroupfake.Audiences[2], time.Hour)
	send(t, s, http.MethodGet, groupURL(s, "allow"), tok, "")
	log := fmt.Sprintf("%+v", s.Requests())
	if strings.Contains(log, ipgroupfake.TestClientSecret) || strings.Contains(log, tok) || strings.Contains(log, "eyJ") {
		t.Errorf("the request log holds a secret or a token: %s", log)
	}
	if !strings.Contains(log, ipgroupfake.TestClientID) {
		t.Errorf("the request log does not name the client: %s", log)
	}
}
