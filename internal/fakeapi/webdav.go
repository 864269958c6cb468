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

package fakeapi

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strconv"
	"strings"
)

// gzipSuffix is what mod_deflate appends inside the quotes of the ETag of
// a response it compressed.
const gzipSuffix = "-gzip"

// representation is what a GET or HEAD serves for a document: its body,
// possibly gzip-compressed, and the headers that describe it.
type representation struct {
	body []byte
	etag string // the ETag header value; "" for none
	gzip bool   // compress the body (mod_deflate)
	vary bool   // the representation depends on Accept-Encoding
	// goog holds the x-goog- headers of a 200 (generations); a 304 does
	// not carry them.
	goog http.Header
}

// represent chooses the representation of d that r gets.
func (s *Server) represent(r *http.Request, d *document) representation {
	rep := representation{body: d.body}
	opaque := d.opaque
	if s.b.deflate {
		rep.vary = true
		if acceptsGzip(r.Header.Values("Accept-Encoding")) {
			rep.gzip = true
			opaque += gzipSuffix
		}
	}
	rep.etag = s.etagHeader(opaque, s.freshWeak(d))
	if s.b.generations {
		rep.goog = googHeaders(d)
	}
	return rep
}

// ok is the 200 answer with the representation.
func (rep representation) ok() response {
	resp := response{code: http.StatusOK, header: rep.headers(true), contentType: "application/json", body: rep.body}
	addHeaders(resp.header, rep.goog)
	if rep.gzip {
		resp.body = gzipped(rep.body)
		resp.header.Set("Content-Encoding", "gzip")
	}
	return resp
}

// notModified is the 304 answer; withETag says whether it carries the
// ETag.
func (rep representation) notModified(withETag bool) response {
	return response{code: http.StatusNotModified, header: rep.headers(withETag)}
}

func (rep representation) headers(withETag bool) http.Header {
	h := http.Header{}
	if withETag && rep.etag != "" {
		h.Set("ETag", rep.etag)
	}
	if rep.vary {
		h.Set("Vary", "Accept-Encoding")
	}
	return h
}

// freshWeak reports whether d's tag is weak now because d was written
// within the weak window, as Apache makes the ETag of a file modified less
// than a second before the request.
func (s *Server) freshWeak(d *document) bool {
	w := s.cfg.weakWindow
	return s.b.weakWhileFresh && w > 0 && s.cfg.now().Sub(d.written) < w
}

// acceptsGzip reports whether Accept-Encoding values name gzip with a
// quality above zero. Like mod_deflate, it needs gzip by name: "*" does
// not count.
func acceptsGzip(values []string) bool {
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			name, params, _ := strings.Cut(part, ";")
			if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
				continue
			}
			return quality(params) > 0
		}
	}
	return false
}

// quality returns the q parameter in params, 1 when there is none or it
// does not parse.
func quality(params string) float64 {
	for _, p := range strings.Split(params, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		if q, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
			return q
		}
	}
	return 1
}

// gzipped compresses b.
func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(b) // writes to a bytes.Buffer do not fail
	_ = zw.Close()
	return buf.Bytes()
}

// withoutSuffix returns the list with suffix cut from the end of every
// tag, so that "abc-gzip" compares as "abc".
func (l etagList) withoutSuffix(suffix string) etagList {
	out := l
	out.tags = make([]entityTag, len(l.tags))
	for i, t := range l.tags {
		t.opaque = strings.TrimSuffix(t.opaque, suffix)
		out.tags[i] = t
	}
	return out
}
