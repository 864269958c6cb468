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

package etagclient_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/netfence"
)

// newDialFence returns a fence that allows allow (and refuses loopback
// unless allow covers it).
func newDialFence(t *testing.T, allow ...string) *netfence.Fence {
	t.Helper()
	f, err := netfence.New(context.Background(), netfence.Options{Allow: netfence.MustParseAllowlist(allow...)})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestDialFenceRefusesLoopback: with a dial fence that does not allow
// loopback, a Client whose URL is a server on 127.0.0.1 reads and writes
// nothing, through the shared transport, a TLS config's own transport or
// a client given with WithHTTPClient; the refusal is
// netfence.ErrNotAllowed, not retried, and names no address. With
// 127.0.0.0/8 allowed, the same Client works.
func TestDialFenceRefusesLoopback(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []etagclient.Option
	}{
		{"shared transport", nil},
		{"TLS config", []etagclient.Option{etagclient.WithTLSConfig(&tls.Config{MinVersion: tls.VersionTLS12})}},
		{"HTTP client", []etagclient.Option{etagclient.WithHTTPClient(&http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()})}},
		{"HTTP client without transport", []etagclient.Option{etagclient.WithHTTPClient(&http.Client{})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := startFake(t)
			e.set(t, `["a"]`)
			counters := &etagclient.Counters{}
			c := newClient(t, e.url, append(tc.opts, etagclient.WithDialFence(newDialFence(t)), etagclient.WithObserver(counters))...)
			_, err := c.Read(t.Context())
			// One attempt: the transport retries (three by default)
			// never retry a refusal.
			if n := counters.Requests.Load(); n != 1 {
				t.Errorf("the read made %d attempts, want 1", n)
			}
			if !errors.Is(err, netfence.ErrNotAllowed) {
				t.Fatalf("Read: %v, want netfence.ErrNotAllowed", err)
			}
			// The URL's own host is shown; nothing of the dial is.
			if want := "GET " + strings.TrimSuffix(e.url, "?token="+queryToken) + ": " + netfence.NotAllowedMessage; err.Error() != want {
				t.Errorf("the refusal is %q, want %q", err, want)
			}
			checkNoSecrets(t, err)
			if _, err := c.Update(t.Context(), etagclient.Change{Add: []string{"b"}}); !errors.Is(err, netfence.ErrNotAllowed) {
				t.Fatalf("Update: %v, want netfence.ErrNotAllowed", err)
			}
			if n := e.gets() + e.puts(); n != 0 {
				t.Fatalf("the server got %d requests, want none", n)
			}

			ok := newClient(t, e.url, append(tc.opts, etagclient.WithDialFence(newDialFence(t, "127.0.0.0/8")))...)
			if _, err := ok.Update(t.Context(), etagclient.Change{Add: []string{"b"}}); err != nil {
				t.Fatalf("Update with 127.0.0.0/8 allowed: %v", err)
			}
			if got := e.items(t, ""); strings.Join(got, ",") != "a,b" {
				t.Fatalf("items = %v, want a,b", got)
			}
		})
	}
}

// TestDialFenceRefusesMetadataAddress: a Client whose URL names the
// metadata address, given a client whose transport is not an
// *http.Transport, is refused by the fence's check of the target before
// the request reaches that transport.
func TestDialFenceRefusesMetadataAddress(t *testing.T) {
	var requests int
	c := newClient(t, "http://169.254.169.254/latest/meta-data/",
		etagclient.WithDialFence(newDialFence(t, "127.0.0.0/8")),
		etagclient.WithHTTPClient(&http.Client{Transport: roundTripCounter{n: &requests}}))
	if _, err := c.Read(t.Context()); !errors.Is(err, netfence.ErrNotAllowed) {
		t.Fatalf("Read: %v, want netfence.ErrNotAllowed", err)
	}
	if requests != 0 {
		t.Fatalf("the transport below the fence saw %d requests", requests)
	}
}

// roundTripCounter counts the requests it is given and answers none.
type roundTripCounter struct{ n *int }

func (r roundTripCounter) RoundTrip(*http.Request) (*http.Response, error) {
	*r.n++
	return nil, errors.New("no answer")
}

// TestDialFenceUnfencedByDefault: without WithDialFence, a Client used
// alone reaches loopback, as before.
func TestDialFenceUnfencedByDefault(t *testing.T) {
	e := startFake(t)
	e.set(t, `["a"]`)
	c := newClient(t, e.url)
	if _, err := c.Read(t.Context()); err != nil {
		t.Fatal(err)
	}
}
