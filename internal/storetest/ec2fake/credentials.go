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
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// ErrUnknownAccessKey is returned by the Server methods that change one
// credential when no accepted credential has that access key ID.
var ErrUnknownAccessKey = errors.New("ec2fake: unknown access key ID")

// SetCredentials replaces the accepted credentials, as WithCredentials does
// at construction: requests signed with a key that is no longer there get
// 401 AuthFailure from now on.
func (s *Server) SetCredentials(creds ...aws.Credentials) error {
	return s.creds.Set(creds)
}

// ExpireSessionToken makes the credential with this access key ID expire
// now by the Server's clock: its requests get 400 RequestExpired from now
// on. The credential must have a session token.
func (s *Server) ExpireSessionToken(accessKeyID string) error {
	return s.creds.Expire(accessKeyID, s.cfg.now())
}

// checkToken decides whether a request that presents token may use c: EC2
// answers a wrong or missing session token as credentials it cannot
// validate, and an expired one as an expired request.
func checkToken(c aws.Credentials, token string, expired bool) *Error {
	switch {
	case c.SessionToken != token:
		return errAuthFailure()
	case c.SessionToken != "" && expired:
		return errRequestExpired("Request has expired.")
	}
	return nil
}
