package stores

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

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
	// The token source outlives this call: it refreshes tokens for as long
	// as the client lives. Its requests follow no redirect.
	bg := context.WithValue(context.WithoutCancel(ctx), oauth2.HTTPClient, newCredentialClient(credentialTransport))
	var ts oauth2.TokenSource
	var fp string
	var check func(*url.URL) error
	if g.SecretRef != nil {
		vals, err := keys(ctx, secret, g.SecretRef.Name, []string{GCPCredentialsKey})
		if err != nil {
			return nil, "", err
		}
		cfg, err := serviceAccountKey([]byte(vals[GCPCredentialsKey]), policy.GCPTokenURIs)
		if err != nil {
			return nil, "", fmt.Errorf("secret %q key %q: %w", g.SecretRef.Name, GCPCredentialsKey, err)
		}
		ts, fp = cfg.TokenSource(bg), fingerprint("gcp-secret", vals)
	} else {
		var err error
		if check, err = ambientCheck(policy, rawURL, "spec.auth.gcp without a Secret", "Cloud Storage (storage.googleapis.com) over https", gcsEndpoint); err != nil {
			return nil, "", err
		}
		c, err := google.FindDefaultCredentials(bg, gcsScope)
		if err != nil {
			return nil, "", fmt.Errorf("%w: Google Application Default Credentials: %w", ErrSpec, err)
		}
		ts, fp = c.TokenSource, fingerprint("gcp-adc", nil)
	}
	var s etagclient.Signer = bearer{oauth2.ReuseTokenSource(nil, ts)}
	if check != nil {
		s = &ambientGate{check: check, next: s}
	}
	return []etagclient.Option{
		etagclient.WithSigner(s),
		etagclient.WithGenerationPreconditions(),
	}, fp, nil
}

// serviceAccountKey parses a service-account key (only that type: an
// OAuth client or an external account would make the operator fetch
// tokens however the file says) and checks its token_uri against Google's
// and extra.
func serviceAccountKey(key []byte, extra []string) (*jwt.Config, error) {
	cfg, err := google.JWTConfigFromJSON(key, gcsScope)
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

// bearer sends an OAuth2 access token, reused until shortly before it
// expires and then renewed by its token source.
type bearer struct{ ts oauth2.TokenSource }

// Sign implements etagclient.Signer.
func (b bearer) Sign(req *http.Request, _ []byte) error {
	tok, err := b.ts.Token()
	if err != nil {
		return fmt.Errorf("OAuth2 token: %w", credentialError(err))
	}
	tok.SetAuthHeader(req)
	return nil
}
