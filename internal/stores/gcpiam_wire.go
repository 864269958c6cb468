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
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync/atomic"
	"syscall"

	"google.golang.org/api/googleapi"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/netfence"
)

// iamTransport puts a bearer token on each request of the Google services
// and sends it on through the engine's transport (next), which applies
// the fence, TLS settings and the observer. It records the status of each
// answer for the call that made it (withAnswer), and bounds the body that
// the library reads.
type iamTransport struct {
	signer  etagclient.Signer
	next    http.RoundTripper
	maxBody int64
}

// RoundTrip implements http.RoundTripper. A request that cannot be signed
// (no token, or the operator's identity refused for its host) is not
// sent.
func (t *iamTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	signed := req.Clone(req.Context()) // a RoundTripper must not change its request
	if err := t.signer.Sign(signed, nil); err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, &iamSignError{err: err}
	}
	resp, err := t.next.RoundTrip(signed)
	if err != nil {
		return nil, err
	}
	if a, ok := req.Context().Value(answerKey{}).(*answer); ok {
		a.status.Store(int32(resp.StatusCode))
	}
	readAnswer(resp, t.maxBody, errPolicyTooLarge, nil)
	return resp, nil
}

// iamSignError is a request the transport did not send because it could
// not be signed. Its text is the signer's, which carries only fixed words
// (credentialError, ambientCheck).
type iamSignError struct{ err error }

func (e *iamSignError) Error() string { return e.err.Error() }
func (e *iamSignError) Unwrap() error { return e.err }

// errPolicyTooLarge ends the reading of an answer longer than the body
// limit (BackendEnv.MaxBodyBytes).
var errPolicyTooLarge = fmt.Errorf("%w: the policy is larger than the limit (--max-body-bytes raises it)", etagclient.ErrTooLarge)

// answerKey is the context key of the answer of one call.
type answerKey struct{}

// answer is the HTTP status of the last answer a call got (0: none): an
// error after a 2xx is a body that could not be read, not a request that
// got no answer.
type answer struct{ status atomic.Int32 }

func (a *answer) success() bool { s := a.status.Load(); return s >= 200 && s < 300 }

// withAnswer returns ctx carrying a fresh answer for one call.
func withAnswer(ctx context.Context) (context.Context, *answer) {
	a := &answer{}
	return context.WithValue(ctx, answerKey{}, a), a
}

// iamStatusWords are the google.rpc.Code names (Resource Manager's
// "status") and Cloud Storage's error reasons that an error message may
// quote: a server chooses this text, so nothing else of it is shown. Its
// message is never shown: IAM's quote the request (a principal, an etag).
var iamStatusWords = []string{
	"INVALID_ARGUMENT", "FAILED_PRECONDITION", "OUT_OF_RANGE", "UNAUTHENTICATED", "PERMISSION_DENIED",
	"NOT_FOUND", "ABORTED", "ALREADY_EXISTS", "RESOURCE_EXHAUSTED", "CANCELLED", "DATA_LOSS", "UNKNOWN",
	"INTERNAL", "NOT_IMPLEMENTED", "UNAVAILABLE", "DEADLINE_EXCEEDED",
	"invalid", "invalidParameter", "required", "badRequest", "conditionNotMet", "authError", "forbidden",
	"notFound", "conflict", "rateLimitExceeded", "userRateLimitExceeded", "backendError", "internalError",
}

// statusWord returns the status name or reason of a Google error body
// when it is one of iamStatusWords, else "".
func statusWord(ge *googleapi.Error) string {
	var body struct {
		Error struct {
			Status string `json:"status"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(ge.Body), &body) == nil && slices.Contains(iamStatusWords, body.Error.Status) {
		return body.Error.Status
	}
	for _, item := range ge.Errors {
		if slices.Contains(iamStatusWords, item.Reason) {
			return item.Reason
		}
	}
	return ""
}

// iamStatusError is an error answer of the API, shown by its status and
// status word only.
type iamStatusError struct {
	op    string // "read" or "write", and the list
	code  int
	word  string
	class error
}

func (e *iamStatusError) Error() string {
	msg := fmt.Sprintf("%s: %s: the API answered %d %s", e.op, e.class, e.code, http.StatusText(e.code))
	if e.word != "" {
		msg += " (" + e.word + ")"
	}
	return msg
}

func (e *iamStatusError) Unwrap() error { return e.class }

// statusClass is the error class of an error answer: 400 and 409 (but a
// lost race, see writeOutcome) are a request that cannot succeed as
// sent; 401 and 403 refused credentials (Resource Manager also answers
// 403 for a resource that does not exist); 404 a resource that does not
// exist; 429 and 5xx, after the library's retries (it makes none for
// these calls), an API that cannot be used now.
func statusClass(code int) error {
	switch code {
	case http.StatusBadRequest, http.StatusConflict, http.StatusPreconditionFailed, http.StatusRequestEntityTooLarge:
		return etagclient.ErrRejected
	case http.StatusUnauthorized, http.StatusForbidden:
		return etagclient.ErrUnauthorized
	case http.StatusNotFound:
		return etagclient.ErrNotFound
	default:
		return etagclient.ErrUnreachable
	}
}

// quietError shows fixed words for an error it wraps (for errors.Is), so
// that no URL, query or server text reaches a message.
type quietError struct {
	what  string
	cause error
}

func (e *quietError) Error() string { return e.what }
func (e *quietError) Unwrap() error { return e.cause }

// failure classifies an error of a call that did not end in an error
// answer: not signed, an unreadable answer, or no answer.
func failure(op string, err error, ans *answer) error {
	if se, ok := errors.AsType[*iamSignError](err); ok {
		return fmt.Errorf("%s: %w: %w", op, etagclient.ErrUnauthorized, se.err)
	}
	if errors.Is(err, errPolicyTooLarge) {
		return fmt.Errorf("%s: %w", op, errPolicyTooLarge)
	}
	if errors.Is(err, etagclient.ErrMemoryBudget) {
		return fmt.Errorf("%s: %w: the memory budget had no room for the answer", op, etagclient.ErrMemoryBudget)
	}
	if errors.Is(err, netfence.ErrNotAllowed) {
		// Refused by the dial fence, nothing sent; the dial's own
		// error would name the address.
		return fmt.Errorf("%s: %w", op, &netfence.DeniedError{})
	}
	if ans.success() {
		return fmt.Errorf("%s: %w: %w", op, etagclient.ErrInvalidDocument, &quietError{what: "the answer is not a policy", cause: err})
	}
	return fmt.Errorf("%s: %w: %w", op, etagclient.ErrUnreachable, &quietError{what: transportWords(err), cause: err})
}

// transportWords names a transport failure in a fixed vocabulary.
func transportWords(err error) string {
	var dnsErr *net.DNSError
	var netErr net.Error
	switch {
	case errors.Is(err, etagclient.ErrFenced):
		return "the writer's right to write ended"
	case errors.Is(err, netfence.ErrNotAllowed):
		return netfence.NotAllowedMessage
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()):
		return "timed out"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, etagclient.ErrRedirect):
		return "redirected to another origin"
	case isCertificateError(err):
		return "TLS certificate not trusted"
	case errors.As(err, &dnsErr):
		return "host name not found"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed without an answer"
	default:
		return "request failed"
	}
}

// isCertificateError reports a certificate that failed verification.
func isCertificateError(err error) bool {
	var verr *tls.CertificateVerificationError
	var unknown x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	return errors.As(err, &verr) || errors.As(err, &unknown) || errors.As(err, &hostname) || errors.As(err, &invalid)
}

// readError is the error of a getIamPolicy.
func (b *iamBackend) readError(err error, ans *answer) error {
	op := "read " + b.env.ShownURL
	if ge, ok := errors.AsType[*googleapi.Error](err); ok {
		return &iamStatusError{op: op, code: ge.Code, word: statusWord(ge), class: statusClass(ge.Code)}
	}
	return failure(op, err, ans)
}

// writeOutcome is the outcome of a setIamPolicy that did not succeed. A
// lost race (409 ABORTED, 412 conditionNotMet) is WriteLost. A write that
// may have landed (no answer; a gateway's 502 or 504) is WriteUnknown,
// with its cause (ErrFenced in it when the writer's right ended). A write
// that committed but whose answer could not be read is WriteCommitted
// with no version: the next change reads first. Everything else ends the
// cycle with an error of its class.
func (b *iamBackend) writeOutcome(ctx context.Context, err error, ans *answer) (etagclient.WriteAnswer, error) {
	op := "write " + b.env.ShownURL
	if ge, ok := errors.AsType[*googleapi.Error](err); ok {
		word := statusWord(ge)
		switch {
		case ge.Code == http.StatusConflict && word == "ABORTED", ge.Code == http.StatusPreconditionFailed:
			return etagclient.WriteAnswer{Outcome: etagclient.WriteLost}, nil
		case ge.Code == http.StatusBadGateway || ge.Code == http.StatusGatewayTimeout:
			// A gateway that gave up may have passed the write on.
			return etagclient.WriteAnswer{Outcome: etagclient.WriteUnknown,
				Cause: &iamStatusError{op: op, code: ge.Code, word: word, class: etagclient.ErrUnreachable}}, nil
		}
		return etagclient.WriteAnswer{}, &iamStatusError{op: op, code: ge.Code, word: word, class: statusClass(ge.Code)}
	}
	if _, ok := errors.AsType[*iamSignError](err); ok {
		return etagclient.WriteAnswer{}, failure(op, err, ans) // not sent
	}
	if ans.success() {
		return etagclient.WriteAnswer{Outcome: etagclient.WriteCommitted}, nil
	}
	// The library reports a request cut off by its context as the
	// context's error; the fence's reason is the context's cause.
	cause := err
	if c := context.Cause(ctx); c != nil && !errors.Is(err, c) {
		cause = errors.Join(err, c)
	}
	if errors.Is(cause, etagclient.ErrFenced) {
		return etagclient.WriteAnswer{Outcome: etagclient.WriteUnknown, Cause: cause}, nil
	}
	if ctx.Err() != nil || errors.Is(err, etagclient.ErrRedirect) || errors.Is(err, netfence.ErrNotAllowed) || isCertificateError(err) {
		return etagclient.WriteAnswer{}, failure(op, cause, ans)
	}
	return etagclient.WriteAnswer{Outcome: etagclient.WriteUnknown, Cause: cause}, nil
}
