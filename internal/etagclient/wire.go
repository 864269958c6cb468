package etagclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/listkeeper/listkeeper/internal/safetext"
)

// The wire: one GET or one PUT, with the answer classified. Nothing here
// touches the cache or decides what a cycle does next.

// getAnswer is what a GET said: a fresh document, "not modified", or
// "absent".
type getAnswer struct {
	absent      bool
	notModified bool
	doc         *Document // the document, when neither flag is set
	etag        string    // its strong ETag; on a 304, the ETag it carried, if any
	generation  string    // its generation, for a generation store
}

// get GETs the document, revalidating with ifNoneMatch when it is not "".
func (c *Client) get(ctx context.Context, ifNoneMatch string) (getAnswer, error) {
	req, err := c.newRequest(ctx, http.MethodGet, nil)
	if err != nil {
		return getAnswer{}, err
	}
	req.Header.Set("Accept", "application/json")
	if ifNoneMatch != "" {
		req.Header.Set("If-None-Match", ifNoneMatch)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return getAnswer{}, transportError(http.MethodGet, c.safeURL, err)
	}
	defer drain(resp)
	switch resp.StatusCode {
	case http.StatusNotModified:
		// Only a revalidation may answer 304.
		if ifNoneMatch == "" {
			return getAnswer{}, fmt.Errorf("GET %s: %w", c.safeURL, &StatusError{Method: http.MethodGet, Code: resp.StatusCode})
		}
		// A 304 may carry the current spelling of the tag (RFC 9110
		// 15.4.5); a server that varies it by content coding needs us to
		// use that one. A weak or malformed one is ignored.
		etag, _ := ParseETag(resp.Header)
		gen, _ := parseGeneration(resp.Header)
		return getAnswer{notModified: true, etag: etag, generation: gen}, nil
	case http.StatusNotFound:
		// An object store says whether the object or its bucket is
		// missing: only a missing object can be created.
		if code := storeCode(resp); containerMissing(code) {
			return getAnswer{}, fmt.Errorf("GET %s: %w", c.safeURL, &StatusError{Method: http.MethodGet, Code: resp.StatusCode, StoreCode: code})
		}
		return getAnswer{absent: true}, nil
	case http.StatusOK:
	default:
		return getAnswer{}, fmt.Errorf("GET %s: %w", c.safeURL, &StatusError{Method: http.MethodGet, Code: resp.StatusCode, StoreCode: storeCode(resp)})
	}
	// The content type is checked before the ETag: an HTML page from a
	// proxy or a login portal usually has no ETag, and "not JSON" is the
	// diagnosis that points the user at the real problem.
	if err := checkContentType(resp.Header); err != nil {
		return getAnswer{}, fmt.Errorf("GET %s: %w", c.safeURL, err)
	}
	if err := checkContentEncoding(resp.Header); err != nil {
		return getAnswer{}, fmt.Errorf("GET %s: %w", c.safeURL, err)
	}
	etag, gen, err := c.version(resp.Header)
	if err != nil {
		return getAnswer{}, fmt.Errorf("GET %s: %w", c.safeURL, err)
	}
	body, err := readBody(resp, c.cfg.maxBodyBytes)
	if err != nil {
		if errors.Is(err, ErrTooLarge) {
			return getAnswer{}, fmt.Errorf("GET %s: %w", c.safeURL, err)
		}
		return getAnswer{}, transportError(http.MethodGet, c.safeURL, err)
	}
	doc, err := parseDocument(body, c.pointer, c.cfg.maxItems)
	if err != nil {
		return getAnswer{}, fmt.Errorf("GET %s: %w", c.safeURL, err)
	}
	return getAnswer{doc: doc, etag: etag, generation: gen}, nil
}

// version reads the validators of a 200 answer: the strong ETag, which an
// ETag store needs for If-Match; and for a generation store the object
// generation, which it needs instead (its ETag then only serves
// If-None-Match, and may be missing or weak).
func (c *Client) version(h http.Header) (etag, generation string, err error) {
	if !c.cfg.byGeneration {
		etag, err = ParseETag(h)
		return etag, "", err
	}
	etag, _ = ParseETag(h)
	generation, err = parseGeneration(h)
	return etag, generation, err
}

// parseGeneration returns the object generation GCS reports in
// x-goog-generation: a decimal integer.
func parseGeneration(h http.Header) (string, error) {
	g := strings.TrimSpace(h.Get(headerGeneration))
	if g == "" {
		return "", ErrMissingGeneration
	}
	if _, err := strconv.ParseUint(g, 10, 64); err != nil {
		return "", fmt.Errorf("%w: %q", ErrMalformedGeneration, g)
	}
	return g, nil
}

// The headers of generation preconditions (Google Cloud Storage's XML
// API).
const (
	headerGeneration        = "X-Goog-Generation"
	headerIfGenerationMatch = "X-Goog-If-Generation-Match"
)

// putOutcome is what a PUT attempt ended in, when it did not fail.
type putOutcome int

const (
	// putCommitted: the server stored the document.
	putCommitted putOutcome = iota
	// putConflict: another writer won (412, or a declared conflict status).
	putConflict
	// putAmbiguous: no answer, or a gateway error; the write may have
	// landed, and only a fresh read can tell.
	putAmbiguous
	// putFenced: the writer's right to write ended (see Fence) before the
	// write was sent, or while it was in flight (then it may have landed).
	// It must not be tried again.
	putFenced
)

// putAnswer is what a PUT said.
type putAnswer struct {
	outcome putOutcome
	// stored is the document the server now holds: what was sent, unless
	// the answer's Content-Location says its body is the stored
	// representation.
	stored *Document
	// etag is the new strong ETag; "" when the answer carried none (or a
	// weak one), and the next change must read first.
	etag string
	// generation is the new generation of a generation store ("" when the
	// answer carried none).
	generation string
}

// precondition is what a write is conditional on: the version last read,
// or, to create the document, its absence.
type precondition struct {
	create     bool
	etag       string
	generation string
}

// put writes next conditionally: If-Match on the ETag read, or
// If-None-Match: * to create; for a generation store
// x-goog-if-generation-match on the generation read, or 0 to create. An
// error means the cycle must fail.
func (c *Client) put(ctx context.Context, next *Document, pre precondition) (putAnswer, error) {
	ctx, stop := c.writeContext(ctx)
	defer stop()
	req, err := c.newRequest(ctx, http.MethodPut, next.body)
	if err != nil {
		return putAnswer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	switch {
	case c.cfg.byGeneration && pre.create:
		req.Header.Set(headerIfGenerationMatch, "0")
	case c.cfg.byGeneration:
		req.Header.Set(headerIfGenerationMatch, pre.generation)
	case pre.create:
		req.Header.Set("If-None-Match", "*")
	default:
		req.Header.Set("If-Match", pre.etag)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if fenced(ctx, err) && c.ctx.Err() == nil {
			return putAnswer{outcome: putFenced}, nil
		}
		if errors.Is(err, ErrRedirect) || errors.Is(err, errSign) || isCertError(err) || ctx.Err() != nil {
			return putAnswer{}, transportError(http.MethodPut, c.safeURL, err)
		}
		return putAnswer{outcome: putAmbiguous}, nil
	}
	defer drain(resp)
	code := resp.StatusCode
	switch {
	case code == http.StatusOK || code == http.StatusCreated || code == http.StatusNoContent:
		etag, _ := ParseETag(resp.Header) // "" on every error
		gen, _ := parseGeneration(resp.Header)
		if (c.cfg.byGeneration && gen == "") || (!c.cfg.byGeneration && etag == "") {
			c.cfg.log.V(1).Info("PUT answer carried no usable version; the next change re-reads", "url", c.safeURL)
		}
		return putAnswer{outcome: putCommitted, stored: c.stored(resp, next), etag: etag, generation: gen}, nil
	case code == http.StatusPreconditionFailed || c.isConflict(code):
		return putAnswer{outcome: putConflict}, nil
	case code == http.StatusBadGateway || code == http.StatusGatewayTimeout:
		// A gateway that gave up may have passed the write on.
		return putAnswer{outcome: putAmbiguous}, nil
	case code >= 300 && code < 400:
		return putAnswer{}, fmt.Errorf("PUT %s: %w: the server answered %d %s to %s; point spec.url at the document's own URL",
			c.safeURL, ErrWriteRedirected, code, http.StatusText(code), c.location(resp))
	case code == http.StatusPreconditionRequired:
		return putAnswer{}, fmt.Errorf("PUT %s: %w: the server answered 428 to a PUT that carried a precondition", c.safeURL, ErrUnsafeServer)
	case code == http.StatusRequestEntityTooLarge:
		return putAnswer{}, fmt.Errorf("PUT %s: %w: the server refused %d bytes (413)", c.safeURL, ErrRejected, next.size())
	default:
		return putAnswer{}, fmt.Errorf("PUT %s: %w", c.safeURL, &StatusError{Method: http.MethodPut, Code: code, StoreCode: storeCode(resp)})
	}
}

// isConflict reports whether the server declared code a lost race, as S3
// and Azure do with 409.
func (c *Client) isConflict(code int) bool {
	return slices.Contains(c.cfg.conflictStatuses, code)
}

// location returns the redirect target of resp for messages: its scheme,
// host and path, at most maxShownLocation bytes, only when it parses as an
// http or https URL; a fixed text otherwise.
func (c *Client) location(resp *http.Response) string {
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
func (c *Client) stored(resp *http.Response, sent *Document) *Document {
	cl := resp.Header.Get("Content-Location")
	if cl == "" || resp.StatusCode == http.StatusNoContent || checkContentType(resp.Header) != nil {
		return sent
	}
	loc, err := resp.Request.URL.Parse(cl)
	if err != nil || !sameResource(loc, resp.Request.URL) {
		return sent
	}
	body, err := readBody(resp, c.cfg.maxBodyBytes)
	if err != nil || len(bytes.TrimSpace(body)) == 0 || string(body) == sent.raw {
		return sent
	}
	doc, err := parseDocument(body, c.pointer, c.cfg.maxItems)
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
func (c *Client) newRequest(ctx context.Context, method string, body retryablehttp.ReaderFunc) (*retryablehttp.Request, error) {
	var b any
	if body != nil {
		b = body
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, method, c.url, b)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, c.safeURL, err)
	}
	for k, vs := range c.cfg.headers {
		req.Header[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	req.Header.Set("User-Agent", "listkeeper-etagclient/1")
	req.Header.Set("Accept-Encoding", "identity")
	return req, nil
}
