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

package iamfake

import (
	"net/http"
	"strconv"
)

// Error is an error answer, written in the shape of the API that was
// called: for Resource Manager a google.rpc.Status,
//
//	{"error":{"code":409,"message":"...","status":"ABORTED"}}
//
// and for Cloud Storage its JSON API error,
//
//	{"error":{"code":412,"message":"...","errors":[{"message":"...","domain":"global","reason":"conditionNotMet"}]}}
//
// A FaultHook returns one to answer a request instead of the Server.
type Error struct {
	// Code is the HTTP status.
	Code int
	// Status is the google.rpc.Code name that Resource Manager sends
	// (ABORTED, INVALID_ARGUMENT, ...).
	Status string
	// Reason and Domain are what Cloud Storage sends in errors[]
	// (conditionNotMet, global); Domain defaults to "global".
	Reason, Domain string
	// Message is the human-readable text. Google's may quote the request
	// (a principal, an etag), and so do the Server's.
	Message string
	// Header is added to the answer (WWW-Authenticate, Retry-After).
	Header http.Header

	// drop: answer nothing (see DropConnection, DropAnswer).
	drop dropMode
}

// dropMode is how a fault answers nothing.
type dropMode int

const (
	dropNone dropMode = iota
	// dropBefore: close the connection before the call is served.
	dropBefore
	// dropAfter: serve the call, then close the connection unanswered.
	dropAfter
)

// The errors a FaultHook most often injects.

// DropConnection returns the fault that closes the connection without an
// answer, before the call is served: nothing is read or written, and the
// client sees a connection error after it sent its request.
func DropConnection() *Error { return &Error{drop: dropBefore} }

// DropAnswer returns the fault that serves the call and then closes the
// connection without an answer: a setIamPolicy is judged as usual and may
// commit, and the client cannot know whether it did.
func DropAnswer() *Error { return &Error{drop: dropAfter} }

// ErrResourceExhausted is a quota or rate refusal: 429 RESOURCE_EXHAUSTED
// (Resource Manager), 429 rateLimitExceeded (Cloud Storage).
func ErrResourceExhausted() *Error {
	return &Error{Code: http.StatusTooManyRequests, Status: "RESOURCE_EXHAUSTED", Reason: "rateLimitExceeded", Domain: "usageLimits",
		Message: "Quota exceeded for quota metric 'Requests' and limit 'Requests per minute' of service."}
}

// ErrUnavailable is a transient failure of the service: 503 UNAVAILABLE
// (Resource Manager), 503 backendError (Cloud Storage).
func ErrUnavailable() *Error {
	return &Error{Code: http.StatusServiceUnavailable, Status: "UNAVAILABLE", Reason: "backendError",
		Message: "The service is currently unavailable."}
}

// ErrInternal is an internal error: 500 INTERNAL (Resource Manager), 500
// backendError (Cloud Storage).
func ErrInternal() *Error {
	return &Error{Code: http.StatusInternalServerError, Status: "INTERNAL", Reason: "backendError",
		Message: "Internal error encountered."}
}

// errAborted is Resource Manager's answer to a setIamPolicy whose etag is
// not the policy's.
func errAborted() *Error {
	return &Error{Code: http.StatusConflict, Status: "ABORTED",
		Message: "There were concurrent policy changes. Please retry the whole read-modify-write with exponential backoff."}
}

// errConditionNotMet is Cloud Storage's answer to a setIamPolicy whose
// etag is not the policy's.
func errConditionNotMet() *Error {
	return &Error{Code: http.StatusPreconditionFailed, Reason: "conditionNotMet", Message: "Precondition Failed"}
}

// errInvalid is a refused request: 400 INVALID_ARGUMENT (Resource
// Manager), 400 invalid (Cloud Storage).
func errInvalid(msg string) *Error {
	return &Error{Code: http.StatusBadRequest, Status: "INVALID_ARGUMENT", Reason: "invalid", Message: msg}
}

// errDenied is Resource Manager's answer for a resource it does not know,
// or may not show: "Permission is denied if the policy or the resource do
// not exist."
func errDenied() *Error {
	return &Error{Code: http.StatusForbidden, Status: "PERMISSION_DENIED", Reason: "forbidden",
		Message: "The caller does not have permission"}
}

// errNoBucket is Cloud Storage's answer for a bucket that does not exist.
func errNoBucket() *Error {
	return &Error{Code: http.StatusNotFound, Status: "NOT_FOUND", Reason: "notFound",
		Message: "The specified bucket does not exist."}
}

// errUnauthenticated is the answer to a request without a valid access
// token; missing says whether it had none at all.
func errUnauthenticated(api API, missing bool) *Error {
	e := &Error{Code: http.StatusUnauthorized, Status: "UNAUTHENTICATED", Header: http.Header{}}
	switch {
	case api == Storage && missing:
		e.Reason, e.Message = "required", "Anonymous caller does not have storage.buckets.getIamPolicy access to the Google Cloud Storage bucket."
	case api == Storage:
		e.Reason, e.Message = "authError", "Invalid Credentials"
	case missing:
		e.Message = "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential."
	default:
		e.Message = "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential."
	}
	if missing {
		e.Header.Set("WWW-Authenticate", `Bearer realm="https://accounts.google.com/"`)
	} else {
		e.Header.Set("WWW-Authenticate", `Bearer realm="https://accounts.google.com/", error="invalid_token"`)
	}
	return e
}

// errNoRoute answers a path or method the Server does not serve.
func errNoRoute(code int) *Error {
	return &Error{Code: code, Status: "NOT_FOUND", Reason: "notFound", Message: "The requested URL was not found on this server."}
}

// body is e as api writes it.
func (e *Error) body(api API) any {
	type status struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status,omitempty"`
	}
	type item struct {
		Message string `json:"message"`
		Domain  string `json:"domain"`
		Reason  string `json:"reason"`
	}
	type storageError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Errors  []item `json:"errors"`
	}
	if api == Storage {
		domain := e.Domain
		if domain == "" {
			domain = "global"
		}
		return struct {
			Error storageError `json:"error"`
		}{storageError{Code: e.Code, Message: e.Message, Errors: []item{{Message: e.Message, Domain: domain, Reason: e.Reason}}}}
	}
	return struct {
		Error status `json:"error"`
	}{status{Code: e.Code, Message: e.Message, Status: e.Status}}
}

// word is what the request log records of e: the status name
// (Resource Manager) or the reason (Cloud Storage).
func (e *Error) word(api API) string {
	if api == Storage {
		return e.Reason
	}
	return e.Status
}

// write sends e as api's error answer.
func (e *Error) write(w http.ResponseWriter, api API, pretty bool) {
	for k, vs := range e.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	body := encode(e.body(api), pretty)
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(e.Code)
	_, _ = w.Write(body)
}
