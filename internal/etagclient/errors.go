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
	// only to an existing document. A 404 to a PUT is ErrNotFound too.
	ErrNotFound = errors.New("list document not found")

	// ErrUnsafeServer means the server cannot support a safe conditional
	// write: it sent no ETag, a weak one, or a malformed one. The client
	// refuses to write rather than overwrite blindly.
	ErrUnsafeServer = errors.New("server cannot make a safe conditional write")

	// ErrInvalidDocument means the document could not be read properly: it
	// is not JSON, the items pointer does not lead to an array of strings,
	// an object on the pointer's path has a duplicate key, or it exceeds the
	// size or item limit. Nothing is written.
	ErrInvalidDocument = errors.New("invalid list document")

	// ErrConflictRetriesExhausted means every write attempt that carried the
	// change lost to another writer (a 412, a status the store declares a
	// conflict, or its backend's own lost race) until the conflict policy's
	// limit.
	ErrConflictRetriesExhausted = errors.New("conflict retries exhausted")

	// ErrUnauthorized means the server refused the credentials (401) or
	// the access (403).
	ErrUnauthorized = errors.New("list server refused the credentials")

	// ErrRejected means the server refused the request as such (400, 405,
	// 409 when it is not declared a conflict, 411, 413, 415, 422), or
	// redirected a write. Repeating it unchanged cannot help.
	ErrRejected = errors.New("list server rejected the request")

	// ErrUnreachable means the server could not be reached or kept failing
	// (connection errors, timeouts, 5xx or 429 after transport retries, or
	// another unexpected status code).
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
	// ErrMissingGeneration: the answer of a store whose writes are
	// conditional on a version header (Dialect.VersionHeader) carried
	// none, so no write can be made conditional on it.
	ErrMissingGeneration = fmt.Errorf("%w: response has no generation header", ErrUnsafeServer)
	// ErrMalformedGeneration: the version header is not a decimal integer.
	ErrMalformedGeneration = fmt.Errorf("%w: generation header is malformed", ErrUnsafeServer)

	// ErrNotJSON: the body is not JSON, or the content type says it is not.
	ErrNotJSON = fmt.Errorf("%w: body is not JSON", ErrInvalidDocument)
	// ErrNotArray: the items pointer does not resolve to an array of strings.
	ErrNotArray = fmt.Errorf("%w: items pointer does not lead to an array of strings", ErrInvalidDocument)
	// ErrDuplicateKey: an object on the items pointer's path has the next
	// key more than once. Parsers disagree about which one counts, so the
	// client edits neither.
	ErrDuplicateKey = fmt.Errorf("%w: duplicate key on the items pointer's path", ErrInvalidDocument)
	// ErrTooLarge: the body exceeds the size limit (WithMaxBodyBytes), or
	// a change would make it exceed it.
	ErrTooLarge = fmt.Errorf("%w: body exceeds the size limit", ErrInvalidDocument)
	// ErrTooManyItems: the items array holds more items than the item
	// limit (WithMaxItems), or a change would make it hold more. A document
	// refused for it is not kept.
	ErrTooManyItems = fmt.Errorf("%w: too many items", ErrInvalidDocument)

	// ErrRedirect: the server redirected to another origin; the client does
	// not follow it, so headers from Secrets never leave for another host.
	ErrRedirect = fmt.Errorf("%w: redirect to another origin refused", ErrUnreachable)

	// ErrWriteRedirected: the server answered a PUT with a redirect. A write
	// is never followed to another URL (Go would turn it into a GET, and its
	// 200 would look like a commit); the list's URL must name the document
	// itself.
	ErrWriteRedirected = fmt.Errorf("%w: write redirected", ErrRejected)

	// ErrFenced: a write that carried the change was lost, and the caller
	// no longer has the right to make it (see Client.SubmitFenced), so it
	// was not applied again.
	ErrFenced = errors.New("change fenced: its owner gave it up")

	// ErrClosed: the Client was closed before the change completed. The
	// change may have been applied if a write was in flight.
	ErrClosed = errors.New("client closed")
)

// StatusError reports an HTTP status the protocol does not expect. It wraps
// the class that the status belongs to: ErrNotFound (404), ErrUnauthorized
// (401, 403), ErrRejected (400, 405, 409, 411, 413, 415, 422) or
// ErrUnreachable (everything else). A store's error code, when its dialect
// classifies it, decides first: a store may report an expired token or a
// wrong region as 400, and a missing bucket as 404 like a missing object.
type StatusError struct {
	// Method is the request method.
	Method string
	// Code is the HTTP status code.
	Code int
	// StoreCode is the store's error code (see Dialect.ErrorCode), such as
	// an object store's code for an expired token or a missing bucket; ""
	// when there was none.
	StoreCode string

	class error // the class StoreCode decides; nil to let Code decide
}

// Error implements error.
func (e *StatusError) Error() string {
	msg := fmt.Sprintf("%s: unexpected status %d %s", e.Method, e.Code, http.StatusText(e.Code))
	if e.StoreCode != "" {
		msg += " (" + e.StoreCode + ")"
	}
	return msg
}

// Unwrap returns the error class of the status.
func (e *StatusError) Unwrap() error {
	if e.class != nil {
		return e.class
	}
	return statusClass(e.Code)
}

// statusClass maps a status that ended a request to its error class.
func statusClass(code int) error {
	switch code {
	case http.StatusNotFound:
		return ErrNotFound
	case http.StatusUnauthorized, http.StatusForbidden:
		return ErrUnauthorized
	case http.StatusBadRequest, http.StatusMethodNotAllowed, http.StatusConflict,
		http.StatusLengthRequired, http.StatusRequestEntityTooLarge,
		http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity:
		return ErrRejected
	default:
		return ErrUnreachable
	}
}
