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

package stores

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	"golang.org/x/oauth2/jwt"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// GCPCredentialsKey is the key of a GCP credentials Secret: a service
// account key.
const GCPCredentialsKey = "credentials.json"

// GoogleTokenURIs are the token endpoints a service-account key's
// token_uri may name without Policy.GCPTokenURIs: Google's OAuth 2.0 token
// endpoint, which keys carry today, and the one that keys made before 2019
// carry, which Google still serves. A key without token_uri uses the first.
var GoogleTokenURIs = []string{"https://oauth2.googleapis.com/token", "https://accounts.google.com/o/oauth2/token"}

// ErrTokenURINotAllowed is wrapped by the error of a service-account key
// whose token_uri is neither Google's token endpoint nor one of
// Policy.GCPTokenURIs. It wraps ErrSpec.
var ErrTokenURINotAllowed = fmt.Errorf("%w: the key's token_uri is neither Google's token endpoint nor one the operator allows", ErrSpec)

// gcsScope is what listkeeper needs of Cloud Storage: read and write objects.
const gcsScope = "https://www.googleapis.com/auth/devstorage.read_write"

func gcpOptions(ctx context.Context, g *v1alpha1.GCPAuth, rawURL string, secret SecretFunc, policy Policy) ([]etagclient.Option, string, error) {
	s, fp, err := googleSigner(ctx, g, secret, policy, googleAccess{
		scope: gcsScope, rawURL: rawURL, fingerprint: "gcp",
		endpoints: "Cloud Storage (storage.googleapis.com) over https", endpoint: gcsEndpoint,
	})
	if err != nil {
		return nil, "", err
	}
	return []etagclient.Option{
		etagclient.WithSigner(s),
		etagclient.WithDialect(GCS),
	}, fp, nil
}

// googleAccess is what a list needs of Google's tokens: the OAuth 2.0
// scope to ask for, and, for the operator's own identity, where the list
// sends it (rawURL) and where it may go (endpoint, described in words by
// endpoints). fingerprint prefixes the kind of the credentials'
// fingerprint.
type googleAccess struct {
	scope       string
	rawURL      string
	fingerprint string
	endpoints   string
	endpoint    func(host string) bool
}

// googleSigner returns a signer that sends OAuth 2.0 bearer tokens for
// a.scope, and a fingerprint of the credentials: from the service-account
// key of g's Secret (its token_uri checked against policy), or, without a
// Secret and only where policy allows it for a.rawURL, from the
// operator's own Application Default Credentials, gated to a.endpoint and
// the policy's ambient hosts for every request. Tokens are fetched under
// the context of the request that needs them and reused until shortly
// before they expire. GCS lists (gcpOptions) and IAM bindings
// (GCPIAMBackend) share it.
func googleSigner(ctx context.Context, g *v1alpha1.GCPAuth, secret SecretFunc, policy Policy, a googleAccess) (etagclient.Signer, string, error) {
	base := credentialTransport
	if g.SecretRef != nil {
		vals, err := keys(ctx, secret, g.SecretRef.Name, []string{GCPCredentialsKey})
		if err != nil {
			return nil, "", err
		}
		cfg, err := serviceAccountKey([]byte(vals[GCPCredentialsKey]), a.scope, policy.GCPTokenURIs)
		if err != nil {
			return nil, "", fmt.Errorf("secret %q key %q: %w", g.SecretRef.Name, GCPCredentialsKey, err)
		}
		// The key's token_uri is the Secret's choice: its requests go
		// through the dial fence (ADC's below are the operator's own).
		keyBase := fencedCredentialTransport(policy.DialFence)
		s := &bearer{tokens: newTokenCache(func(ctx context.Context) (*oauth2.Token, error) {
			return cfg.TokenSource(oauthContext(ctx, keyBase)).Token()
		})}
		return s, fingerprint(a.fingerprint+"-secret", vals), nil
	}
	check, err := ambientCheck(policy, a.rawURL, "spec.auth.gcp without a Secret", a.endpoints, a.endpoint)
	if err != nil {
		return nil, "", err
	}
	// Application Default Credentials are looked up afresh for each
	// token, under the signing request's context; the metadata server's
	// client ignores it, hence within.
	adc := func(ctx context.Context) (*oauth2.Token, error) {
		return within(ctx, func() (*oauth2.Token, error) {
			c, err := google.FindDefaultCredentials(oauthContext(ctx, base), a.scope)
			if err != nil {
				return nil, err
			}
			return c.TokenSource.Token()
		})
	}
	if _, err := within(ctx, func() (*google.Credentials, error) {
		return google.FindDefaultCredentials(oauthContext(ctx, base), a.scope)
	}); err != nil {
		return nil, "", fmt.Errorf("%w: Google Application Default Credentials: %w", ErrSpec, err)
	}
	return &ambientGate{check: check, next: &bearer{tokens: newTokenCache(adc)}}, fingerprint(a.fingerprint+"-adc", nil), nil
}

// serviceAccountKey parses a service-account key (only that type: an
// OAuth client or an external account would make the operator fetch
// tokens however the file says) and checks its token_uri against Google's
// and extra. Its tokens are for scope.
func serviceAccountKey(key []byte, scope string, extra []string) (*jwt.Config, error) {
	cfg, err := google.JWTConfigFromJSON(key, scope)
	if err != nil {
		return nil, fmt.Errorf("%w: not a usable Google service-account key", ErrSpec)
	}
	if !tokenURIAllowed(cfg.TokenURL, extra) {
		return nil, ErrTokenURINotAllowed
	}
	return cfg, nil
}

// tokenURIAllowed reports whether a key's token_uri is one of
// GoogleTokenURIs or extra.
func tokenURIAllowed(tokenURI string, extra []string) bool {
	k, ok := tokenURIKey(tokenURI)
	if !ok {
		return false
	}
	return slices.ContainsFunc(append(slices.Clip(GoogleTokenURIs), extra...), func(allowed string) bool {
		a, ok := tokenURIKey(allowed)
		return ok && a == k
	})
}

// tokenURIKey is what two token URIs are compared by: scheme and host
// lower-cased, the path as it is. A URI with user info, a query or a
// fragment, or that is not absolute http or https, has none.
func tokenURIKey(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.Opaque != "" {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", false
	}
	return scheme + "://" + strings.ToLower(u.Host) + u.EscapedPath(), true
}

// oauthContext returns ctx with the HTTP client that golang.org/x/oauth2
// uses for token requests made under it: one that follows no redirect
// and ends each request with ctx, also where the library makes it
// without a context.
func oauthContext(ctx context.Context, base http.RoundTripper) context.Context {
	return context.WithValue(ctx, oauth2.HTTPClient, newCredentialClient(ctx, base))
}

// bearer sends an OAuth2 access token from its cache.
type bearer struct{ tokens *tokenCache }

// Sign implements etagclient.Signer.
func (b *bearer) Sign(req *http.Request, _ []byte) error {
	tok, err := b.tokens.token(req.Context())
	if err != nil {
		return fmt.Errorf("OAuth2 token: %w", signError(req.Context(), err))
	}
	tok.SetAuthHeader(req)
	return nil
}

// tokenCache holds an OAuth2 access token until shortly before it expires
// (oauth2.Token.Valid), and fetches a new one under the context of the
// request that needs it: one fetch at a time, and a request that waits
// for its turn gives up when its context ends. It is safe for concurrent
// use.
type tokenCache struct {
	fetch func(ctx context.Context) (*oauth2.Token, error)
	turn  chan struct{}

	mu  sync.Mutex
	tok *oauth2.Token
}

func newTokenCache(fetch func(ctx context.Context) (*oauth2.Token, error)) *tokenCache {
	return &tokenCache{fetch: fetch, turn: make(chan struct{}, 1)}
}

func (c *tokenCache) cached() *oauth2.Token {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tok.Valid() {
		return c.tok
	}
	return nil
}

func (c *tokenCache) token(ctx context.Context) (*oauth2.Token, error) {
	if tok := c.cached(); tok != nil {
		return tok, nil
	}
	select {
	case c.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	defer func() { <-c.turn }()
	if tok := c.cached(); tok != nil {
		return tok, nil
	}
	tok, err := c.fetch(ctx)
	if err != nil {
		return nil, err
	}
	if !tok.Valid() {
		return nil, errors.New("the token endpoint returned no usable token")
	}
	c.mu.Lock()
	c.tok = tok
	c.mu.Unlock()
	return tok, nil
}
