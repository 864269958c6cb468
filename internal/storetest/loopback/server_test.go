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

package loopback_test

import (
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"

	"go.uber.org/goleak"

	"github.com/listkeeper/listkeeper/internal/storetest/loopback"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// hello answers every request with "hello".
var hello = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
	_, _ = io.WriteString(w, "hello")
})

// get fetches u with c and returns the body.
func get(t *testing.T, c *http.Client, u string) string {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestServes: before Start there is no URL, the default client and no
// certificate; Start (HTTP) and StartTLS (HTTPS, with a client that trusts
// the certificate) serve the handler on 127.0.0.1 only; after Close the
// address refuses, and Close may be called again.
func TestServes(t *testing.T) {
	for _, tt := range []struct {
		name   string
		start  func(*loopback.Server)
		scheme string
		cert   bool
	}{
		{"Start", (*loopback.Server).Start, "http", false},
		{"StartTLS", (*loopback.Server).StartTLS, "https", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := loopback.New("test", hello)
			if s.URL() != "" || s.Client() != http.DefaultClient || s.Certificate() != nil {
				t.Fatalf("before Start: URL %q, client %p, certificate %v; want \"\", http.DefaultClient, nil",
					s.URL(), s.Client(), s.Certificate())
			}
			tt.start(s)
			defer s.Close()
			u, err := url.Parse(s.URL())
			if err != nil {
				t.Fatal(err)
			}
			if u.Scheme != tt.scheme || u.Hostname() != "127.0.0.1" {
				t.Fatalf("URL %q: want %s://127.0.0.1:port", s.URL(), tt.scheme)
			}
			if got := get(t, s.Client(), s.URL()); got != "hello" {
				t.Fatalf("body %q, want hello", got)
			}
			if got := s.Certificate() != nil; got != tt.cert {
				t.Fatalf("has certificate: %v, want %v", got, tt.cert)
			}
			if tt.cert {
				pool := x509.NewCertPool()
				pool.AddCert(s.Certificate())
				if _, err := s.Certificate().Verify(x509.VerifyOptions{Roots: pool, DNSName: "127.0.0.1"}); err != nil {
					t.Fatalf("certificate does not serve 127.0.0.1: %v", err)
				}
			}
			s.Close()
			s.Close()
			if conn, err := net.Dial("tcp", u.Host); err == nil {
				_ = conn.Close()
				t.Fatalf("%s still accepts connections after Close", u.Host)
			}
		})
	}
}

// TestCloseWithoutStart: Close on a Server never started does nothing.
func TestCloseWithoutStart(t *testing.T) {
	s := loopback.New("test", hello)
	s.Close()
	if s.URL() != "" {
		t.Fatalf("URL %q after Close without Start", s.URL())
	}
}

// TestStartTwicePanics: a second Start panics with the fake's name, and
// the first one keeps serving.
func TestStartTwicePanics(t *testing.T) {
	s := loopback.New("somefake", hello)
	s.Start()
	defer s.Close()
	func() {
		defer func() {
			msg, _ := recover().(string)
			if msg != "somefake: server already started" {
				t.Fatalf("panic %q, want %q", msg, "somefake: server already started")
			}
		}()
		s.StartTLS()
	}()
	if got := get(t, s.Client(), s.URL()); got != "hello" {
		t.Fatalf("body %q after the second Start, want hello", got)
	}
}

// TestHangUp: a request whose handler hangs up gets no answer: the client
// sees the connection end, not a status.
func TestHangUp(t *testing.T) {
	s := loopback.New("test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/drop" {
			loopback.HangUp(w)
			return
		}
		hello(w, r)
	}))
	s.Start()
	defer s.Close()
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	defer c.CloseIdleConnections()
	resp, err := c.Post(s.URL()+"/drop", "text/plain", strings.NewReader("body"))
	if err == nil {
		_ = resp.Body.Close()
		t.Fatalf("got status %d, want no answer", resp.StatusCode)
	}
	if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("error %v: want the connection to end (EOF or reset)", err)
	}
	if got := get(t, c, s.URL()+"/other"); got != "hello" {
		t.Fatalf("body %q after a hang-up, want hello", got)
	}
}
