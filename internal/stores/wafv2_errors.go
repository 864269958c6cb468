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
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/wafv2/types"
	"github.com/aws/smithy-go"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/netfence"
)

// The operations the WAFv2 backend calls, as its errors name them.
const (
	opGetIPSet    = "GetIPSet"
	opUpdateIPSet = "UpdateIPSet"
)

// wafv2Rule is what an AWS error code means to the backend.
type wafv2Rule struct {
	// class is the error class, or nil when the code means a lost race
	// (lost) or a write whose outcome is unknown (unknown).
	class   error
	lost    bool
	unknown bool
	// what says it in fixed words.
	what string
}

// wafv2Codes are the error codes the backend knows: WAF's own, and those
// of AWS's front end that a WAFv2 call can get. An error's message names
// its code only when it is one of these; the message AWS sent is never
// shown (WAF's can echo the request: an address, a parameter).
var wafv2Codes = map[string]wafv2Rule{
	"WAFOptimisticLockException":     {lost: true, what: "the IP set changed since it was read"},
	"WAFNonexistentItemException":    {class: etagclient.ErrNotFound, what: "the IP set does not exist (check spec.wafv2's region, scope, name and id)"},
	"WAFLimitsExceededException":     {class: etagclient.ErrRejected, what: "AWS WAF refused a limit: IP sets hold at most 10,000 addresses"},
	"WAFInvalidParameterException":   {class: etagclient.ErrRejected, what: "AWS WAF refused a parameter"},
	"WAFInvalidOperationException":   {class: etagclient.ErrRejected, what: "AWS WAF refused the operation"},
	"WAFDuplicateItemException":      {class: etagclient.ErrRejected, what: "AWS WAF refused the request"},
	"ValidationException":            {class: etagclient.ErrRejected, what: "AWS WAF refused the request as malformed"},
	"SerializationException":         {class: etagclient.ErrRejected, what: "AWS WAF refused the request as malformed"},
	"UnknownOperationException":      {class: etagclient.ErrRejected, what: "the endpoint does not know the operation (is it AWS WAF's?)"},
	"RequestEntityTooLargeException": {class: etagclient.ErrRejected, what: "AWS WAF refused the request as too large"},

	"AccessDeniedException":               {class: etagclient.ErrUnauthorized, what: "AWS WAF refused the access (the credentials' policy does not allow the operation on the IP set)"},
	"UnrecognizedClientException":         {class: etagclient.ErrUnauthorized, what: "AWS refused the credentials (an unknown access key or a wrong session token)"},
	"InvalidSignatureException":           {class: etagclient.ErrUnauthorized, what: "AWS refused the signature (a wrong secret key, region or clock)"},
	"IncompleteSignatureException":        {class: etagclient.ErrUnauthorized, what: "AWS refused the signature"},
	"MissingAuthenticationTokenException": {class: etagclient.ErrUnauthorized, what: "AWS got no credentials"},
	"ExpiredTokenException":               {class: etagclient.ErrUnauthorized, what: "AWS refused the credentials: the session token expired"},
	"InvalidClientTokenId":                {class: etagclient.ErrUnauthorized, what: "AWS refused the credentials (an unknown access key)"},
	"NotAuthorized":                       {class: etagclient.ErrUnauthorized, what: "AWS WAF refused the access"},

	"ThrottlingException":                {class: etagclient.ErrUnreachable, what: "AWS WAF kept throttling the requests"},
	"Throttling":                         {class: etagclient.ErrUnreachable, what: "AWS WAF kept throttling the requests"},
	"TooManyRequestsException":           {class: etagclient.ErrUnreachable, what: "AWS WAF kept throttling the requests"},
	"RequestLimitExceeded":               {class: etagclient.ErrUnreachable, what: "AWS WAF kept throttling the requests"},
	wafv2UnavailableEntity:               {class: etagclient.ErrUnreachable, what: "the IP set stayed unavailable (a change still propagating)"},
	"WAFInternalErrorException":          {unknown: true, what: "AWS WAF failed with a server error"},
	"InternalFailure":                    {unknown: true, what: "AWS failed with a server error"},
	"ServiceUnavailable":                 {unknown: true, what: "AWS WAF was unavailable"},
	"WAFServiceLinkedRoleErrorException": {class: etagclient.ErrRejected, what: "AWS WAF refused the request"},
}

// wafv2Failure is how a WAFv2 call failed, in fixed words.
type wafv2Failure struct {
	op   string
	rule wafv2Rule
	// code is the AWS error code when it is a known one, else "".
	code string
	// detail adds fixed words (a WAFInvalidParameterException's field).
	detail string
	// cause is the error the call returned (or the one that fenced it).
	cause error
}

// classifyWAFv2 tells what err, the error of call op under ctx, means.
func classifyWAFv2(ctx context.Context, op string, err error) wafv2Failure {
	f := wafv2Failure{op: op, cause: err}
	if errors.Is(err, etagclient.ErrFenced) {
		f.rule = wafv2Rule{unknown: true, what: "the writer's right to write ended"}
		return f
	}
	if cause := context.Cause(ctx); errors.Is(cause, etagclient.ErrFenced) {
		f.rule, f.cause = wafv2Rule{unknown: true, what: "the writer's right to write ended"}, errors.Join(cause, err)
		return f
	}
	if errors.Is(err, netfence.ErrNotAllowed) {
		// The dial fence refused the endpoint: nothing was sent.
		f.rule = wafv2Rule{class: netfence.ErrNotAllowed, what: netfence.NotAllowedMessage}
		return f
	}
	if local, ok := errors.AsType[*wafv2LocalError](err); ok {
		// Refused before it was sent (ambient policy), or no
		// credentials: the words are this package's own.
		f.rule = wafv2Rule{class: etagclient.ErrUnauthorized, what: local.Error()}
		return f
	}
	if ae, ok := errors.AsType[smithy.APIError](err); ok {
		if rule, known := wafv2Codes[ae.ErrorCode()]; known {
			f.rule, f.code = rule, ae.ErrorCode()
			if ip, ok := errors.AsType[*types.WAFInvalidParameterException](err); ok && slices.Contains(ip.Field.Values(), ip.Field) {
				f.detail = "field " + string(ip.Field)
			}
			return f
		}
	}
	if status, ok := statusOf(err); ok && status >= 300 {
		f.rule = statusRule(status)
		f.detail = fmt.Sprintf("status %d %s", status, http.StatusText(status))
		return f
	}
	switch {
	case errors.Is(err, etagclient.ErrMemoryBudget):
		f.rule = wafv2Rule{class: etagclient.ErrMemoryBudget, unknown: true, what: "the memory budget had no room for the answer"}
	case errors.Is(err, etagclient.ErrTooManyItems):
		f.rule = wafv2Rule{class: etagclient.ErrInvalidDocument, unknown: true, what: "the answer holds more addresses than the item limit (--max-items raises it)"}
	case errors.Is(err, etagclient.ErrTooLarge):
		f.rule = wafv2Rule{class: etagclient.ErrInvalidDocument, unknown: true, what: "the answer exceeds the size limit"}
	case isDeserialization(err):
		f.rule = wafv2Rule{class: etagclient.ErrInvalidDocument, unknown: true, what: "the answer could not be read (is the endpoint AWS WAF's?)"}
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		f.rule = wafv2Rule{unknown: true, what: "no answer in time"}
	case errors.Is(err, context.Canceled):
		f.rule = wafv2Rule{unknown: true, what: "canceled before an answer came"}
	default:
		f.rule = wafv2Rule{unknown: true, what: "no answer (the endpoint could not be reached, or the connection ended)"}
	}
	return f
}

// statusRule classifies an answer whose error code is not a known one by
// its status.
func statusRule(status int) wafv2Rule {
	switch {
	case status >= 500:
		return wafv2Rule{unknown: true, what: "AWS WAF failed with a server error"}
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return wafv2Rule{class: etagclient.ErrUnauthorized, what: "AWS WAF refused the access"}
	case status == http.StatusTooManyRequests:
		return wafv2Rule{class: etagclient.ErrUnreachable, what: "AWS WAF kept throttling the requests"}
	default:
		return wafv2Rule{class: etagclient.ErrRejected, what: "AWS WAF refused the request"}
	}
}

func isDeserialization(err error) bool {
	_, ok := errors.AsType[*smithy.DeserializationError](err)
	return ok
}

func isTimeout(err error) bool {
	ne, ok := errors.AsType[net.Error](err)
	return ok && ne.Timeout()
}

// message is the failure in fixed words: the operation (GetIPSet,
// UpdateIPSet: they name the service), what happened, and the known code.
func (f wafv2Failure) message() string {
	msg := f.op + ": " + f.rule.what
	if f.detail != "" {
		msg += ", " + f.detail
	}
	if f.code != "" {
		msg += " (" + f.code + ")"
	}
	return msg
}

// readError is the error a read returns: a lost race or an unknown
// outcome means nothing to a read, which simply failed.
func (f wafv2Failure) readError() error {
	class := f.rule.class
	if class == nil {
		class = etagclient.ErrUnreachable
	}
	return newWAFv2Error(class, f.message(), f.cause)
}

// writeAnswer is what a write's failure means to the engine: a lost race,
// an outcome only a fresh read can tell (with its cause, so that the
// engine sees a fence), or an error that ends the cycle.
func (f wafv2Failure) writeAnswer() (etagclient.WriteAnswer, error) {
	switch {
	case f.rule.lost:
		return etagclient.WriteAnswer{Outcome: etagclient.WriteLost}, nil
	case f.rule.unknown:
		return etagclient.WriteAnswer{Outcome: etagclient.WriteUnknown,
			Cause: &wafv2Cause{msg: f.message() + ": the update may or may not have landed", err: f.cause}}, nil
	}
	return etagclient.WriteAnswer{}, newWAFv2Error(f.rule.class, f.message(), f.cause)
}

// wafv2Error is an error of the backend: fixed words, the error class,
// and the SDK's error for errors.As (its text, which can carry AWS's
// message, is not shown).
type wafv2Error struct {
	class error
	msg   string
	cause error
}

// wafv2Classes are the error classes: an error wraps exactly one.
var wafv2Classes = []error{etagclient.ErrNotFound, etagclient.ErrUnauthorized, etagclient.ErrRejected,
	etagclient.ErrUnreachable, etagclient.ErrUnsafeServer, etagclient.ErrInvalidDocument, netfence.ErrNotAllowed}

// newWAFv2Error keeps cause in the chain only when it wraps no class other
// than class.
func newWAFv2Error(class error, msg string, cause error) error {
	for _, c := range wafv2Classes {
		if !errors.Is(class, c) && errors.Is(cause, c) {
			cause = nil
			break
		}
	}
	return &wafv2Error{class: class, msg: msg, cause: cause}
}

func (e *wafv2Error) Error() string { return e.msg }

func (e *wafv2Error) Unwrap() []error {
	if e.cause == nil {
		return []error{e.class}
	}
	return []error{e.class, e.cause}
}

// wafv2Cause is the cause of a write whose outcome is unknown: fixed
// words, and the error that ended it, for errors.Is (etagclient.ErrFenced,
// a context's error).
type wafv2Cause struct {
	msg string
	err error
}

func (c *wafv2Cause) Error() string { return c.msg }
func (c *wafv2Cause) Unwrap() error { return c.err }

// wafv2LocalError is an error of this package's own making inside a
// WAFv2 call (a request the ambient policy refused, credentials that
// could not be had): its words are fixed and may be shown.
type wafv2LocalError struct{ err error }

func (e *wafv2LocalError) Error() string { return e.err.Error() }
func (e *wafv2LocalError) Unwrap() error { return e.err }
