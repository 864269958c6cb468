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
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/listkeeper/listkeeper/internal/netfence"
	"github.com/listkeeper/listkeeper/internal/safetext"
)

// The HTTP backend: the list as a JSON document behind the HTTP list
// contract, one GET or one PUT with the answer classified. Nothing here
// touches the cache or decides what a cycle does next.

// httpBackend is the Backend of a JSON document at a URL.
type httpBackend struct {
	url     string // may carry credentials, never printed
	safeURL string
	cfg     *config
	pointer Pointer
	http    *retryablehttp.Client
	// own is the transport built for this backend alone (for a TLS
	// config), whose idle connections Close drops; nil otherwise.
	own *http.Transport
}

var _ Backend = (*httpBackend)(nil)

// httpVersion is what the HTTP backend keeps in Version.Data for a store
// whose writes are conditional on a version header: that header's value.
// Version.Tag is the ETag, which revalidates reads.
type httpVersion struct{ generation string }

// versionOf returns the Version of an answer's validators.
func versionOf(etag, generation string) Version {
	v := Version{Tag: etag}
	if generation != "" {
		v.Data = httpVersion{generation: generation}
	}
	return v
}

// generationOf returns the generation a Version carries, or "".
func generationOf(v Version) string {
	g, _ := v.Data.(httpVersion)
	return g.generation
}

// Close implements Backend.
func (b *httpBackend) Close() {
	if b.own != nil {
		b.own.CloseIdleConnections()
	}
}

// weakETagPoll is how often a read that got a weak ETag is repeated while
// the weak-ETag wait lasts.
const weakETagPoll = 100 * time.Millisecond

// Read implements Backend. A weak ETag is waited out for up to the
// weak-ETag wait: Apache serves one for a second after each write, because
// the file's modification time cannot yet tell two versions apart. The wait
// starts again whenever the weak ETag changes, since that means other
// writers are making progress, not that the server will never be safe to
// write to.
func (b *httpBackend) Read(ctx context.Context, have Version) (ReadAnswer, error) {
	var weakSince time.Time
	lastWeak := ""
	for {
		ans, err := b.get(ctx, have.Tag)
		if tag, weak := weakTag(err); weak && b.cfg.weakETagWait > 0 {
			now := b.cfg.clock.Now()
			if weakSince.IsZero() || tag != lastWeak {
				weakSince, lastWeak = now, tag
			}
			if now.Sub(weakSince) < b.cfg.weakETagWait {
				select {
				case <-b.cfg.clock.After(weakETagPoll):
					continue
				case <-ctx.Done():
				}
			}
		}
		if err != nil {
			return ReadAnswer{}, err
		}
		if ans.NotModified {
			// Keep what the 304 did not restate.
			v := have
			if ans.Version.Tag != "" {
				v.Tag = ans.Version.Tag
			}
			if g := generationOf(ans.Version); g != "" {
				v.Data = httpVersion{generation: g}
			}
			ans.Version = v
		}
		return ans, nil
	}
}

// get GETs the document, revalidating with ifNoneMatch when it is not "".
func (b *httpBackend) get(ctx context.Context, ifNoneMatch string) (ReadAnswer, error) {
	req, err := b.newRequest(ctx, http.MethodGet, nil)
	if err != nil {
		return ReadAnswer{}, err
	}
	req.Header.Set("Accept", "application/json")
	if ifNoneMatch != "" {
		req.Header.Set("If-None-Match", ifNoneMatch)
	}
	resp, err := b.http.Do(req)
	if err != nil {
		return ReadAnswer{}, transportError(http.MethodGet, b.safeURL, err)
	}
	defer drain(resp)
	switch resp.StatusCode {
	case http.StatusNotModified:
		// Only a revalidation may answer 304.
		if ifNoneMatch == "" {
			return ReadAnswer{}, fmt.Errorf("GET %s: %w", b.safeURL, b.statusError(http.MethodGet, resp))
		}
		// A 304 may carry the current spelling of the tag (RFC 9110
		// 15.4.5); a server that varies it by content coding needs us to
		// use that one. A weak or malformed one is ignored.
		etag, _ := ParseETag(resp.Header)
		gen, _ := b.parseGeneration(resp.Header)
		return ReadAnswer{NotModified: true, Version: versionOf(etag, gen)}, nil
	case http.StatusNotFound:
		// An object store says whether the object or its bucket is
		// missing: only a missing object can be created.
		if code := b.cfg.dialect.code(resp); b.cfg.dialect.containerMissing(code) {
			return ReadAnswer{}, fmt.Errorf("GET %s: %w", b.safeURL, b.codeError(http.MethodGet, resp.StatusCode, code))
		}
		return ReadAnswer{Absent: true}, nil
	case http.StatusOK:
	default:
		return ReadAnswer{}, fmt.Errorf("GET %s: %w", b.safeURL, b.statusError(http.MethodGet, resp))
	}
	// The content type is checked before the ETag: an HTML page from a
	// proxy or a login portal usually has no ETag, and "not JSON" is the
	// diagnosis that points the user at the real problem.
	if err := checkContentType(resp.Header); err != nil {
		return ReadAnswer{}, fmt.Errorf("GET %s: %w", b.safeURL, err)
	}
	if err := checkContentEncoding(resp.Header); err != nil {
		return ReadAnswer{}, fmt.Errorf("GET %s: %w", b.safeURL, err)
	}
	etag, gen, err := b.version(resp.Header)
	if err != nil {
		return ReadAnswer{}, fmt.Errorf("GET %s: %w", b.safeURL, err)
	}
	body, err := readBody(resp, b.cfg.maxBodyBytes)
	if err != nil {
		if errors.Is(err, ErrTooLarge) || errors.Is(err, ErrMemoryBudget) {
			return ReadAnswer{}, fmt.Errorf("GET %s: %w", b.safeURL, err)
		}
		return ReadAnswer{}, transportError(http.MethodGet, b.safeURL, err)
	}
	doc, err := parseDocument(body, b.pointer, b.cfg.maxItems)
	if err != nil {
		return ReadAnswer{}, fmt.Errorf("GET %s: %w", b.safeURL, err)
	}
	return ReadAnswer{Doc: doc, Version: versionOf(etag, gen)}, nil
}

// statusError is the error of an unexpected status, classified by the
// dialect's error code when it decides.
func (b *httpBackend) statusError(method string, resp *http.Response) *StatusError {
	return b.codeError(method, resp.StatusCode, b.cfg.dialect.code(resp))
}

func (b *httpBackend) codeError(method string, status int, code string) *StatusError {
	return &StatusError{Method: method, Code: status, StoreCode: code, class: b.cfg.dialect.class(code)}
}

// version reads the validators of a 200 answer: the strong ETag, which a
// plain server needs for If-Match; and for a store whose writes are
// conditional on a version header, that header's value, which it needs
// instead (its ETag then only serves If-None-Match, and may be missing or
// weak).
func (b *httpBackend) version(h http.Header) (etag, generation string, err error) {
	if !b.cfg.dialect.byVersionHeader() {
		etag, err = ParseETag(h)
		return etag, "", err
	}
	etag, _ = ParseETag(h)
	generation, err = b.parseGeneration(h)
	return etag, generation, err
}

// parseGeneration returns the version the dialect's version header
// carries: a decimal integer; "" and no error when the dialect has none.
func (b *httpBackend) parseGeneration(h http.Header) (string, error) {
	if !b.cfg.dialect.byVersionHeader() {
		return "", nil
	}
	g := strings.TrimSpace(h.Get(b.cfg.dialect.VersionHeader))
	if g == "" {
		return "", ErrMissingGeneration
	}
	if _, err := strconv.ParseUint(g, 10, 64); err != nil {
		return "", fmt.Errorf("%w: %q", ErrMalformedGeneration, g)
	}
	return g, nil
}

// Write implements Backend: it PUTs next conditionally, with If-Match on
// the ETag read, or If-None-Match: * to create; for a store with a version
// header, that header on the version read, or 0 to create. An error means
// the cycle must fail.
func (b *httpBackend) Write(ctx context.Context, next *Document, create bool, base Version) (WriteAnswer, error) {
	req, err := b.newRequest(ctx, http.MethodPut, next.body)
	if err != nil {
		return WriteAnswer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	d := b.cfg.dialect
	switch {
	case d.byVersionHeader() && create:
		req.Header.Set(d.IfVersionHeader, "0")
	case d.byVersionHeader():
		req.Header.Set(d.IfVersionHeader, generationOf(base))
	case create:
		req.Header.Set("If-None-Match", "*")
	default:
		req.Header.Set("If-Match", base.Tag)
	}
	resp, err := b.http.Do(req)
	if err != nil {
		if errors.Is(err, ErrFenced) || errors.Is(context.Cause(ctx), ErrFenced) {
			return WriteAnswer{Outcome: WriteUnknown, Cause: err}, nil
		}
		if errors.Is(err, ErrRedirect) || errors.Is(err, errSign) || errors.Is(err, netfence.ErrNotAllowed) || isCertError(err) || ctx.Err() != nil {
			return WriteAnswer{}, transportError(http.MethodPut, b.safeURL, err)
		}
		return WriteAnswer{Outcome: WriteUnknown, Cause: err}, nil
	}
	defer drain(resp)
	code := resp.StatusCode
	switch {
	case code == http.StatusOK || code == http.StatusCreated || code == http.StatusNoContent:
		etag, _ := ParseETag(resp.Header) // "" on every error
		gen, _ := b.parseGeneration(resp.Header)
		v := versionOf(etag, gen)
		if (d.byVersionHeader() && gen == "") || (!d.byVersionHeader() && etag == "") {
			b.cfg.log.V(1).Info("PUT answer carried no usable version; the next change re-reads", "url", b.safeURL)
			v = Version{}
		}
		return WriteAnswer{Outcome: WriteCommitted, Stored: b.stored(resp, next), Version: v}, nil
	case code == http.StatusPreconditionFailed || b.isConflict(code):
		return WriteAnswer{Outcome: WriteLost}, nil
	case code == http.StatusBadGateway || code == http.StatusGatewayTimeout:
		// A gateway that gave up may have passed the write on.
		return WriteAnswer{Outcome: WriteUnknown}, nil
	case code >= 300 && code < 400:
		return WriteAnswer{}, fmt.Errorf("PUT %s: %w: the server answered %d %s to %s; point spec.url at the document's own URL",
			b.safeURL, ErrWriteRedirected, code, http.StatusText(code), b.location(resp))
	case code == http.StatusPreconditionRequired:
		return WriteAnswer{}, fmt.Errorf("PUT %s: %w: the server answered 428 to a PUT that carried a precondition", b.safeURL, ErrUnsafeServer)
	case code == http.StatusRequestEntityTooLarge:
		return WriteAnswer{}, fmt.Errorf("PUT %s: %w: the server refused %d bytes (413)", b.safeURL, ErrRejected, next.size())
	default:
		return WriteAnswer{}, fmt.Errorf("PUT %s: %w", b.safeURL, b.statusError(http.MethodPut, resp))
	}
}

// location returns the redirect target of resp for messages: its scheme,
// host and path, at most maxShownLocation bytes, only when it parses as an
// http or https URL; a fixed text otherwise.
func (b *httpBackend) location(resp *http.Response) string {
	loc, err := resp.Location()
	if err != nil || (loc.Scheme != "http" && loc.Scheme != "https") || loc.Host == "" {
		return "a Location that is not an http(s) URL"
	}
	return safetext.Short(RedactURL(loc), maxShownLocation)
}

// maxShownLocation bounds how much of a redirect target a message quotes.
const maxShownLocation = 200

// stored returns the document the server holds after a PUT. RFC 9110: the
// body of a 2xx answer to a PUT describes the outcome, not the stored
// representation, unless Content-Location names the target URL; only then
// is it taken (a server may add fields on write that the next write must
// keep). Otherwise what was sent is what is stored.
func (b *httpBackend) stored(resp *http.Response, sent *Document) *Document {
	cl := resp.Header.Get("Content-Location")
	if cl == "" || resp.StatusCode == http.StatusNoContent || checkContentType(resp.Header) != nil {
		return sent
	}
	loc, err := resp.Request.URL.Parse(cl)
	if err != nil || !sameResource(loc, resp.Request.URL) {
		return sent
	}
	body, err := readBody(resp, b.cfg.maxBodyBytes)
	if err != nil || len(bytes.TrimSpace(body)) == 0 || string(body) == sent.raw {
		return sent
	}
	doc, err := parseDocument(body, b.pointer, b.cfg.maxItems)
	if err != nil {
		return sent
	}
	return doc
}

func sameResource(a, b *url.URL) bool {
	path := func(u *url.URL) string {
		if p := u.EscapedPath(); p != "" {
			return p
		}
		return "/"
	}
	return a.Scheme == b.Scheme && a.Host == b.Host && path(a) == path(b) && a.RawQuery == b.RawQuery
}

// newRequest builds a request with the configured headers. It asks for the
// identity coding: a server that derives the ETag from the content coding
// (Apache's "-gzip" suffix, nginx weakening compressed ETags) then gives the
// tag that If-Match compares against.
func (b *httpBackend) newRequest(ctx context.Context, method string, body retryablehttp.ReaderFunc) (*retryablehttp.Request, error) {
	var body2 any
	if body != nil {
		body2 = body
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, method, b.url, body2)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, b.safeURL, err)
	}
	for k, vs := range b.cfg.headers {
		req.Header[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	req.Header.Set("User-Agent", "listkeeper-etagclient/1")
	req.Header.Set("Accept-Encoding", "identity")
	return req, nil
}
