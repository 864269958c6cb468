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
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/listkeeper/listkeeper/internal/netfence"
)

// credentialTransport carries every request for a token or for
// credentials that this package makes itself (Google's token endpoint,
// Entra; the AWS chain uses the SDK's own client). Tokens are fetched
// about once an hour, so it keeps no idle connections. Tests replace it
// before they call Options (export_test.go).
var credentialTransport = func() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DisableKeepAlives = true
	return t
}()

// fencedCredentials holds the fenced credential transport of each dial
// fence (one in the operator).
var fencedCredentials sync.Map // *netfence.Fence → http.RoundTripper

// fencedCredentialTransport returns credentialTransport with f's dialer,
// for credential requests whose endpoint a list's Secret chooses (a
// service-account key's token_uri); credentialTransport itself for no
// fence. The operator's own ambient chains keep credentialTransport:
// they must reach the provider's metadata endpoint, which the fence
// refuses, and no tenant chooses where they go.
func fencedCredentialTransport(f *netfence.Fence) http.RoundTripper {
	if f == nil {
		return credentialTransport
	}
	if rt, ok := fencedCredentials.Load(f); ok {
		return rt.(http.RoundTripper)
	}
	rt, _ := fencedCredentials.LoadOrStore(f, f.RoundTripper(credentialTransport))
	return rt.(http.RoundTripper)
}

// credentialRequestTimeout bounds any one credential request, also one
// that no signing request's context bounds.
const credentialRequestTimeout = time.Minute

// newCredentialClient returns the HTTP client of credential requests: it
// follows no redirect (a 3xx is an answer, hence a failure) and, when
// bound can end (context.Background cannot), ends each request when bound
// ends (see boundTransport).
func newCredentialClient(bound context.Context, base http.RoundTripper) *http.Client {
	rt := base
	if bound.Done() != nil {
		rt = &boundTransport{base: base, bound: bound}
	}
	return &http.Client{
		Transport:     rt,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       credentialRequestTimeout,
	}
}

// signingContextKey is the context key of the signing request's context.
type signingContextKey struct{}

// withSigningContext returns ctx marked as the context of a signing
// request, for the credential requests made under it. A library may strip
// its deadline and cancellation on the way (aws.CredentialsCache does, so
// that one caller's deadline does not fail the others that wait for the
// same fetch), but it passes its values on, and the credential request
// ends with ctx all the same (bindToSigningRequest).
func withSigningContext(ctx context.Context) context.Context {
	return context.WithValue(ctx, signingContextKey{}, ctx)
}

// signingContext returns the context withSigningContext put into ctx.
func signingContext(ctx context.Context) (context.Context, bool) {
	bound, ok := ctx.Value(signingContextKey{}).(context.Context)
	return bound, ok
}

// boundTransport ends each request when bound, the context of the signing
// request that wanted a token, ends, also when the library that makes the
// request gave it no context (golang.org/x/oauth2's JWT flow posts with
// none). A token fetch then never outlives the attempt that wanted it,
// and a token endpoint that does not answer holds no worker.
type boundTransport struct {
	base  http.RoundTripper
	bound context.Context
}

// RoundTrip implements http.RoundTripper.
func (t *boundTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	stop := context.AfterFunc(t.bound, func() { cancel(context.Cause(t.bound)) })
	release := func() {
		stop()
		cancel(nil)
	}
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		release()
		return nil, err
	}
	resp.Body = &releasingBody{ReadCloser: resp.Body, release: release}
	return resp, nil
}

// releasingBody releases a request's context when its body is closed.
type releasingBody struct {
	io.ReadCloser
	once    sync.Once
	release func()
}

func (b *releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.release)
	return err
}

// within runs f, which may ignore ctx (the metadata server's client of
// golang.org/x/oauth2/google does), and returns its result, or ctx's error
// as soon as ctx ends. An abandoned f runs on to its own end (its client's
// timeouts) and its result is dropped.
func within[T any](ctx context.Context, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, context.Cause(ctx)
	}
}
