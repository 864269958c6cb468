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

package stores_test

import (
	"context"
	"net"
	"net/http"
	"testing"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/netfence"
	"github.com/listkeeper/listkeeper/internal/stores"
)

// TestGCPTokenURIFenced: a key's token_uri is the Secret's choice, so the
// token request goes through the policy's dial fence: a token endpoint on
// a loopback port the fence does not allow gets no request, although the
// policy lists the URI, and the list's own server (allowed by its port)
// gets no request either, since nothing could be signed.
func TestGCPTokenURIFenced(t *testing.T) {
	token := &hits{answer: func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "no", http.StatusForbidden) }}
	tokenURI := serve(t, token).URL + "/token"
	_, sec := gcpKey(t, tokenURI)
	rec := startRecorder(t)
	_, port, _ := net.SplitHostPort(rec.srv.Listener.Addr().String())
	fence, err := netfence.New(context.Background(), netfence.Options{Allow: netfence.MustParseAllowlist("127.0.0.0/8:" + port)})
	if err != nil {
		t.Fatal(err)
	}
	err = readList(t, gcpSecretAuth, rec.srv.URL+"/lists/l.json", sec,
		stores.Policy{GCPTokenURIs: []string{tokenURI}, DialFence: fence}, etagclient.WithDialFence(fence))
	if err == nil {
		t.Fatal("the read succeeded")
	}
	if n := token.n.Load(); n != 0 {
		t.Fatalf("the fenced token endpoint got %d requests", n)
	}
	t.Logf("refused: %v", err)
	noCredential(t, rec)
}
