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

package ec2fake

import (
	"encoding/xml"
	"fmt"
	"net/http"
	"strconv"
)

// Error is an EC2 Query API error answer: a status, and a body
// <Response><Errors><Error><Code/><Message/></Error></Errors><RequestID/></Response>
// that carries the code and the message. A FaultHook returns one to answer
// a request with it.
type Error struct {
	// Status is the HTTP status code.
	Status int
	// Code is the error code, such as "PrefixListVersionMismatch".
	Code string
	// Message is the human-readable message.
	Message string

	// drop: answer nothing (see DropConnection, DropAnswer).
	drop dropMode
}

type dropMode int

const (
	dropNone dropMode = iota
	// dropBefore: close the connection before the action runs.
	dropBefore
	// dropAfter: run the action, then close the connection unanswered.
	dropAfter
)

// Error implements error.
func (e *Error) Error() string {
	switch e.drop {
	case dropBefore:
		return "ec2fake: connection dropped before the action"
	case dropAfter:
		return "ec2fake: connection dropped after the action"
	}
	return fmt.Sprintf("ec2fake: %d %s: %s", e.Status, e.Code, e.Message)
}

// errorResponse is the XML body of an error answer.
type errorResponse struct {
	XMLName   xml.Name    `xml:"Response"`
	Errors    []errorItem `xml:"Errors>Error"`
	RequestID string      `xml:"RequestID"`
}

type errorItem struct {
	Code    string `xml:"Code"`
	Message string `xml:"Message"`
}

// write sends e as the answer to a request.
func (e *Error) write(w http.ResponseWriter, requestID string) {
	body, err := xml.Marshal(errorResponse{Errors: []errorItem{{Code: e.Code, Message: e.Message}}, RequestID: requestID})
	if err != nil {
		body = []byte("<Response><Errors><Error><Code>InternalError</Code></Error></Errors></Response>")
	}
	body = append([]byte(xml.Header), body...)
	h := w.Header()
	h.Set("Content-Type", "text/xml;charset=UTF-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(e.Status)
	_, _ = w.Write(body)
}

// DropConnection returns the fault that closes the connection without an
// answer, before the action runs: nothing changes, and the client sees a
// connection error.
func DropConnection() *Error { return &Error{drop: dropBefore} }

// DropAnswer returns the fault that runs the action and then closes the
// connection without an answer: a modification lands, and the client
// cannot know it.
func DropAnswer() *Error { return &Error{drop: dropAfter} }

// RequestLimitExceeded returns EC2's throttling answer, 503
// RequestLimitExceeded ("Request limit exceeded."). The SDKs' standard
// retryers retry it as throttling.
func RequestLimitExceeded() *Error {
	return &Error{Status: http.StatusServiceUnavailable, Code: "RequestLimitExceeded", Message: "Request limit exceeded."}
}

// Unavailable returns EC2's 503 Unavailable: the server is overloaded.
func Unavailable() *Error {
	return &Error{Status: http.StatusServiceUnavailable, Code: "Unavailable", Message: "The server is overloaded and can't handle the request."}
}

// InternalError returns EC2's 500 InternalError.
func InternalError() *Error {
	return &Error{Status: http.StatusInternalServerError, Code: "InternalError", Message: "An internal error has occurred."}
}

// UnauthorizedOperation returns EC2's 403 UnauthorizedOperation, the
// answer to a principal whose policy does not allow the action.
func UnauthorizedOperation() *Error {
	return &Error{Status: http.StatusForbidden, Code: "UnauthorizedOperation", Message: "You are not authorized to perform this operation."}
}

// The service's own errors, all 400.

func errVersionMismatch() *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PrefixListVersionMismatch", Message: "The prefix list has the incorrect version number."}
}

func errIncorrectState(id, state string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "IncorrectState",
		Message: fmt.Sprintf("The prefix list %s is in the current state (%s) and cannot be modified.", id, state)}
}

func errPrefixListNotFound(id string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "InvalidPrefixListID.NotFound",
		Message: fmt.Sprintf("The prefix list ID '%s' does not exist", id)}
}

func errEntryAbsent(cidr string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "InvalidPrefixListModification",
		Message: fmt.Sprintf("The prefix list entry %s does not exist.", cidr)}
}

func errEntryPresent(cidr string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "InvalidPrefixListModification",
		Message: fmt.Sprintf("The prefix list entry %s already exists.", cidr)}
}

func errMaxEntriesExceeded(maxEntries int32) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "PrefixListMaxEntriesExceeded",
		Message: fmt.Sprintf("The prefix list would exceed its maximum number of entries (%d).", maxEntries)}
}

func errInvalidParameterValue(msg string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "InvalidParameterValue", Message: msg}
}

func errInvalidParameterCombination(msg string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "InvalidParameterCombination", Message: msg}
}

func errMissingParameter(name string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "MissingParameter",
		Message: fmt.Sprintf("The request must contain the parameter %s", name)}
}

func errInvalidAction(action string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "InvalidAction",
		Message: fmt.Sprintf("The action %s is not valid for this web service.", action)}
}

func errInvalidPaginationToken(token string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "InvalidPaginationToken",
		Message: fmt.Sprintf("Invalid pagination token: %q", token)}
}

func errUnsupportedOperation(msg string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "UnsupportedOperation", Message: msg}
}

func errTooLarge() *Error {
	return &Error{Status: http.StatusRequestEntityTooLarge, Code: "RequestEntityTooLarge", Message: "Request body too large"}
}

// Authentication errors, as EC2 words them: an unsigned request is
// missing a parameter, a malformed signature is incomplete, a key, token
// or signature that does not check out is 401 AuthFailure, and a request
// too old or a session too old has expired.

func errMissingAuthentication() *Error {
	return errMissingParameter("AWSAccessKeyId")
}

func errIncompleteSignature(msg string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "IncompleteSignature", Message: msg}
}

func errAuthFailure() *Error {
	return &Error{Status: http.StatusUnauthorized, Code: "AuthFailure", Message: "AWS was not able to validate the provided access credentials"}
}

func errRequestExpired(msg string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "RequestExpired", Message: msg}
}
