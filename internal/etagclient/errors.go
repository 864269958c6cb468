package etagclient

import (
	"errors"
	"fmt"
	"net/http"
)

// Error classes. Every error that Update and Read return for a reason on the
// server's side wraps exactly one of these, so callers classify with errors.Is
// and never by text.
var (
	// ErrNotFound means the document does not exist (404) and the change
	// needs it, either because creation is off or because the change adds IDs
	// only to an existing document.
	ErrNotFound = errors.New("list document not found")

	// ErrUnsafeServer means the server cannot support a safe conditional
	// write: it sent no ETag, a weak one, or a malformed one. The client
	// refuses to write rather than overwrite blindly.
	ErrUnsafeServer = errors.New("server cannot make a safe conditional write")

	// ErrInvalidDocument means the document could not be read properly: it
	// is not JSON, the items pointer does not lead to an array of strings,
	// or it exceeds the size limit. Nothing is written.
	ErrInvalidDocument = errors.New("invalid list document")

	// ErrConflictRetriesExhausted means every write attempt lost to another
	// writer (412) until the conflict policy's limit.
	ErrConflictRetriesExhausted = errors.New("conflict retries exhausted")

	// ErrUnreachable means the server could not be reached or kept failing
	// (connection errors, timeouts, 5xx or 429 after transport retries, or an
	// unexpected status code).
	ErrUnreachable = errors.New("list server unreachable")
)

// Specific causes. Each wraps one of the classes above.
var (
	// ErrMissingETag: a response that must carry an ETag carried none.
	ErrMissingETag = fmt.Errorf("%w: response has no ETag", ErrUnsafeServer)
	// ErrWeakETag: the ETag is weak (W/), which If-Match can never match.
	ErrWeakETag = fmt.Errorf("%w: ETag is weak", ErrUnsafeServer)
	// ErrMalformedETag: the ETag is not a quoted entity-tag.
	ErrMalformedETag = fmt.Errorf("%w: ETag is malformed", ErrUnsafeServer)

	// ErrNotJSON: the body is not JSON, or the content type says it is not.
	ErrNotJSON = fmt.Errorf("%w: body is not JSON", ErrInvalidDocument)
	// ErrNotArray: the items pointer does not resolve to an array of strings.
	ErrNotArray = fmt.Errorf("%w: items pointer does not lead to an array of strings", ErrInvalidDocument)
	// ErrTooLarge: the body exceeds the size limit.
	ErrTooLarge = fmt.Errorf("%w: body exceeds the size limit", ErrInvalidDocument)

	// ErrRedirect: the server redirected to another origin; the client does
	// not follow it, so headers from Secrets never leave for another host.
	ErrRedirect = fmt.Errorf("%w: redirect to another origin refused", ErrUnreachable)
)

// StatusError reports an HTTP status the protocol does not expect. It wraps
// ErrUnreachable.
type StatusError struct {
	// Method is the request method.
	Method string
	// Code is the HTTP status code.
	Code int
}

// Error implements error.
func (e *StatusError) Error() string {
	return fmt.Sprintf("%s: unexpected status %d %s", e.Method, e.Code, http.StatusText(e.Code))
}

// Unwrap makes StatusError match ErrUnreachable.
func (e *StatusError) Unwrap() error { return ErrUnreachable }
