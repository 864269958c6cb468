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

// Package gcstoken is a fake Google OAuth 2.0 token endpoint for tests of
// clients that authenticate to Google Cloud Storage with a service-account
// key (credentials.json), so that they can be run against the gcs profile
// of internal/fakeapi with access tokens that really expire.
//
// A Server is an http.Handler; serve it on 127.0.0.1 (httptest.NewServer
// does) and give NewServiceAccountKey the URL of its TokenPath. The key it
// returns is a service-account key JSON whose token_uri points there, with
// an RSA key generated on the spot, so that
// golang.org/x/oauth2/google.CredentialsFromJSONWithType (or
// CredentialsFromJSON) obtains its tokens from the fake. Plug Valid into
// fakeapi.WithTokenCheck and the fake list server accepts exactly the
// tokens this endpoint issued and that have not expired yet.
//
// internal/stores honours a key's token_uri only when it is Google's token
// endpoint or one of stores.Policy.GCPTokenURIs: a test of the operator
// puts the Server's TokenPath URL there, as it is, or the key is refused
// before any request.
//
// # The token endpoint
//
// POST TokenPath with a form, as Google's token endpoint takes it for a
// service account (the JWT-bearer grant, RFC 7523):
//
//   - grant_type must be urn:ietf:params:oauth:grant-type:jwt-bearer, or
//     the answer is 400 unsupported_grant_type.
//   - assertion is a JWT signed with RS256 by the key of a service account
//     this Server made: iss is its client_email, aud its token_uri, iat and
//     exp bracket the current time (WithClock; a minute of leeway) and are
//     at most an hour apart, and scope is not empty. The signature is
//     verified with the account's public key, by
//     github.com/golang-jwt/jwt/v5. If kid is given it must be the key's
//     private_key_id. A failure is 400 invalid_grant (invalid_scope for a
//     missing scope), with Google's error_description where known.
//   - Success is 200 application/json
//     {"access_token":"ya29.…","expires_in":N,"token_type":"Bearer"},
//     where N is the token's lifetime (WithLifetime) in whole seconds,
//     rounded down, and the token is valid for exactly the lifetime from
//     when it was issued.
//
// Other methods get 405, other paths 404. Stats counts what it did.
//
// # Scope and limitations
//
//   - Only the JWT-bearer grant of service-account keys: no refresh
//     tokens, authorized-user or external-account credentials, ID tokens,
//     self-signed JWT access (credentials that skip the endpoint), token
//     revocation or tokeninfo, and no metadata server (Workload Identity).
//   - Scopes are required but not checked against anything; every token is
//     good for every request.
//   - Issued tokens are kept in memory and never forgotten; keep a Server
//     for one test.
//   - Time comes from WithClock; the oauth2 library on the client side
//     always uses the real clock, so a test of refreshing across an expiry
//     runs in real time, and one that only needs a token to be expired
//     moves the Server's clock instead.
//   - A client sees the token's expiry as when the answer arrived plus
//     expires_in, a little after the Server's, so it must refresh early, as
//     against Google. golang.org/x/oauth2 refreshes 10 s early by default:
//     with lifetimes shorter than that, oauth2.ReuseTokenSource fetches a
//     new token for every request, and oauth2.ReuseTokenSourceWithExpiry
//     picks a smaller margin.
package gcstoken
