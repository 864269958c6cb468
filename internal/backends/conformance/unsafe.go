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

package conformance

import (
	"bytes"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// marker is text an unsafe answer carries that no error may repeat: a
// server's words reach conditions and events only as a fixed vocabulary.
const marker = "conformance-marker-7f3a9c"

// unsafeAnswers: an answer that cannot be a list (an HTML page from a
// proxy, garbage) or that carries a version no conditional write can be
// made on is an error, which never quotes the answer, and no write
// follows it.
func unsafeAnswers(t *testing.T, h Harness) {
	cases := map[string]struct {
		rewrite func(*http.Response)
		class   error // nil: any one class
	}{
		"html-page":    {htmlPage, nil},
		"garbage-body": {garbage, nil},
	}
	for name, rw := range h.Unsafe {
		cases[name] = struct {
			rewrite func(*http.Response)
			class   error
		}{rw, etagclient.ErrUnsafeServer}
	}
	theirs := h.IDs(100, 2)
	mine := h.IDs(300, 1)
	for _, name := range slices.Sorted(maps.Keys(cases)) {
		tc := cases[name]
		t.Run(name, func(t *testing.T) {
			levels(t, func(t *testing.T) {
				f := start(t, h)
				f.seed(t, theirs)
				b := f.backend(t, nil)
				f.probe.After(h.reads, 0, tc.rewrite)
				_, err := b.Read(ctx(t), etagclient.Version{})
				wantClass(t, h.Kind+": a read answered "+name, err, tc.class)
				wantQuiet(t, h.Kind, err)
			}, func(t *testing.T) {
				f := start(t, h)
				before := f.seed(t, theirs)
				c := f.client(t, nil)
				f.probe.After(h.reads, 0, tc.rewrite)
				_, err := update(t, c, etagclient.Change{Add: mine})
				wantClass(t, h.Kind+": a change whose read was answered "+name, err, tc.class)
				wantQuiet(t, h.Kind, err)
				f.wantNoWrite(t, "after a read answered "+name, 0)
				f.wantUnchanged(t, "after a read answered "+name, before)
			})
		})
	}
}

func wantQuiet(t *testing.T, kind string, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), marker) {
		t.Errorf("%s: the error quotes the server's answer: %v", kind, err)
	}
}

// htmlPage turns an answer into a proxy's login page.
func htmlPage(resp *http.Response) {
	resp.Header = http.Header{"Content-Type": {"text/html; charset=utf-8"}}
	setBody(resp, []byte("<!DOCTYPE html><html><head><title>Sign in "+marker+"</title></head><body><form action=/login></form></body></html>"))
}

// garbage keeps the answer's headers and replaces its body with bytes that
// are no answer of any kind.
func garbage(resp *http.Response) {
	setBody(resp, []byte("\x00\x01{\""+marker+"\": [not json"))
}

// SetBody replaces resp's body (after reading and closing the old one) and
// its length, for a Harness's Unsafe rewrites.
func SetBody(resp *http.Response, body []byte) { setBody(resp, body) }

func setBody(resp *http.Response, body []byte) {
	if resp.Body != nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	resp.Header.Del("Content-Encoding")
	resp.Uncompressed = false
}

// ReadBody reads resp's body and puts it back, for a Harness's Unsafe
// rewrites.
func ReadBody(resp *http.Response) []byte {
	b, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return b
}
