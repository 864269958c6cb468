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
	"crypto/x509"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// closeRecorder is a RoundTripper that counts CloseIdleConnections calls.
type closeRecorder struct {
	*http.Transport
	closes atomic.Int64
}

func (c *closeRecorder) CloseIdleConnections() {
	c.closes.Add(1)
	c.Transport.CloseIdleConnections()
}

// TestCloseClosesIdleConnections checks which keep-alive connections Close
// drops: those of a transport the Client built for itself (a TLS config),
// never those of the shared default transport or of a transport given with
// WithHTTPClient, which other lists' Clients use too.
func TestCloseClosesIdleConnections(t *testing.T) {
	tests := []struct {
		name      string
		custom    bool
		tls       bool
		wantClose bool
	}{
		{name: "default shared transport: kept"},
		{name: "WithHTTPClient: kept", custom: true},
		{name: "own transport for a TLS config: closed", tls: true, wantClose: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api, err := fakeapi.New()
			if err != nil {
				t.Fatal(err)
			}
			closed := make(chan struct{})
			var once sync.Once
			ts := httptest.NewUnstartedServer(api)
			ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateClosed {
					once.Do(func() { close(closed) })
				}
			}
			if tt.tls {
				ts.StartTLS()
			} else {
				ts.Start()
			}
			t.Cleanup(ts.Close)
			if _, err := api.Set(listPath, []byte(`["a"]`)); err != nil {
				t.Fatal(err)
			}

			var opts []etagclient.Option
			rec := &closeRecorder{Transport: &http.Transport{}}
			if tt.custom {
				opts = append(opts, etagclient.WithHTTPClient(&http.Client{Transport: rec}))
			}
			if tt.tls {
				pool := x509.NewCertPool()
				pool.AddCert(ts.Certificate())
				opts = append(opts, etagclient.WithTLSConfig(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}))
			}
			c, err := etagclient.New(ts.URL+listPath, opts...)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Update(context.Background(), etagclient.Change{Add: []string{"b"}}); err != nil {
				c.Close()
				t.Fatal(err)
			}
			c.Close()
			wait := 200 * time.Millisecond
			if tt.wantClose {
				wait = 5 * time.Second
			}
			select {
			case <-closed:
				if !tt.wantClose {
					t.Fatal("Close dropped an idle connection of a transport that other Clients share")
				}
			case <-time.After(wait):
				if tt.wantClose {
					t.Fatal("the idle connection of the Client's own transport is still open 5s after Close")
				}
			}
			if tt.custom && rec.closes.Load() != 0 {
				t.Error("Close called CloseIdleConnections on the caller's transport")
			}
		})
	}
}
