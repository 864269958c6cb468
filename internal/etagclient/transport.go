package etagclient

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// sharedTransport serves every Client that brings neither an HTTP client nor
// a TLS config, so connections are pooled across lists of one host.
var sharedTransport = func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 16
	return t
}()

// newHTTPClient builds the retrying HTTP client of one Client, and returns
// the transport it built for the Client alone (for a TLS config), or nil.
func newHTTPClient(cfg *config, origin *url.URL) (*retryablehttp.Client, *http.Transport) {
	var hc http.Client
	var own *http.Transport
	switch {
	case cfg.httpClient != nil:
		hc = *cfg.httpClient
	case cfg.tlsConfig != nil:
		t := sharedTransport.Clone()
		t.TLSClientConfig = cfg.tlsConfig.Clone()
		hc.Transport = t
		own = t
	default:
		hc.Transport = sharedTransport
	}
	if hc.Transport == nil {
		hc.Transport = http.DefaultTransport
	}
	if cfg.signer != nil {
		hc.Transport = &signingTransport{next: hc.Transport, signer: cfg.signer}
	}
	hc.Transport = &countingTransport{next: hc.Transport, obs: cfg.observer}
	hc.Transport = &fenceTransport{next: hc.Transport, fence: cfg.fence, clock: cfg.clock}
	hc.Timeout = cfg.requestTimeout
	hc.CheckRedirect = sameOriginRedirects(origin)

	maxRetryAfter := cfg.maxRetryAfter
	return &retryablehttp.Client{
		HTTPClient:   &hc,
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
	}, own
}

// checkRetry retries GETs after connection errors, and every request after
// 429 and 5xx (except 501). A PUT that got no answer is not retried here: it
// may have been committed, and the read-modify-write loop resolves that by
// re-reading. Retrying a conditional PUT after a 5xx is safe: if the first
// try was committed after all, If-Match makes the second fail with 412.
func checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if err != nil {
		if errors.Is(err, ErrRedirect) || errors.Is(err, errSign) || errors.Is(err, ErrFenced) || isCertError(err) {
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
			return fmt.Errorf("%w: to %s", ErrRedirect, RedactURL(req.URL))
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

// RedactURL returns u without user info and with every query value replaced,
// for errors and logs.
func RedactURL(u *url.URL) string {
	r := *u
	r.User = nil
	if r.RawQuery != "" {
		q := r.Query()
		for k := range q {
			q[k] = []string{"REDACTED"}
		}
		r.RawQuery = q.Encode()
	}
	r.Fragment = ""
	return r.String()
}

// transportError strips the URL (which may hold a token) from a transport
// error and classifies it as ErrUnreachable, keeping the cause for errors.Is.
func transportError(method, safeURL string, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(err, ErrRedirect) || errors.Is(err, errSign) {
		return fmt.Errorf("%s %s: %w", method, safeURL, err)
	}
	return fmt.Errorf("%s %s: %w: %w", method, safeURL, ErrUnreachable, err)
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

// storeCode returns the <Code> of an object store's XML error body (S3,
// Azure and GCS share the shape), or "". It reads at most 16 KiB; the body
// is never logged, as S3's can hold the request's session token.
func storeCode(resp *http.Response) string {
	ct := strings.ToLower(resp.Header.Get("Content-Type"))
	if !strings.Contains(ct, "xml") {
		if code := resp.Header.Get("x-ms-error-code"); code != "" {
			return sanitizeCode(code)
		}
		return ""
	}
	var e struct {
		Code string `xml:"Code"`
	}
	if err := xml.NewDecoder(io.LimitReader(resp.Body, 16<<10)).Decode(&e); err != nil {
		return sanitizeCode(resp.Header.Get("x-ms-error-code"))
	}
	return sanitizeCode(e.Code)
}

// sanitizeCode keeps a store code to what such codes are made of, so a
// hostile server cannot put arbitrary text into conditions.
func sanitizeCode(code string) string {
	code = strings.TrimSpace(code)
	if len(code) > 64 {
		return ""
	}
	for _, r := range code {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
		default:
			return ""
		}
	}
	return code
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
