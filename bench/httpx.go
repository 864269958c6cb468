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

package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// liveServer is a fake list server listening on 127.0.0.1.
type liveServer struct {
	fake *fakeapi.Server
	srv  *http.Server
	url  string // the list's URL
	done chan error
}

func startServer(fake *fakeapi.Server) (*liveServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	s := &liveServer{
		fake: fake,
		srv:  &http.Server{Handler: fake, ReadHeaderTimeout: 10 * time.Second},
		url:  "http://" + ln.Addr().String() + listPath,
		done: make(chan error, 1),
	}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// stop shuts the server down, waiting at most grace for requests in flight,
// so that the document and the stats are final afterwards.
func (s *liveServer) stop(grace time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if err != nil {
		_ = s.srv.Close()
	}
	if serr := <-s.done; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

// reqCounts counts HTTP attempts on the client side. Safe for concurrent use.
type reqCounts struct {
	total, gets, puts, status412, noAnswer atomic.Int64
}

func (c *reqCounts) add(o *reqCounts) {
	c.total.Add(o.total.Load())
	c.gets.Add(o.gets.Load())
	c.puts.Add(o.puts.Load())
	c.status412.Add(o.status412.Load())
	c.noAnswer.Add(o.noAnswer.Load())
}

// countingTransport counts every attempt that goes through it.
type countingTransport struct {
	next   http.RoundTripper
	counts *reqCounts
}

func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	t.counts.total.Add(1)
	switch req.Method {
	case http.MethodGet:
		t.counts.gets.Add(1)
	case http.MethodPut:
		t.counts.puts.Add(1)
	}
	switch {
	case err != nil:
		t.counts.noAnswer.Add(1)
	case resp.StatusCode == http.StatusPreconditionFailed:
		t.counts.status412.Add(1)
	}
	return resp, err
}

// newReplicaHTTPClient returns an HTTP client with its own connection pool,
// sized for conns concurrent requests, as a separate process would have.
func newReplicaHTTPClient(conns int, counts *reqCounts) (*http.Client, *http.Transport) {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost: conns + 2,
		IdleConnTimeout:     30 * time.Second,
		DisableCompression:  true,
	}
	return &http.Client{Transport: &countingTransport{next: tr, counts: counts}, Timeout: 30 * time.Second}, tr
}

// errConflict is a 412 seen by a baseline.
var errConflict = errors.New("412 precondition failed")

// rawClient is the hand-written read-modify-write of the baselines: decode
// the whole array, change it, encode it, write it.
type rawClient struct {
	url  string
	http *http.Client
}

// get reads the list and its ETag.
func (c *rawClient) get(ctx context.Context) ([]string, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, "", fmt.Errorf("GET: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, "", fmt.Errorf("GET: read body: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, "", fmt.Errorf("GET: status %d", resp.StatusCode)
	}
	if err := ctx.Err(); err != nil {
		return nil, "", err // decoding a large list is not interruptible
	}
	var items []string
	if err := json.Unmarshal(body, &items); err != nil {
		return nil, "", fmt.Errorf("GET: decode: %w", err)
	}
	return items, resp.Header.Get("ETag"), nil
}

// put writes items, conditionally when ifMatch is not empty. A 412 is
// errConflict.
func (c *rawClient) put(ctx context.Context, items []string, ifMatch string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	body, err := json.Marshal(items)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, c.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if ifMatch != "" {
		req.Header.Set("If-Match", ifMatch)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("PUT: %w", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body) // so the connection is reused
	_ = resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusPreconditionFailed:
		return errConflict
	case resp.StatusCode/100 != 2:
		return fmt.Errorf("PUT: status %d", resp.StatusCode)
	}
	return nil
}

// without returns items without id, keeping the order; items is not
// modified.
func without(items []string, id string) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		if it != id {
			out = append(out, it)
		}
	}
	return out
}
