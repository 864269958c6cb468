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
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// t0 is the time of the test clock: requests signed at t0 are on time.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// testClock is a settable clock.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func newTestClock() *testClock { return &testClock{now: t0} }

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

const testBucket = "lists"

// startServer builds a started Server with the bucket testBucket and the
// test clock at t0, closed when the test ends.
func startServer(t *testing.T, opts ...Option) (*Server, *testClock) {
	t.Helper()
	clock := newTestClock()
	all := append([]Option{WithBuckets(testBucket), WithClock(clock.Now)}, opts...)
	s, err := New(all...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	s.Start()
	t.Cleanup(s.Close)
	return s, clock
}

// signing describes how a test signs a request; the zero value signs
// correctly with the default credentials for DefaultRegion at t0.
type signing struct {
	creds   aws.Credentials
	region  string
	service string
	at      time.Time
	// payloadHash overrides the hash of the body in X-Amz-Content-Sha256.
	payloadHash string
	// escapePath signs with the signer's default path escaping, which S3
	// does not use.
	escapePath bool
}

func (sg signing) withDefaults() signing {
	if sg.creds.AccessKeyID == "" {
		sg.creds = DefaultCredentials()
	}
	if sg.region == "" {
		sg.region = DefaultRegion
	}
	if sg.service == "" {
		sg.service = Service
	}
	if sg.at.IsZero() {
		sg.at = t0
	}
	return sg
}

func hexSHA256(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// newRequest builds a request for url with body and extra headers.
func newRequest(t *testing.T, method, url string, body []byte, header http.Header) *http.Request {
	t.Helper()
	req, err := buildRequest(method, url, body, header)
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	return req
}

func buildRequest(method, url string, body []byte, header http.Header) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, url, rd)
	if err != nil {
		return nil, err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	return req, nil
}

// trySign signs req with aws-sdk-go-v2's signer, as a client of S3 does.
func trySign(req *http.Request, body []byte, sg signing) error {
	sg = sg.withDefaults()
	hash := sg.payloadHash
	if hash == "" {
		hash = hexSHA256(body)
	}
	req.Header.Set("X-Amz-Content-Sha256", hash)
	signer := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = !sg.escapePath })
	return signer.SignHTTP(context.Background(), sg.creds, req, hash, sg.service, sg.region, sg.at)
}

// signedRequest builds and signs a request in one go.
func signedRequest(t *testing.T, method, url string, body []byte, header http.Header, sg signing) *http.Request {
	t.Helper()
	req, err := buildSigned(method, url, body, header, sg)
	if err != nil {
		t.Fatalf("signed request: %v", err)
	}
	return req
}

// buildSigned is signedRequest for goroutines other than the test's.
func buildSigned(method, url string, body []byte, header http.Header, sg signing) (*http.Request, error) {
	req, err := buildRequest(method, url, body, header)
	if err != nil {
		return nil, err
	}
	return req, trySign(req, body, sg)
}

// answer is what a test looks at in a response.
type answer struct {
	status int
	code   string
	header http.Header
	body   []byte
	err    s3ErrorBody
}

// s3ErrorBody is S3's XML error body, with the fields the tests read.
type s3ErrorBody struct {
	Code                        string
	Message                     string
	Region                      string
	HeadersNotSigned            string
	AWSAccessKeyID              string `xml:"AWSAccessKeyId"`
	CanonicalRequest            string
	StringToSign                string
	ClientComputedContentSHA256 string
	S3ComputedContentSHA256     string
	RequestID                   string `xml:"RequestId"`
}

func do(t *testing.T, client *http.Client, req *http.Request) answer {
	t.Helper()
	a, err := tryDo(client, req)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// tryDo is do for goroutines other than the test's.
func tryDo(client *http.Client, req *http.Request) (answer, error) {
	resp, err := client.Do(req)
	if err != nil {
		return answer{}, fmt.Errorf("%s %s: %w", req.Method, req.URL, err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, fmt.Errorf("read body: %w", err)
	}
	a := answer{status: resp.StatusCode, header: resp.Header, body: body}
	if resp.StatusCode >= 300 && len(body) > 0 {
		if err := xml.Unmarshal(body, &a.err); err != nil {
			return a, fmt.Errorf("%s %s: %d with a body that is not S3 XML: %w\n%s", req.Method, req.URL, resp.StatusCode, err, body)
		}
		a.code = a.err.Code
	}
	return a, nil
}

// signedDo builds, signs and sends a request, for goroutines other than
// the test's.
func signedDo(client *http.Client, method, url string, body []byte, header http.Header, sg signing) (answer, error) {
	req, err := buildSigned(method, url, body, header, sg)
	if err != nil {
		return answer{}, err
	}
	return tryDo(client, req)
}

// objectURL is the URL of key in testBucket.
func objectURL(s *Server, key string) string {
	return s.URL() + "/" + testBucket + "/" + key
}

// seed stores body at key and returns its quoted ETag.
func seed(t *testing.T, s *Server, key string, body []byte) string {
	t.Helper()
	etag, err := s.PutObject(testBucket, key, body)
	if err != nil {
		t.Fatalf("seed %s: %v", key, err)
	}
	return etag
}

// stored returns the stored body of key, or nil when there is none.
func stored(t *testing.T, s *Server, key string) []byte {
	t.Helper()
	body, _, err := s.GetObject(testBucket, key)
	if err != nil {
		return nil
	}
	return body
}
