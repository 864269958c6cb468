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

package wafv2fake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// Error is an AWS JSON 1.1 error answer: a status, the error code in the
// X-Amzn-ErrorType header and in the body's __type, and the message in the
// body's Message. A FaultHook returns one to answer a request with it.
type Error struct {
	// Status is the HTTP status code.
	Status int
	// Code is the error code, such as "WAFOptimisticLockException".
	Code string
	// Message is the human-readable message.
	Message string

	// Field, Parameter and Reason are the members of a
	// WAFInvalidParameterException: the kind of parameter (IP_ADDRESS,
	// SCOPE_VALUE, ...), the value that was refused, and why.
	Field, Parameter, Reason string

	// namespace prefixes Code in __type, as AWS's front end does for the
	// errors it raises before the service sees the request
	// ("com.amazon.coral.service#UnrecognizedClientException").
	namespace string
	// drop: answer nothing (see DropConnection, DropAnswer).
	drop dropMode
}

type dropMode int

const (
	dropNone dropMode = iota
	// dropBefore: close the connection before the operation runs.
	dropBefore
	// dropAfter: run the operation, then close the connection unanswered.
	dropAfter
)

// Error implements error.
func (e *Error) Error() string {
	switch e.drop {
	case dropBefore:
		return "wafv2fake: connection dropped before the operation"
	case dropAfter:
		return "wafv2fake: connection dropped after the operation"
	}
	return fmt.Sprintf("wafv2fake: %d %s: %s", e.Status, e.Code, e.Message)
}

// errorBody is the JSON body of an error answer.
type errorBody struct {
	Type      string `json:"__type"`
	Message   string `json:"Message,omitempty"`
	Field     string `json:"Field,omitempty"`
	Parameter string `json:"Parameter,omitempty"`
	Reason    string `json:"Reason,omitempty"`
}

// write sends e as the answer to a request.
func (e *Error) write(w http.ResponseWriter, requestID string) {
	typ := e.Code
	if e.namespace != "" {
		typ = e.namespace + "#" + e.Code
	}
	body, err := json.Marshal(errorBody{Type: typ, Message: e.Message, Field: e.Field, Parameter: e.Parameter, Reason: e.Reason})
	if err != nil {
		body = []byte(`{"__type":"InternalFailure"}`)
	}
	h := w.Header()
	h.Set("Content-Type", ContentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Amzn-RequestId", requestID)
	h.Set("X-Amzn-ErrorType", e.Code)
	w.WriteHeader(e.Status)
	_, _ = w.Write(body)
}

// coral is the namespace of the errors AWS's front end raises for any
// service (authentication, throttling, unknown operations).
const coral = "com.amazon.coral.service"

// DropConnection returns the fault that closes the connection without an
// answer, before the operation runs: nothing changes, and the client sees
// a connection error.
func DropConnection() *Error { return &Error{drop: dropBefore} }

// DropAnswer returns the fault that runs the operation and then closes the
// connection without an answer: an update lands, and the client cannot
// know it.
func DropAnswer() *Error { return &Error{drop: dropAfter} }

// Throttling returns AWS's 400 ThrottlingException ("Rate exceeded").
func Throttling() *Error {
	return &Error{Status: http.StatusBadRequest, Code: "ThrottlingException", Message: "Rate exceeded", namespace: coral}
}

// UnavailableEntity returns WAF's 400 WAFUnavailableEntityException: a
// resource it depends on is still being propagated; retrying later helps.
func UnavailableEntity() *Error {
	return &Error{Status: http.StatusBadRequest, Code: "WAFUnavailableEntityException",
		Message: "AWS WAF couldn’t retrieve a resource that you specified for this operation. If you've just created a resource that you're using in this operation, you might just need to wait a few minutes. It can take from a few seconds to a number of minutes for changes to propagate."}
}

// ServiceUnavailable returns AWS's 503 ServiceUnavailable.
func ServiceUnavailable() *Error {
	return &Error{Status: http.StatusServiceUnavailable, Code: "ServiceUnavailable",
		Message: "The request has failed due to a temporary failure of the server.", namespace: coral}
}

// InternalFailure returns AWS's 500 InternalFailure.
func InternalFailure() *Error {
	return &Error{Status: http.StatusInternalServerError, Code: "InternalFailure",
		Message: "The request processing has failed because of an unknown error, exception or failure.", namespace: coral}
}

// WAFInternalError returns WAF's 500 WAFInternalErrorException.
func WAFInternalError() *Error {
	return &Error{Status: http.StatusInternalServerError, Code: "WAFInternalErrorException",
		Message: "AWS WAF couldn’t perform the operation because of a system problem. Retry your request."}
}

// AccessDenied returns AWS's 400 AccessDeniedException, the answer to a
// principal whose policy does not allow the operation.
func AccessDenied() *Error {
	return &Error{Status: http.StatusBadRequest, Code: "AccessDeniedException",
		Message: "User is not authorized to perform this action", namespace: coral}
}

// The service's own errors.

func errOptimisticLock() *Error {
	return &Error{Status: http.StatusBadRequest, Code: "WAFOptimisticLockException",
		Message: "AWS WAF couldn’t save your changes because someone changed the resource after you started to edit it. Reapply your changes."}
}

func errNonexistentItem() *Error {
	return &Error{Status: http.StatusBadRequest, Code: "WAFNonexistentItemException",
		Message: "AWS WAF couldn’t perform the operation because your resource doesn’t exist."}
}

func errDuplicateItem() *Error {
	return &Error{Status: http.StatusBadRequest, Code: "WAFDuplicateItemException",
		Message: "AWS WAF couldn’t perform the operation because some resource in your request is a duplicate of an existing one."}
}

func errLimitsExceeded() *Error {
	return &Error{Status: http.StatusBadRequest, Code: "WAFLimitsExceededException",
		Message: "AWS WAF couldn’t perform the operation because you exceeded your resource limit. For example, the maximum number of addresses in an IP set."}
}

// errInvalidParameter is WAF's answer to a value it refuses; its message
// echoes the value, as WAF's does.
func errInvalidParameter(field, parameter, reason string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "WAFInvalidParameterException",
		Message: fmt.Sprintf("Error reason: %s, field: %s, parameter: %s", reason, field, parameter),
		Field:   field, Parameter: parameter, Reason: reason}
}

const reasonFormat = "The parameter contains formatting that is not valid."

// errValidation is the answer to a request that breaks a constraint of
// the API's model (a missing member, a value too long), raised before the
// operation runs: "1 validation error detected: Value null at 'lockToken'
// failed to satisfy constraint: Member must not be null".
func errValidation(member, value, constraint string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "ValidationException",
		Message:   fmt.Sprintf("1 validation error detected: Value %s at '%s' failed to satisfy constraint: %s", value, member, constraint),
		namespace: "com.amazon.coral.validate"}
}

func errSerialization(msg string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "SerializationException", Message: msg, namespace: coral}
}

func errUnknownOperation() *Error {
	return &Error{Status: http.StatusBadRequest, Code: "UnknownOperationException", namespace: coral}
}

func errTooLarge() *Error {
	return &Error{Status: http.StatusRequestEntityTooLarge, Code: "RequestEntityTooLargeException",
		Message: "Request body too large", namespace: coral}
}

// Authentication errors, as AWS's front end answers them for JSON
// protocol services: all with status 400.

func errMissingToken() *Error {
	return &Error{Status: http.StatusBadRequest, Code: "MissingAuthenticationTokenException",
		Message: "Missing Authentication Token", namespace: coral}
}

func errIncompleteSignature(msg string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "IncompleteSignatureException", Message: msg, namespace: coral}
}

func errInvalidSignature(msg string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "InvalidSignatureException", Message: msg, namespace: coral}
}

func errUnrecognizedClient() *Error {
	return &Error{Status: http.StatusBadRequest, Code: "UnrecognizedClientException",
		Message: "The security token included in the request is invalid.", namespace: coral}
}

func errExpiredToken() *Error {
	return &Error{Status: http.StatusBadRequest, Code: "ExpiredTokenException",
		Message: "The security token included in the request is expired", namespace: coral}
}
