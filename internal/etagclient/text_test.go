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
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/stores"
)

// TestServerTextNeverReachesAMessage: what a server chooses (its error
// codes, a Location header, a URL's query) is reduced to a fixed
// vocabulary or a short printable excerpt before it reaches an error: an
// attacker's server must not be able to write the operator's conditions,
// events and logs, and a token in a query key must not show.
func TestServerTextNeverReachesAMessage(t *testing.T) {
	const planted = "INTERNAL-ONLY-db_password-hunter2"
	tests := []struct {
		name    string
		handler http.HandlerFunc
		change  bool
		class   error
		dialect etagclient.Dialect // the store whose error codes the client reads
	}{
		{"an unknown x-ms-error-code", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("x-ms-error-code", planted)
			w.WriteHeader(http.StatusBadRequest)
		}, false, etagclient.ErrRejected, stores.AzureBlob},
		{"an unknown <Code> in an XML error", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte("<Error><Code>" + planted + "</Code><Message>" + planted + "</Message></Error>"))
		}, false, etagclient.ErrUnauthorized, stores.S3},
		{"a read redirected to an unparsable Location", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Location", "http://[::1"+planted)
			w.WriteHeader(http.StatusFound)
		}, false, etagclient.ErrUnreachable, etagclient.Dialect{}},
		{"a write redirected to a Location that is not a URL", func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				w.Header().Set("ETag", `"v1"`)
				_, _ = w.Write([]byte(`[]`))
				return
			}
			w.Header().Set("Location", "javascript:"+planted)
			w.WriteHeader(http.StatusMovedPermanently)
		}, true, etagclient.ErrUnreachable, etagclient.Dialect{}},
		{"a write redirected with a long, escaping path", func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				w.Header().Set("ETag", `"v1"`)
				_, _ = w.Write([]byte(`[]`))
				return
			}
			w.Header().Set("Location", "https://elsewhere.example/"+strings.Repeat("x", 300)+planted)
			w.WriteHeader(http.StatusMovedPermanently)
		}, true, etagclient.ErrUnreachable, etagclient.Dialect{}},
		{"a write redirected on the same origin, with a long path", func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				w.Header().Set("ETag", `"v1"`)
				_, _ = w.Write([]byte(`[]`))
				return
			}
			w.Header().Set("Location", "/moved/"+strings.Repeat("x", 300)+planted)
			w.WriteHeader(http.StatusMovedPermanently)
		}, true, etagclient.ErrRejected, etagclient.Dialect{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startListServer(t, `[]`, func(_ *listServer, w http.ResponseWriter, r *http.Request, _ int) bool {
				tt.handler(w, r)
				return true
			})
			c := newClient(t, srv.url()+"&TOKEN_ONLY_KEY_abc", noTransportRetries, etagclient.WithDialect(tt.dialect))
			var err error
			if tt.change {
				_, err = c.Update(t.Context(), etagclient.Change{Add: []string{"x"}})
			} else {
				_, err = c.Read(t.Context())
			}
			if !errors.Is(err, tt.class) {
				t.Fatalf("err = %v, want class %v", err, tt.class)
			}
			for _, leak := range []string{planted, "TOKEN_ONLY_KEY", queryToken, "token="} {
				if strings.Contains(err.Error(), leak) {
					t.Errorf("the error quotes %q: %v", leak, err)
				}
			}
			if n := len(err.Error()); n > 600 {
				t.Errorf("the error is %d bytes long", n)
			}
		})
	}
}
