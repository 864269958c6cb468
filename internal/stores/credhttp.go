package stores

import (
	"net/http"
	"time"
)

// credentialTransport carries every request for a token or for
// credentials (Google's token endpoint, Entra). Tokens are fetched about
// once an hour, so it keeps no idle connections.
var credentialTransport http.RoundTripper = func() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DisableKeepAlives = true
	return t
}()

// credentialRequestTimeout bounds any one credential request.
const credentialRequestTimeout = time.Minute

// newCredentialClient returns the HTTP client of credential requests: it
// follows no redirect (a 3xx is an answer, hence a failure): a token
// endpoint must not send the operator's signed assertion, or its own
// request, on to another host.
func newCredentialClient(base http.RoundTripper) *http.Client {
	return &http.Client{
		Transport:     base,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       credentialRequestTimeout,
	}
}
