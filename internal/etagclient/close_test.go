package etagclient_test

import (
	"context"
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

// TestCloseClosesIdleConnections checks that Close closes the keep-alive
// connections the Client left idle, as its doc says, both on the shared
// default transport and on a transport given with WithHTTPClient.
func TestCloseClosesIdleConnections(t *testing.T) {
	tests := []struct {
		name   string
		custom bool
	}{
		{name: "default shared transport"},
		{name: "WithHTTPClient", custom: true},
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
			ts.Start()
			t.Cleanup(ts.Close)
			if _, err := api.Set(listPath, []byte(`["a"]`)); err != nil {
				t.Fatal(err)
			}

			var opts []etagclient.Option
			rec := &closeRecorder{Transport: &http.Transport{}}
			if tt.custom {
				opts = append(opts, etagclient.WithHTTPClient(&http.Client{Transport: rec}))
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
			select {
			case <-closed:
			case <-time.After(5 * time.Second):
				t.Fatal("the idle connection is still open 5s after Close")
			}
			if tt.custom && rec.closes.Load() == 0 {
				t.Error("Close did not call CloseIdleConnections on the given transport")
			}
		})
	}
}
