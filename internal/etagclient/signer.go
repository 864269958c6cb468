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
	"io"
	"net/http"
)

// Signer authenticates the requests of a Client to a store whose requests
// must be signed (a request signature computed from a key) or carry a
// short-lived bearer token. Implementations come from the stores' own
// libraries (internal/stores); listkeeper writes no signing code of its
// own.
//
// Sign is called for every attempt, retries included, just before it is
// sent, so a signature carries a fresh time and a token is renewed before it
// expires. body is the request body (nil for a GET); the request's own Body
// must not be read. Sign must be safe for concurrent use. An error ends the
// request without sending it; it is reported as ErrUnauthorized (credentials
// could not be had or used).
type Signer interface {
	Sign(req *http.Request, body []byte) error
}

// SignerFunc adapts a function to Signer.
type SignerFunc func(req *http.Request, body []byte) error

// Sign implements Signer.
func (f SignerFunc) Sign(req *http.Request, body []byte) error { return f(req, body) }

// errSign marks a request that could not be signed; it is never retried.
var errSign = errors.New("sign request")

// signingTransport signs each attempt before it goes out.
type signingTransport struct {
	next   http.RoundTripper
	signer Signer
}

func (t *signingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.GetBody != nil {
		rc, err := req.GetBody()
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errSign, err)
		}
		body, err = io.ReadAll(rc)
		_ = rc.Close()
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errSign, err)
		}
	}
	// RoundTrippers must not change the request they are given.
	signed := req.Clone(req.Context())
	if err := t.signer.Sign(signed, body); err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, fmt.Errorf("%w: %w: %w", errSign, ErrUnauthorized, err)
	}
	return t.next.RoundTrip(signed)
}
