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

package gcstoken_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
	"golang.org/x/oauth2"

	"github.com/listkeeper/listkeeper/internal/storetest/gcstoken"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// storageScope is the scope a GCS client asks for.
const storageScope = "https://www.googleapis.com/auth/devstorage.read_write"

// endpoint is a token Server served on 127.0.0.1 for the duration of a
// test, with a service-account key that posts to it.
type endpoint struct {
	*gcstoken.Server
	url string // of TokenPath
	key []byte
}

func startEndpoint(t *testing.T, opts ...gcstoken.Option) *endpoint {
	t.Helper()
	s, err := gcstoken.New(opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	e := &endpoint{Server: s, url: ts.URL + gcstoken.TokenPath}
	if e.key, err = s.NewServiceAccountKey(e.url); err != nil {
		t.Fatalf("NewServiceAccountKey: %v", err)
	}
	return e
}

// clientContext returns a context that makes golang.org/x/oauth2 use a
// transport of its own, closed when the test ends, so that no idle
// connection outlives the test.
func clientContext(t *testing.T) context.Context {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return context.WithValue(t.Context(), oauth2.HTTPClient, &http.Client{Transport: tr})
}

// fakeClock is a clock that moves only when told, safe for concurrent use.
type fakeClock struct{ ns atomic.Int64 }

func newFakeClock(t time.Time) *fakeClock {
	c := &fakeClock{}
	c.ns.Store(t.UnixNano())
	return c
}

func (c *fakeClock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) advance(d time.Duration) { c.ns.Add(int64(d)) }
