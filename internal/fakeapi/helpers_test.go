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

package fakeapi_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// start builds a Server with opts and serves it on 127.0.0.1 for the
// duration of the test.
func start(t *testing.T, opts ...fakeapi.Option) (*fakeapi.Server, *httptest.Server) {
	t.Helper()
	s, err := fakeapi.New(opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts
}

// result is a fully read response.
type result struct {
	code   int
	header http.Header
	body   []byte
}

// call sends one request; header values are set as given. It returns the
// transport error, if any, instead of failing, so fault tests can see it.
func call(c *http.Client, method, url, body string, header map[string]string) (result, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return result{}, err
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		return result{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return result{}, err
	}
	return result{code: resp.StatusCode, header: resp.Header, body: b}, nil
}

// mustCall is call failing the test on a transport error.
func mustCall(t *testing.T, c *http.Client, method, url, body string, header map[string]string) result {
	t.Helper()
	res, err := call(c, method, url, body, header)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	return res
}

// mustSet seeds a document and returns its ETag.
func mustSet(t *testing.T, s *fakeapi.Server, path, body string) string {
	t.Helper()
	etag, err := s.Set(path, []byte(body))
	if err != nil {
		t.Fatalf("Set(%s): %v", path, err)
	}
	return etag
}

// docEquals reports whether the document at path is exactly want ("" for
// no document).
func docEquals(s *fakeapi.Server, path, want string) bool {
	body, _, ok := s.Get(path)
	if want == "" {
		return !ok
	}
	return ok && bytes.Equal(body, []byte(want))
}

// freshClient returns a client that opens a new connection for every
// request, so that a dropped connection is never retried by the transport.
func freshClient(t *testing.T) *http.Client {
	t.Helper()
	tr := &http.Transport{DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}
