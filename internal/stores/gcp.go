package stores

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// GCPCredentialsKey is the key of a GCP credentials Secret: a service
// account key.
const GCPCredentialsKey = "credentials.json"

// gcsScope is what listkeeper needs of Cloud Storage: read and write objects.
const gcsScope = "https://www.googleapis.com/auth/devstorage.read_write"

func gcpOptions(ctx context.Context, g *v1alpha1.GCPAuth, rawURL string, secret SecretFunc, policy Policy) ([]etagclient.Option, string, error) {
	var creds *google.Credentials
	var fp string
	var check func(*url.URL) error
	// The token source outlives this call: it refreshes tokens for as long
	// as the client lives.
	bg := context.WithoutCancel(ctx)
	if g.SecretRef != nil {
		vals, err := keys(ctx, secret, g.SecretRef.Name, []string{GCPCredentialsKey})
		if err != nil {
			return nil, "", err
		}
		// Only a service-account key: a credentials file of another type
		// could make the operator fetch tokens from wherever it says.
		c, err := google.CredentialsFromJSONWithType(bg, []byte(vals[GCPCredentialsKey]), google.ServiceAccount, gcsScope)
		if err != nil {
			return nil, "", fmt.Errorf("%w: secret %q key %q is not a usable Google credentials file", ErrSpec, g.SecretRef.Name, GCPCredentialsKey)
		}
		creds, fp = c, fingerprint("gcp-secret", vals)
	} else {
		var err error
		if check, err = ambientCheck(policy, rawURL, "spec.auth.gcp without a Secret", "Cloud Storage (storage.googleapis.com) over https", gcsEndpoint); err != nil {
			return nil, "", err
		}
		c, err := google.FindDefaultCredentials(bg, gcsScope)
		if err != nil {
			return nil, "", fmt.Errorf("%w: Google Application Default Credentials: %w", ErrSpec, err)
		}
		creds, fp = c, fingerprint("gcp-adc", nil)
	}
	var s etagclient.Signer = bearer{oauth2.ReuseTokenSource(nil, creds.TokenSource)}
	if check != nil {
		s = &ambientGate{check: check, next: s}
	}
	return []etagclient.Option{
		etagclient.WithSigner(s),
		etagclient.WithGenerationPreconditions(),
	}, fp, nil
}

// bearer sends an OAuth2 access token, reused until shortly before it
// expires and then renewed by its token source.
type bearer struct{ ts oauth2.TokenSource }

// Sign implements etagclient.Signer.
func (b bearer) Sign(req *http.Request, _ []byte) error {
	tok, err := b.ts.Token()
	if err != nil {
		return fmt.Errorf("OAuth2 token: %w", err)
	}
	tok.SetAuthHeader(req)
	return nil
}
