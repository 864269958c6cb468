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
	"bytes"
	"io"
	"net/http"
)

// Client returns the HTTP client to give aws-sdk-go-v2 (aws.Config's
// HTTPClient) for the started Server: it trusts the Server's certificate
// under StartTLS, and it hands net/http its own copy of every request
// body.
//
// The copy is needed on loopback. The SDK closes a request's body as soon
// as the answer's headers are in, and once closed, that body's WriteTo
// answers io.EOF where io.WriterTo means nil; net/http, which reads the
// body once more after sending it (to check for bytes beyond
// Content-Length), then takes the request as failed and closes the
// connection under the answer's body. Over a network the answer never
// comes back that fast; from 127.0.0.1 it does, and an answer longer than
// the client's read buffer (a page of entries) is cut short at random.
// Before Start, Client wraps http.DefaultTransport.
func (s *Server) Client() *http.Client {
	c := *s.lb.Client()
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = ownBody{base}
	return &c
}

// ownBody is a RoundTripper that sends a copy of the request's body, so
// that what its caller does to the body after the answer came back does
// not reach the connection.
type ownBody struct{ base http.RoundTripper }

// RoundTrip implements http.RoundTripper.
func (o ownBody) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return o.base.RoundTrip(req)
	}
	b, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, err
	}
	copied := req.Clone(req.Context())
	copied.Body = io.NopCloser(bytes.NewReader(b))
	copied.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	return o.base.RoundTrip(copied)
}
