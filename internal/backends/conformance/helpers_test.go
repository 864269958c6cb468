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

package conformance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/backends/conformance"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
	"github.com/listkeeper/listkeeper/internal/stores"
)

// The documents of the kinds that keep a JSON document (http, s3, gcs,
// azureblob): the items under /items, with fields around them spelled as a
// hand-written file would be (spaces, a number with a trailing zero), which
// a write must keep byte for byte.
const docPointer = "/items"

func jsonDoc(t *testing.T, items []string) []byte {
	t.Helper()
	b, err := json.Marshal(items)
	if err != nil {
		t.Fatal(err)
	}
	return []byte(`{"owner": "someone else",  "items": ` + string(b) + `, "note": {"k": [1, 2.50, "x"]}}` + "\n")
}

func parseDoc(t *testing.T, raw []byte) *etagclient.Document {
	t.Helper()
	d, err := etagclient.ParseDocument(raw, etagclient.Pointer{"items"})
	if err != nil {
		t.Fatalf("the fake holds a document that does not parse: %v\n%s", err, raw)
	}
	return d
}

func docItems(t *testing.T, raw []byte) []string { return parseDoc(t, raw).Items() }

// docForeign is everything of a document but its items array.
func docForeign(t *testing.T, raw []byte) []byte {
	before, after := parseDoc(t, raw).Outside()
	return bytes.Join([][]byte{before, after}, []byte("<items>"))
}

// entryIDs are IDs of the kinds that take any string.
func entryIDs(from, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("entry-%04d", from+i)
	}
	return out
}

func isPut(r *http.Request) bool { return r.Method == http.MethodPut }

// etagUnsafe are the versions of the ETag kinds that no If-Match can be
// made on.
var etagUnsafe = map[string]func(*http.Response){
	"no-etag": func(resp *http.Response) { resp.Header.Del("ETag") },
	"weak-etag": func(resp *http.Response) {
		if e := resp.Header.Get("ETag"); e != "" {
			resp.Header.Set("ETag", "W/"+e)
		}
	},
}

// secrets serves Secrets from a map, as the operator's SecretFunc does.
func secrets(m map[string]map[string]string) stores.SecretFunc {
	return func(_ context.Context, name string) (map[string][]byte, error) {
		d, ok := m[name]
		if !ok {
			return nil, fmt.Errorf("secret %q not found", name)
		}
		out := map[string][]byte{}
		for k, v := range d {
			out[k] = []byte(v)
		}
		return out, nil
	}
}

// fakeapiInject injects faults through the fake list server's fault hook;
// a 500, which the fake has no fault for, comes from the probe.
func fakeapiInject(srv *fakeapi.Server, probe *conformance.Probe) func(conformance.Fault, func(*http.Request) bool) error {
	return func(f conformance.Fault, pick func(*http.Request) bool) error {
		var kind fakeapi.FaultKind
		switch f {
		case conformance.FaultThrottled:
			kind = fakeapi.FaultTooManyRequests
		case conformance.FaultUnavailable:
			kind = fakeapi.FaultServiceUnavailable
		case conformance.FaultDropBefore:
			kind = fakeapi.FaultResetBeforeCommit
		case conformance.FaultDropAfter:
			kind = fakeapi.FaultCommitThenDrop
		case conformance.FaultInternal:
			probe.Answer(pick, func(*http.Request) *http.Response {
				return answer(http.StatusInternalServerError, http.Header{"Content-Type": {"text/plain"}}, "internal server error")
			})
			return nil
		default:
			return fmt.Errorf("%w: %s", conformance.ErrNoFault, f)
		}
		srv.SetFaultHook(func(r *http.Request) fakeapi.Fault {
			if pick(r) {
				return fakeapi.Fault{Kind: kind, RetryAfter: time.Millisecond}
			}
			return fakeapi.Fault{}
		})
		return nil
	}
}

// answer is an HTTP answer with body.
func answer(status int, h http.Header, body string) *http.Response {
	resp := &http.Response{StatusCode: status, Status: fmt.Sprintf("%d %s", status, http.StatusText(status)),
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: h}
	conformance.SetBody(resp, []byte(body))
	return resp
}

// deleteJSONField removes a top-level field from a JSON answer's body.
func deleteJSONField(field string) func(*http.Response) {
	return func(resp *http.Response) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(conformance.ReadBody(resp), &m); err != nil {
			return
		}
		delete(m, field)
		b, _ := json.Marshal(m)
		conformance.SetBody(resp, b)
	}
}
