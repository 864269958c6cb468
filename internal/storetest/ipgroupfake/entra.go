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

package ipgroupfake

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Audiences are the audiences ARM accepts in an access token, as its
// InvalidAuthenticationTokenAudience message lists them.
var Audiences = []string{
	"https://management.core.windows.net/",
	"https://management.core.windows.net",
	"https://management.azure.com/",
	"https://management.azure.com",
}

// Scope is the scope a client asks Entra ID for to call ARM.
const Scope = "https://management.azure.com/.default"

// claims are the claims of the access tokens the Server issues, those of
// Entra ID's v1.0 access tokens that ARM reads.
type claims struct {
	jwt.RegisteredClaims
	TenantID string `json:"tid"`
	AppID    string `json:"appid"`
	ObjectID string `json:"oid"`
	Version  string `json:"ver"`
}

// IssueToken returns an access token for p with this audience, valid for
// lifetime from now by the Server's clock (negative: already expired), as
// the token endpoint would issue it, so that a test can present a token
// the SDK would not ask for.
func (s *Server) IssueToken(p ServicePrincipal, audience string, lifetime time.Duration) (string, error) {
	now := s.cfg.now()
	c := claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    "https://sts.windows.net/" + p.TenantID + "/",
			Subject:   p.ClientID,
			Audience:  jwt.ClaimStrings{audience},
			IssuedAt:  jwt.NewNumericDate(now.Add(-time.Minute)),
			NotBefore: jwt.NewNumericDate(now.Add(-time.Minute)),
			ExpiresAt: jwt.NewNumericDate(now.Add(lifetime)),
			ID:        newUUID(),
		},
		TenantID: p.TenantID, AppID: p.ClientID, ObjectID: p.ClientID, Version: "1.0",
	}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodES256, c).SignedString(s.key)
	if err != nil {
		return "", fmt.Errorf("ipgroupfake: sign token: %w", err)
	}
	return tok, nil
}

// authenticate checks r's bearer token as ARM does and returns the
// client ID it was issued to.
func (s *Server) authenticate(r *http.Request) (string, *Error) {
	authority := baseURL(r) + "/" + s.cfg.principals[0].TenantID
	scheme, raw, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	raw = strings.TrimSpace(raw)
	if r.Header.Get("Authorization") == "" {
		return "", errUnauthorized(CodeAuthenticationFailed, "Authentication failed. The 'Authorization' header is missing.", authority)
	}
	if !strings.EqualFold(scheme, "Bearer") || raw == "" {
		return "", errUnauthorized(CodeAuthenticationFailed, "Authentication failed. The 'Authorization' header is provided in an invalid format.", authority)
	}
	var c claims
	_, err := jwt.ParseWithClaims(raw, &c, func(*jwt.Token) (any, error) { return &s.key.PublicKey, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodES256.Alg()}), jwt.WithoutClaimsValidation())
	if err != nil || c.ExpiresAt == nil {
		return "", errUnauthorized(CodeInvalidAuthenticationToken, "The access token is invalid.", authority)
	}
	now := s.cfg.now()
	if !now.Before(c.ExpiresAt.Time) {
		return "", errUnauthorized(CodeExpiredAuthenticationToken, fmt.Sprintf("The access token expiry UTC time '%s' is earlier than current UTC time '%s'.",
			armTime(c.ExpiresAt.Time), armTime(now)), authority)
	}
	if c.NotBefore != nil && now.Before(c.NotBefore.Time) {
		return "", errUnauthorized(CodeInvalidAuthenticationToken, "The access token is not yet valid.", authority)
	}
	if !slices.ContainsFunc(c.Audience, func(a string) bool { return slices.Contains(Audiences, a) }) {
		return "", errUnauthorized(CodeInvalidAuthenticationTokenAudience, fmt.Sprintf(
			"The access token has been obtained for wrong audience or resource '%s'. It should exactly match with one of the allowed audiences %s.",
			strings.Join(c.Audience, ","), "'"+strings.Join(Audiences, "','")+"'"), authority)
	}
	return c.AppID, nil
}

// armTime formats t as ARM's messages do: 8/17/2017 10:54:41 PM.
func armTime(t time.Time) string { return t.UTC().Format("1/2/2006 3:04:05 PM") }

// openIDConfiguration answers a read of a tenant's OpenID configuration,
// which MSAL reads before it asks for a token.
func (s *Server) openIDConfiguration(r *http.Request, tenant string) (answer, *Error) {
	if !s.knowsTenant(tenant) {
		return oauthError(http.StatusBadRequest, "invalid_tenant", fmt.Sprintf("AADSTS90002: Tenant '%s' not found.", tenant))
	}
	base := baseURL(r) + "/" + tenant
	body, _ := json.Marshal(map[string]any{
		"issuer":                                base + "/v2.0",
		"authorization_endpoint":                base + "/oauth2/v2.0/authorize",
		"token_endpoint":                        base + "/oauth2/v2.0/token",
		"token_endpoint_auth_methods_supported": []string{"client_secret_post", "private_key_jwt", "client_secret_basic"},
		"tenant_region_scope":                   "WW",
	})
	return answer{status: http.StatusOK, body: body}, nil
}

func (s *Server) knowsTenant(tenant string) bool {
	return slices.ContainsFunc(s.cfg.principals, func(p ServicePrincipal) bool { return strings.EqualFold(p.TenantID, tenant) })
}

// token answers a client credentials token request: grant_type
// client_credentials, client_id, client_secret (in the form or as HTTP
// basic authentication) and a scope RESOURCE/.default. The token's
// audience is RESOURCE.
func (s *Server) token(r *http.Request, tenant string, body []byte, rec *Record) (answer, *Error) {
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return oauthError(http.StatusBadRequest, "invalid_request", "AADSTS900144: The request body must contain the following parameter: 'grant_type'.")
	}
	id, secret := form.Get("client_id"), form.Get("client_secret")
	if u, p, ok := r.BasicAuth(); ok {
		id, secret = u, p
	}
	rec.ClientID = id
	if form.Get("grant_type") != "client_credentials" {
		return oauthError(http.StatusBadRequest, "unsupported_grant_type", "AADSTS70003: The app requested an unsupported grant type.")
	}
	if !s.knowsTenant(tenant) {
		return oauthError(http.StatusBadRequest, "invalid_request", fmt.Sprintf("AADSTS90002: Tenant '%s' not found.", tenant))
	}
	i := slices.IndexFunc(s.cfg.principals, func(p ServicePrincipal) bool {
		return strings.EqualFold(p.TenantID, tenant) && p.ClientID == id
	})
	if i < 0 {
		return oauthError(http.StatusBadRequest, "unauthorized_client", fmt.Sprintf(
			"AADSTS700016: Application with identifier '%s' was not found in the directory '%s'.", id, tenant))
	}
	p := s.cfg.principals[i]
	if subtle.ConstantTimeCompare([]byte(secret), []byte(p.ClientSecret)) != 1 {
		return oauthError(http.StatusUnauthorized, "invalid_client", fmt.Sprintf(
			"AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '%s'.", id))
	}
	var resource string
	for _, sc := range strings.Fields(form.Get("scope")) {
		if r, ok := strings.CutSuffix(sc, "/.default"); ok && r != "" {
			resource = r
		}
	}
	if resource == "" {
		return oauthError(http.StatusBadRequest, "invalid_scope", fmt.Sprintf(
			"AADSTS1002012: The provided value for scope %s is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI).", form.Get("scope")))
	}
	tok, err := s.IssueToken(p, resource, s.cfg.tokenLifetime)
	if err != nil {
		return oauthError(http.StatusInternalServerError, "temporarily_unavailable", err.Error())
	}
	secs := int64(s.cfg.tokenLifetime / time.Second)
	out, _ := json.Marshal(map[string]any{"token_type": "Bearer", "expires_in": secs, "ext_expires_in": secs, "access_token": tok})
	return answer{status: http.StatusOK, body: out}, nil
}

// oauthError is Entra ID's OAuth 2.0 error answer. It is sent as a
// successful answer is, since its body is not ARM's.
func oauthError(status int, code, description string) (answer, *Error) {
	body, _ := json.Marshal(map[string]any{"error": code, "error_description": description, "error_codes": []int{}})
	return answer{status: status, body: body, code: code}, nil
}
