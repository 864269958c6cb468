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

package ipgroupfake

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"
)

// Error is an Azure Resource Manager error answer: a status, and a body
// {"error":{"code":...,"message":...,"details":[...]}}, the form azcore
// reads into azcore.ResponseError.ErrorCode. A FaultHook returns one to
// answer a request with it; DropConnection, DropAnswer and FailOperation
// return special ones.
type Error struct {
	// Status is the HTTP status code.
	Status int
	// Code is the error code, such as "PreconditionFailed".
	Code string
	// Message is the human-readable message.
	Message string
	// Details are the inner errors ARM lists under details; a 429
	// RetryableError names its cause there.
	Details []ErrorDetail
	// RetryAfter, when positive, is sent as a Retry-After header in whole
	// seconds, rounded up, as ARM sends it.
	RetryAfter time.Duration

	// authenticate: the WWW-Authenticate challenge of a 401.
	authenticate string
	// fault: what the answer does besides, or instead of, being sent.
	fault faultMode
}

// ErrorDetail is one entry of an ARM error's details.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type faultMode int

const (
	_ faultMode = iota // the zero value: no fault
	// faultDropBefore: close the connection before the request is served.
	faultDropBefore
	// faultDropAfter: serve the request, then close the connection
	// unanswered.
	faultDropAfter
	// faultFailOperation: accept the write, and let its asynchronous
	// operation end Failed with this error.
	faultFailOperation
)

// Error implements error.
func (e *Error) Error() string {
	switch e.fault {
	case faultDropBefore:
		return "ipgroupfake: connection dropped before the request was served"
	case faultDropAfter:
		return "ipgroupfake: connection dropped after the request was served"
	case faultFailOperation:
		return fmt.Sprintf("ipgroupfake: asynchronous operation fails with %s: %s", e.Code, e.Message)
	}
	return fmt.Sprintf("ipgroupfake: %d %s: %s", e.Status, e.Code, e.Message)
}

// errorBody is the JSON of an ARM error, inside {"error": ...}.
type errorBody struct {
	Code    string        `json:"code"`
	Message string        `json:"message"`
	Details []ErrorDetail `json:"details,omitempty"`
}

// body is the JSON document of e's answer.
func (e *Error) body() []byte {
	b, err := json.Marshal(struct {
		Error errorBody `json:"error"`
	}{errorBody{Code: e.Code, Message: e.Message, Details: e.Details}})
	if err != nil {
		return []byte(`{"error":{"code":"InternalServerError","message":"The error could not be encoded."}}`)
	}
	return b
}

// write sends e as the answer to a request.
func (e *Error) write(w http.ResponseWriter, requestID string) {
	body := e.body()
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("x-ms-request-id", requestID)
	if e.RetryAfter > 0 {
		h.Set("Retry-After", retryAfterSeconds(e.RetryAfter))
	}
	if e.authenticate != "" {
		h.Set("WWW-Authenticate", e.authenticate)
	}
	w.WriteHeader(e.Status)
	_, _ = w.Write(body)
}

// retryAfterSeconds is d in whole seconds, rounded up, at least 1.
func retryAfterSeconds(d time.Duration) string {
	return strconv.Itoa(max(1, int(math.Ceil(d.Seconds()))))
}

// DropConnection returns the fault that closes the connection without an
// answer, before the request is served: nothing changes, and the client
// sees a connection error.
func DropConnection() *Error { return &Error{fault: faultDropBefore} }

// DropAnswer returns the fault that serves the request and then closes the
// connection without an answer: a write lands and its operation starts,
// and the client cannot know it.
func DropAnswer() *Error { return &Error{fault: faultDropAfter} }

// FailOperation returns the fault that accepts a write (200 or 201, with
// its Azure-AsyncOperation) and makes its asynchronous operation end
// Failed with this code and message, and the group's provisioningState
// Failed. Returned for anything but a CreateOrUpdate, it is a 500 with
// them.
func FailOperation(code, message string) *Error {
	return &Error{Status: http.StatusInternalServerError, Code: code, Message: message, fault: faultFailOperation}
}

// IPGroupsUpdateFailed returns FailOperation with the error Azure Firewall
// reports when it cannot apply a group to a firewall that uses it:
// IpGroupsUpdateFailed, "Put on IP Groups <name> Failed with 1 faulted
// referenced firewalls".
func IPGroupsUpdateFailed(group string) *Error {
	return FailOperation(CodeIPGroupsUpdateFailed, fmt.Sprintf("Put on IP Groups %s Failed with 1 faulted referenced firewalls", group))
}

// Throttled returns ARM's 429 SubscriptionRequestsThrottled with a
// Retry-After of retryAfter (whole seconds, rounded up, at least 1).
func Throttled(retryAfter time.Duration) *Error {
	return &Error{Status: http.StatusTooManyRequests, Code: CodeThrottled, RetryAfter: retryAfter,
		Message: fmt.Sprintf("Number of requests for subscription exceeded the limit. Please try again after '%s' seconds.", retryAfterSeconds(retryAfter))}
}

// InternalServerError returns ARM's 500 InternalServerError.
func InternalServerError() *Error {
	return &Error{Status: http.StatusInternalServerError, Code: "InternalServerError",
		Message: "Encountered internal server error. Diagnostic information: timestamp '', subscription id '', tracking id '', request correlation id ''."}
}

// ServiceUnavailable returns a 503 ServiceUnavailable.
func ServiceUnavailable() *Error {
	return &Error{Status: http.StatusServiceUnavailable, Code: "ServiceUnavailable",
		Message: "The server is currently unable to handle the request. Please retry."}
}

// AuthorizationFailed returns ARM's 403 AuthorizationFailed, the answer to
// a principal without the role to read or write the group.
func AuthorizationFailed() *Error {
	return &Error{Status: http.StatusForbidden, Code: "AuthorizationFailed",
		Message: "The client does not have authorization to perform action 'Microsoft.Network/ipGroups/write' over scope or the scope is invalid."}
}

// The codes of the service's own refusals. Those marked verified were
// seen in answers of Azure (see the package doc); the others are this
// package's names for refusals whose real code it could not confirm.
const (
	// CodePreconditionFailed: an If-Match or If-None-Match that does not
	// hold, 412.
	CodePreconditionFailed = "PreconditionFailed"
	// CodeAnotherOperationInProgress: a write while the group's previous
	// operation runs, 409 (verified).
	CodeAnotherOperationInProgress = "AnotherOperationInProgress"
	// CodeRetryableError and CodeRetryableErrorDueToAnotherOperation: the
	// network resource provider's other answer to a write while an
	// operation holds the resource, 429 with the second as the detail
	// (verified); BusyRetryable selects it.
	CodeRetryableError                      = "RetryableError"
	CodeRetryableErrorDueToAnotherOperation = "RetryableErrorDueToAnotherOperation"
	// CodeIPGroupsUpdateFailed: a failed operation (verified).
	CodeIPGroupsUpdateFailed = "IpGroupsUpdateFailed"
	// CodeIPAddressCountZero: a group without addresses where the region
	// refuses one, 400 (verified; see WithEmptyGroupsRefused).
	CodeIPAddressCountZero = "IPGroupsIPAddressCountZero"
	// CodeIPAddressCountExceeded: more addresses than the limit, 400
	// (this package's name).
	CodeIPAddressCountExceeded = "IPGroupsIPAddressCountExceeded"
	// CodeInvalidIPAddress: an entry that is not an IPv4 address, CIDR
	// block or range, 400 (this package's name).
	CodeInvalidIPAddress = "IPGroupsInvalidIPAddress"
	// CodeInvalidRequestFormat: a body that is not the resource's JSON,
	// 400 (verified for the network resource provider).
	CodeInvalidRequestFormat = "InvalidRequestFormat"
	// CodeLocationRequired: a write without location, 400.
	CodeLocationRequired = "LocationRequired"
	// CodeInvalidResourceLocation: a write that moves the group to another
	// location, 400.
	CodeInvalidResourceLocation = "InvalidResourceLocation"
	// CodeResourceNotFound: a read of a group that does not exist, 404.
	CodeResourceNotFound = "ResourceNotFound"
	// CodeThrottled: ARM's throttling, 429 with Retry-After.
	CodeThrottled = "SubscriptionRequestsThrottled"
)

// The authentication refusals of ARM, all 401 with a WWW-Authenticate
// challenge (verified, messages included, but for the challenge's
// wording).
const (
	CodeAuthenticationFailed               = "AuthenticationFailed"
	CodeInvalidAuthenticationToken         = "InvalidAuthenticationToken"
	CodeInvalidAuthenticationTokenAudience = "InvalidAuthenticationTokenAudience"
	CodeExpiredAuthenticationToken         = "ExpiredAuthenticationToken"
)

func errPreconditionFailed(msg string) *Error {
	return &Error{Status: http.StatusPreconditionFailed, Code: CodePreconditionFailed, Message: msg}
}

// errBusy is the answer to a write while op holds the group, in the form
// mode selects.
func errBusy(mode BusyAnswer, op *operation, groupID, opURL string) *Error {
	if mode == BusyRetryable {
		return &Error{Status: http.StatusTooManyRequests, Code: CodeRetryableError, Message: "A retryable error occurred.",
			RetryAfter: time.Second,
			Details: []ErrorDetail{{Code: CodeRetryableErrorDueToAnotherOperation,
				Message: fmt.Sprintf("Operation PutIpGroupOperation (%s) is updating resource %s. The call can be retried in 1 seconds.", op.id, groupID)}}}
	}
	return &Error{Status: http.StatusConflict, Code: CodeAnotherOperationInProgress,
		Message: "Another operation on this or dependent resource is in progress. To retrieve status of the operation use uri: " + opURL + "."}
}

func errInvalidRequestFormat(why string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeInvalidRequestFormat,
		Message: "Cannot parse the request.", Details: []ErrorDetail{{Code: "InvalidJson", Message: why}}}
}

func errInvalidAddress(group, address string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeInvalidIPAddress,
		Message: fmt.Sprintf("IP Group %s has an invalid IP address, prefix or range '%s'.", group, address)}
}

func errTooManyAddresses(group string, n, limit int) *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeIPAddressCountExceeded,
		Message: fmt.Sprintf("IP Group %s has %d IP addresses or prefixes, more than the limit of %d.", group, n, limit)}
}

func errNoAddresses(group string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeIPAddressCountZero,
		Message: fmt.Sprintf("IP Group %s must have at least one IP address.", group)}
}

func errLocationRequired() *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeLocationRequired,
		Message: "The location property is required for this definition."}
}

func errInvalidLocation(name, rg, have, want string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeInvalidResourceLocation,
		Message: fmt.Sprintf("The resource '%s' already exists in location '%s' in resource group '%s'. A resource with the same name cannot be created in location '%s'. Please select a new resource name.", name, have, rg, want)}
}

func errNotFound(name, rg string) *Error {
	return &Error{Status: http.StatusNotFound, Code: CodeResourceNotFound,
		Message: fmt.Sprintf("The Resource 'Microsoft.Network/ipGroups/%s' under resource group '%s' was not found.", name, rg)}
}

func errOperationNotFound() *Error {
	return &Error{Status: http.StatusNotFound, Code: "OperationNotFound", Message: "The operation was not found."}
}

func errNoRoute(status int) *Error {
	code := "InvalidResourceType"
	if status == http.StatusMethodNotAllowed {
		code = "MethodNotAllowed"
	}
	return &Error{Status: status, Code: code, Message: "The resource type or method is not served by this fake."}
}

func errMissingAPIVersion() *Error {
	return &Error{Status: http.StatusBadRequest, Code: "MissingApiVersionParameter",
		Message: "The api-version query parameter (?api-version=) is required for all requests."}
}

func errSubscriptionNotFound(sub string) *Error {
	return &Error{Status: http.StatusNotFound, Code: "SubscriptionNotFound",
		Message: fmt.Sprintf("The subscription '%s' could not be found.", sub)}
}

func errTooLarge() *Error {
	return &Error{Status: http.StatusRequestEntityTooLarge, Code: "RequestEntityTooLarge", Message: "The request body is too large."}
}

// errUnauthorized is a 401 with the challenge ARM sends: the authority
// to get a token from, and why this one was refused.
func errUnauthorized(code, msg, authority string) *Error {
	return &Error{Status: http.StatusUnauthorized, Code: code, Message: msg,
		authenticate: fmt.Sprintf(`Bearer authorization_uri="%s", error="invalid_token", error_description="%s"`, authority, msg)}
}
