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

package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"
)

// Host is the address every process of the harness listens on.
const Host = "127.0.0.1"

// httpClient is the harness's own client for probes, scrapes and reads.
var httpClient = &http.Client{Timeout: 10 * time.Second}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(Host, "0"))
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if err := ln.Close(); err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	return port, nil
}

// FreeAddr returns 127.0.0.1:<port> with a port that was free a moment ago.
func FreeAddr() (string, error) {
	port, err := FreePort()
	if err != nil {
		return "", err
	}
	return net.JoinHostPort(Host, strconv.Itoa(port)), nil
}

// PortFree reports whether 127.0.0.1:port can be listened on now.
func PortFree(port int) bool {
	ln, err := net.Listen("tcp", net.JoinHostPort(Host, strconv.Itoa(port)))
	if err != nil {
		return false
	}
	_ = ln.Close()
	return true
}

// ErrNotReady is what a readiness probe returns while the URL does not
// answer 200.
var ErrNotReady = errors.New("not ready")

// WaitReady polls url every 100ms until it answers 200, p exits, ctx ends or
// timeout passes.
func WaitReady(ctx context.Context, p *Proc, url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		if last = Probe(ctx, url); last == nil {
			return nil
		}
		select {
		case <-p.Done():
			return fmt.Errorf("%s exited (%v) before %s was ready; see %s", p.Name, exitStatus(p.err), url, p.LogPath)
		case <-ctx.Done():
			return fmt.Errorf("%s: %s not ready after %v: %w (see %s)", p.Name, url, timeout, last, p.LogPath)
		case <-tick.C:
		}
	}
}

// Probe does one GET of url and wants 200.
func Probe(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w: %s", ErrNotReady, resp.Status)
	}
	return nil
}

// get does a GET of url with header and returns the body of a 200.
func get(ctx context.Context, url string, header http.Header) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		_ = resp.Body.Close()
		return nil, &StatusError{URL: url, Code: resp.StatusCode, Status: resp.Status}
	}
	return resp.Body, nil
}

// StatusError is the error of a GET answered with another status than 200.
type StatusError struct {
	URL    string
	Code   int
	Status string
}

func (e *StatusError) Error() string { return fmt.Sprintf("GET %s: %s", e.URL, e.Status) }

// SaveURL saves the body of a GET of url, sent with header, to path.
func SaveURL(ctx context.Context, url string, header http.Header, path string) error {
	body, err := get(ctx, url, header)
	if err != nil {
		return err
	}
	defer func() { _ = body.Close() }()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, body); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
