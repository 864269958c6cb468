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

package stores

import (
	"bytes"
	"io"
	"net/http"
)

// readAnswer reads resp's whole body, at most limit bytes, before anyone
// decodes it, and hands the bytes on as the body: a provider's SDK decodes
// an answer at many times its size, so an answer over the size limit, or
// one that check refuses (an item count over the item limit), must fail
// before it is decoded, costing only its bytes. A body over the limit, or
// that check refuses or that cannot be read, is replaced with one whose
// first Read fails with that error: the SDK then reports an answer that
// could not be read, which it does not retry, as it would retry an error
// of the round trip. The bytes are read through the engine's HTTP client,
// so they count against its memory budget while they are held.
func readAnswer(resp *http.Response, limit int64, tooLarge error, check func([]byte) error) {
	body := resp.Body
	defer func() { _ = body.Close() }()
	if limit > 0 && resp.ContentLength > limit {
		resp.Body = failingBody{tooLarge}
		return
	}
	var buf bytes.Buffer
	if resp.ContentLength > 0 {
		buf.Grow(int(resp.ContentLength) + bytes.MinRead)
	}
	r := io.Reader(body)
	if limit > 0 {
		r = io.LimitReader(body, limit+1)
	}
	if _, err := buf.ReadFrom(r); err != nil {
		resp.Body = failingBody{err}
		return
	}
	if limit > 0 && int64(buf.Len()) > limit {
		resp.Body = failingBody{tooLarge}
		return
	}
	if check != nil {
		if err := check(buf.Bytes()); err != nil {
			resp.Body = failingBody{err}
			return
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(buf.Bytes()))
}

// failingBody is a body whose every Read fails with err.
type failingBody struct{ err error }

func (b failingBody) Read([]byte) (int, error) { return 0, b.err }
func (b failingBody) Close() error             { return nil }
