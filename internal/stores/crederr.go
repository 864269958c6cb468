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
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"

	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/aws/smithy-go"
	"golang.org/x/oauth2"
)

// signError is credentialError for a fetch under the signing request's
// context ctx: when ctx has ended, that is the cause, whatever the library
// made of it.
func signError(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause != nil {
		err = cause
	}
	return credentialError(err)
}

// credentialError rewrites an error of a token or credentials fetch into
// fixed words: what went wrong (the endpoint's HTTP status, a timeout, no
// answer), and for OAuth 2.0 and AWS errors a code of their fixed
// vocabulary. Nothing of a response body, header or URL gets through: a
// token endpoint named by a tenant could otherwise read an internal
// answer back into conditions, events and logs. A context's error stays
// wrapped, for errors.Is.
func credentialError(err error) error {
	if err == nil {
		return nil
	}
	for _, ctxErr := range []error{context.DeadlineExceeded, context.Canceled} {
		if errors.Is(err, ctxErr) {
			return fmt.Errorf("the credential request did not finish in time: %w", ctxErr)
		}
	}
	if code, ok := statusOf(err); ok {
		msg := fmt.Sprintf("the credential endpoint answered %d %s", code, http.StatusText(code))
		if c := errorCode(err); c != "" {
			msg += " (" + c + ")"
		}
		return errors.New(msg)
	}
	if ne, ok := errors.AsType[net.Error](err); ok {
		if ne.Timeout() {
			return errors.New("the credential endpoint did not answer in time")
		}
		return errors.New("the credential endpoint could not be reached")
	}
	return errors.New("no usable credentials were returned")
}

// statusOf returns the HTTP status of the answer that err reports.
func statusOf(err error) (int, bool) {
	if re, ok := errors.AsType[*oauth2.RetrieveError](err); ok && re.Response != nil {
		return re.Response.StatusCode, true
	}
	if ae, ok := errors.AsType[*azidentity.AuthenticationFailedError](err); ok && ae.RawResponse != nil {
		return ae.RawResponse.StatusCode, true
	}
	if se, ok := errors.AsType[interface {
		error
		HTTPStatusCode() int
	}](err); ok && se.HTTPStatusCode() != 0 {
		return se.HTTPStatusCode(), true
	}
	return 0, false
}

// oauthErrorCodes are the error codes of an OAuth 2.0 token endpoint (RFC
// 6749 section 5.2).
var oauthErrorCodes = []string{"invalid_request", "invalid_client", "invalid_grant", "unauthorized_client", "unsupported_grant_type", "invalid_scope"}

// awsErrorCodes are the error codes of AWS STS's credential calls that say
// what to fix.
var awsErrorCodes = []string{"AccessDenied", "ExpiredToken", "ExpiredTokenException", "IDPCommunicationError", "IDPRejectedClaim",
	"InvalidClientTokenId", "InvalidIdentityToken", "RegionDisabledException"}

// errorCode returns err's OAuth 2.0 or AWS error code when it is one of
// their fixed vocabulary, else "".
func errorCode(err error) string {
	if re, ok := errors.AsType[*oauth2.RetrieveError](err); ok {
		code := re.ErrorCode
		if code == "" {
			var body struct {
				Error string `json:"error"`
			}
			if json.Unmarshal(re.Body, &body) == nil {
				code = body.Error
			}
		}
		if slices.Contains(oauthErrorCodes, code) {
			return code
		}
		return ""
	}
	if ae, ok := errors.AsType[smithy.APIError](err); ok && slices.Contains(awsErrorCodes, ae.ErrorCode()) {
		return ae.ErrorCode()
	}
	return ""
}
