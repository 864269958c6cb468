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

package s3fake

import (
	"encoding/xml"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Error is an S3 error answer: a status and S3's XML body
// <Error><Code/><Message/>...<RequestId/><HostId/></Error>. A FaultHook
// returns one to answer a request with it.
type Error struct {
	// Status is the HTTP status code.
	Status int
	// Code is S3's error code, such as "SlowDown".
	Code string
	// Message is the human-readable message.
	Message string

	// fields are extra elements S3 sends with some codes (Region,
	// StringToSign, ...), in order, between Message and RequestId.
	fields []field
}

type field struct{ name, value string }

// Error implements error.
func (e *Error) Error() string {
	return fmt.Sprintf("s3fake: %d %s: %s", e.Status, e.Code, e.Message)
}

// Field returns the value of the extra element name of the error body
// (such as "Region" or "HeadersNotSigned"), and whether there is one.
func (e *Error) Field(name string) (string, bool) {
	for _, f := range e.fields {
		if f.name == name {
			return f.value, true
		}
	}
	return "", false
}

func (e *Error) with(name, value string) *Error {
	e.fields = append(e.fields, field{name, value})
	return e
}

// ConditionalRequestConflict returns S3's 409 for a conditional write that
// raced another write to the same key.
func ConditionalRequestConflict() *Error {
	return &Error{Status: http.StatusConflict, Code: "ConditionalRequestConflict",
		Message: "A conflicting conditional operation is currently in progress against this resource. Please try again."}
}

// SlowDown returns S3's 503 throttling answer.
func SlowDown() *Error {
	return &Error{Status: http.StatusServiceUnavailable, Code: "SlowDown",
		Message: "Please reduce your request rate."}
}

// InternalError returns S3's 500.
func InternalError() *Error {
	return &Error{Status: http.StatusInternalServerError, Code: "InternalError",
		Message: "We encountered an internal error. Please try again."}
}

// The errors of authentication, in S3's words.

func errAccessDenied(msg string) *Error {
	return &Error{Status: http.StatusForbidden, Code: "AccessDenied", Message: msg}
}

func errInvalidAccessKeyID(akid string) *Error {
	return (&Error{Status: http.StatusForbidden, Code: "InvalidAccessKeyId",
		Message: "The AWS Access Key Id you provided does not exist in our records."}).
		with("AWSAccessKeyId", akid)
}

func errInvalidToken() *Error {
	return &Error{Status: http.StatusBadRequest, Code: "InvalidToken",
		Message: "The provided token is malformed or otherwise invalid."}
}

func errExpiredToken() *Error {
	return &Error{Status: http.StatusBadRequest, Code: "ExpiredToken",
		Message: "The provided token has expired."}
}

func errHeaderMalformed(detail string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "AuthorizationHeaderMalformed",
		Message: "The authorization header is malformed; " + detail}
}

func errQueryMalformed(msg string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "AuthorizationQueryParametersError", Message: msg}
}

func errUnsupportedAuth(msg string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "InvalidRequest", Message: msg}
}

func errInvalidArgument(msg, name, value string) *Error {
	return (&Error{Status: http.StatusBadRequest, Code: "InvalidArgument", Message: msg}).
		with("ArgumentName", name).with("ArgumentValue", value)
}

func errTooSkewed(requestTime string, now time.Time) *Error {
	return (&Error{Status: http.StatusForbidden, Code: "RequestTimeTooSkewed",
		Message: "The difference between the request time and the current time is too large."}).
		with("RequestTime", requestTime).
		with("ServerTime", now.UTC().Format(time.RFC3339)).
		with("MaxAllowedSkewMilliseconds", strconv.FormatInt(MaxClockSkew.Milliseconds(), 10))
}

func errSignatureDoesNotMatch(akid, stringToSign, provided, canonical string) *Error {
	return (&Error{Status: http.StatusForbidden, Code: "SignatureDoesNotMatch",
		Message: "The request signature we calculated does not match the signature you provided. Check your key and signing method."}).
		with("AWSAccessKeyId", akid).
		with("StringToSign", stringToSign).
		with("SignatureProvided", provided).
		with("CanonicalRequest", canonical)
}

func errContentSHA256Mismatch(client, computed string) *Error {
	return (&Error{Status: http.StatusBadRequest, Code: "XAmzContentSHA256Mismatch",
		Message: "The provided 'x-amz-content-sha256' header does not match what was computed."}).
		with("ClientComputedContentSHA256", client).
		with("S3ComputedContentSHA256", computed)
}

func errNotImplemented(header string) *Error {
	return (&Error{Status: http.StatusNotImplemented, Code: "NotImplemented",
		Message: "A header you provided implies functionality that is not implemented"}).
		with("Header", header)
}

func errEntityTooLarge(limit int64) *Error {
	return (&Error{Status: http.StatusBadRequest, Code: "EntityTooLarge",
		Message: "Your proposed upload exceeds the maximum allowed size"}).
		with("MaxSizeAllowed", strconv.FormatInt(limit, 10))
}

func errPreconditionFailed(condition string) *Error {
	return (&Error{Status: http.StatusPreconditionFailed, Code: "PreconditionFailed",
		Message: "At least one of the pre-conditions you specified did not hold"}).
		with("Condition", condition)
}

func errNoSuchKey(key string) *Error {
	return (&Error{Status: http.StatusNotFound, Code: "NoSuchKey",
		Message: "The specified key does not exist."}).with("Key", key)
}

func errNoSuchBucket(bucket string) *Error {
	return (&Error{Status: http.StatusNotFound, Code: "NoSuchBucket",
		Message: "The specified bucket does not exist"}).with("BucketName", bucket)
}

// write sends e as S3 does: XML, with the request ID in the body and in
// x-amz-request-id. A HEAD answer has no body.
func (e *Error) write(w http.ResponseWriter, r *http.Request, requestID string) {
	var b strings.Builder
	b.WriteString(xml.Header)
	b.WriteString("<Error>")
	element(&b, "Code", e.Code)
	element(&b, "Message", e.Message)
	for _, f := range e.fields {
		element(&b, f.name, f.value)
	}
	element(&b, "RequestId", requestID)
	element(&b, "HostId", "s3fake")
	b.WriteString("</Error>")

	h := w.Header()
	h.Set("Content-Type", "application/xml")
	h.Set("X-Amz-Request-Id", requestID)
	h.Set("X-Amz-Id-2", "s3fake")
	if r.Method == http.MethodHead {
		w.WriteHeader(e.Status)
		return
	}
	h.Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(e.Status)
	_, _ = w.Write([]byte(b.String()))
}

func element(b *strings.Builder, name, value string) {
	b.WriteString("<" + name + ">")
	_ = xml.EscapeText(b, []byte(value))
	b.WriteString("</" + name + ">")
}
