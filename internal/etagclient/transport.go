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

package etagclient

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/listkeeper/listkeeper/internal/netfence"
	"github.com/listkeeper/listkeeper/internal/safetext"
)

// sharedTransport serves every Client that brings neither an HTTP client nor
// a TLS config, so connections are pooled across lists of one host.
var sharedTransport = func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 16
	return t
}()

// fencedShared holds the shared transport of each dial fence (one in the
// operator), built from sharedTransport with the fence's dialer, so that
// the lists of one fence pool their connections as the unfenced ones do.
var fencedShared sync.Map // *netfence.Fence → *http.Transport

// shared returns the shared transport of f, sharedTransport for none.
func shared(f *netfence.Fence) *http.Transport {
	if f == nil {
		return sharedTransport
	}
	if t, ok := fencedShared.Load(f); ok {
		return t.(*http.Transport)
	}
	t, _ := fencedShared.LoadOrStore(f, f.Transport(sharedTransport))
	return t.(*http.Transport)
}

// newHTTPClient builds the HTTP client of one Client's backend (see
// BackendEnv.HTTPClient), and returns the transport it built for the Client
// alone (for a TLS config), or nil.
func newHTTPClient(cfg *config, origin *url.URL) (*http.Client, *http.Transport, *budgetTransport) {
	var hc http.Client
	var own *http.Transport
	switch {
	case cfg.httpClient != nil:
		hc = *cfg.httpClient
		if cfg.dialFence != nil {
			if t, ok := hc.Transport.(*http.Transport); ok || hc.Transport == nil {
				if !ok {
					t = http.DefaultTransport.(*http.Transport)
				}
				own = cfg.dialFence.Transport(t)
				hc.Transport = own
			} else {
				hc.Transport = cfg.dialFence.RoundTripper(hc.Transport)
			}
		}
	case cfg.tlsConfig != nil:
		t := shared(cfg.dialFence).Clone()
		t.TLSClientConfig = cfg.tlsConfig.Clone()
		hc.Transport = t
		own = t
	default:
		hc.Transport = shared(cfg.dialFence)
	}
	if hc.Transport == nil {
		hc.Transport = http.DefaultTransport
	}
	var bt *budgetTransport
	if cfg.budget != nil {
		bt = &budgetTransport{next: hc.Transport, budget: cfg.budget, factor: ReadCostFactor, maxBody: cfg.maxBodyBytes}
		hc.Transport = bt
	}
	if cfg.signer != nil {
		hc.Transport = &signingTransport{next: hc.Transport, signer: cfg.signer}
	}
	hc.Transport = &countingTransport{next: hc.Transport, obs: cfg.observer}
	hc.Transport = &fenceTransport{next: hc.Transport, fence: cfg.fence, clock: cfg.clock}
	hc.Timeout = cfg.requestTimeout
	hc.CheckRedirect = sameOriginRedirects(origin)
	return &hc, own, bt
}

// newRetryingClient wraps hc in the retries of the HTTP backend.
func newRetryingClient(cfg *config, hc *http.Client) *retryablehttp.Client {
	maxRetryAfter := cfg.maxRetryAfter
	return &retryablehttp.Client{
		HTTPClient:   hc,
		Logger:       nil, // it would log URLs with query tokens
		RetryWaitMin: cfg.transportWaitMin,
		RetryWaitMax: cfg.transportWaitMax,
		RetryMax:     cfg.transportRetries,
		CheckRetry:   checkRetry,
		Backoff: func(lo, hi time.Duration, n int, resp *http.Response) time.Duration {
			return min(retryablehttp.DefaultBackoff(lo, hi, n, resp), maxRetryAfter)
		},
		// Hand the last response or error back instead of a message that
		// names the URL.
		ErrorHandler: retryablehttp.PassthroughErrorHandler,
	}
}

// checkRetry retries GETs after connection errors, and every request after
// 429 and 5xx (except 501); never a connection the dial fence refused. A PUT that got no answer is not retried here: it
// may have been committed, and the read-modify-write loop resolves that by
// re-reading. Retrying a conditional PUT after a 5xx is safe: if the first
// try was committed after all, If-Match makes the second fail with 412.
func checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if err != nil {
		if errors.Is(err, ErrRedirect) || errors.Is(err, errSign) || errors.Is(err, ErrFenced) || errors.Is(err, ErrMemoryBudget) ||
			errors.Is(err, netfence.ErrNotAllowed) || isCertError(err) {
			return false, nil
		}
		if method := requestMethod(err); method != http.MethodGet && method != "" {
			return false, nil
		}
		return true, nil
	}
	return resp.StatusCode == http.StatusTooManyRequests ||
		(resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented), nil
}

// isCertError reports a certificate that failed verification: retrying
// cannot help, and it is never skipped.
func isCertError(err error) bool {
	var verify *tls.CertificateVerificationError
	var unknown x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	return errors.As(err, &verify) || errors.As(err, &unknown) || errors.As(err, &hostErr) || errors.As(err, &invalid)
}

func requestMethod(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return strings.ToUpper(ue.Op)
	}
	return ""
}

// sameOriginRedirects follows redirects of reads within the scheme and host
// of the list's URL only, so headers from Secrets never travel to another
// host. A write is never followed: Go would turn a PUT answered with 301,
// 302 or 303 into a GET, whose 200 would look like a commit. The redirect
// itself is handed back, and the PUT reports it.
func sameOriginRedirects(origin *url.URL) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if req.URL.Scheme != origin.Scheme || req.URL.Host != origin.Host {
			return fmt.Errorf("%w: to %s", ErrRedirect, safetext.Short(OriginOf(req.URL), maxShownLocation))
		}
		if m := via[0].Method; m != http.MethodGet && m != http.MethodHead {
			return http.ErrUseLastResponse
		}
		if len(via) >= 5 {
			return fmt.Errorf("%w: more than 5 redirects", ErrUnreachable)
		}
		return nil
	}
}

// countingTransport reports every HTTP attempt to the observer.
type countingTransport struct {
	next http.RoundTripper
	obs  Observer
}

func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	code := 0
	if err == nil {
		code = resp.StatusCode
	}
	t.obs.Request(req.Method, code, time.Since(start))
	return resp, err
}

// RedactURL returns u as errors, logs and status may show it: scheme, host
// and path; no user info, no query (neither values nor keys: a token may be
// a key, as in "?TOKEN"), no fragment.
func RedactURL(u *url.URL) string {
	r := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}
	return r.String()
}

// OriginOf returns u's scheme and host only, for a URL whose path may carry
// a token too (one that came from a Secret).
func OriginOf(u *url.URL) string {
	return (&url.URL{Scheme: u.Scheme, Host: u.Host}).String()
}

// transportError reports a request that got no answer, classified as
// ErrUnreachable (or its own class: a refused redirect, a request that could
// not be signed or was fenced), with a fixed description of the cause
// instead of the transport's own text, which may quote what a server sent
// (an unparsable Location header) or the URL with its token. The cause
// stays in the chain for errors.Is and errors.As.
func transportError(method, safeURL string, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if denied, ok := errors.AsType[*netfence.DeniedError](err); ok {
		// Only the refusal: the dial error around it names the address.
		return fmt.Errorf("%s %s: %w", method, safeURL, denied)
	}
	if errors.Is(err, ErrRedirect) || errors.Is(err, errSign) || errors.Is(err, ErrFenced) || errors.Is(err, ErrMemoryBudget) {
		return fmt.Errorf("%s %s: %w", method, safeURL, err)
	}
	return fmt.Errorf("%s %s: %w: %w", method, safeURL, ErrUnreachable, &quietError{what: transportCause(err), cause: err})
}

// quietError shows a fixed description of an error it wraps.
type quietError struct {
	what  string
	cause error
}

func (e *quietError) Error() string { return e.what }
func (e *quietError) Unwrap() error { return e.cause }

// transportCause names the kind of a transport failure in a fixed
// vocabulary.
func transportCause(err error) string {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	var netErr net.Error
	var alert tls.AlertError
	var record tls.RecordHeaderError
	switch {
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()):
		return "timed out"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case isCertError(err):
		return "TLS certificate not trusted"
	case errors.As(err, &dnsErr):
		return "host name not found"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed without an answer"
	case errors.As(err, &alert) || errors.As(err, &record):
		return "TLS handshake failed"
	case errors.As(err, &opErr):
		return "network error"
	default:
		return "request failed"
	}
}

// readBody reads at most limit bytes of resp's body. A longer body is
// ErrTooLarge; it is never truncated silently.
func readBody(resp *http.Response, limit int64) ([]byte, error) {
	if resp.ContentLength > limit {
		return nil, fmt.Errorf("%w: %d bytes, more than %d, the limit (--max-body-bytes raises it)", ErrTooLarge, resp.ContentLength, limit)
	}
	// A body of announced length is read into one allocation of that
	// size; the length is checked after reading all the same.
	var buf bytes.Buffer
	if resp.ContentLength > 0 {
		buf.Grow(int(resp.ContentLength) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(io.LimitReader(resp.Body, limit+1)); err != nil {
		return nil, err
	}
	body := buf.Bytes()
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("%w: more than %d bytes, the limit (--max-body-bytes raises it)", ErrTooLarge, limit)
	}
	return body, nil
}

// checkContentType refuses media types that are clearly not JSON (an HTML
// error page from a proxy, XML). A missing type, or a generic one such as
// application/octet-stream that object stores use, is judged by the body.
func checkContentType(h http.Header) error {
	ct := strings.ToLower(strings.TrimSpace(strings.SplitN(h.Get("Content-Type"), ";", 2)[0]))
	if strings.Contains(ct, "html") || strings.HasSuffix(ct, "xml") {
		return fmt.Errorf("%w: content type %q", ErrNotJSON, ct)
	}
	return nil
}

// checkContentEncoding refuses a body in a content coding: the client asks
// for identity, and decoding one would hide that the ETag may belong to the
// coded form.
func checkContentEncoding(h http.Header) error {
	ce := strings.ToLower(strings.TrimSpace(h.Get("Content-Encoding")))
	if ce != "" && ce != "identity" {
		return fmt.Errorf("%w: content coding %q although identity was asked for", ErrNotJSON, ce)
	}
	return nil
}

// drain reads what is left of a body (up to 4 MiB, enough for the echo of a
// large list) so the connection can be reused, and closes it.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<20))
	_ = resp.Body.Close()
}
