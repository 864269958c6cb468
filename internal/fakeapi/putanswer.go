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

import "net/http"

// putAnswer is what a successful PUT answers.
type putAnswer int

const (
	// putEcho answers 200, or 201 with Location when it created the
	// document, with the new ETag and the stored document as the body;
	// with WithEchoBody(false), 204 or 201 without a body.
	putEcho putAnswer = iota
	// putEmpty answers 200 with the new ETag and no body, create or not
	// (S3).
	putEmpty
	// putCreated answers 201 with the new ETag and no body, create or not
	// (Azure Put Blob).
	putCreated
	// putDAV answers like mod_dav, without an ETag: 201 with Location and
	// a short HTML page when it created the document, else 204.
	putDAV
	// putReportBody answers 200, create or not, with the new ETag and a
	// JSON report (putReport) that is not the stored document.
	putReportBody
)

// putAnswer builds the answer to a PUT that committed next; created is
// true when there was no document before.
func (s *Server) putAnswer(r *http.Request, created bool, next *document) response {
	switch s.b.put {
	case putEmpty:
		return s.withETag(response{code: http.StatusOK}, next)
	case putCreated:
		return s.withETag(response{code: http.StatusCreated}, next)
	case putReportBody:
		return s.withETag(response{code: http.StatusOK, contentType: "application/json", body: []byte(putReport)}, next)
	case putDAV:
		if !created {
			return response{code: http.StatusNoContent}
		}
		resp := apacheResponse(http.StatusCreated, "Created", "Resource "+r.URL.Path+" has been created.")
		resp.header.Set("Location", r.URL.Path)
		return resp
	default:
		resp := response{code: http.StatusOK, header: http.Header{}}
		if created {
			resp.code = http.StatusCreated
			resp.header.Set("Location", r.URL.Path)
		}
		switch {
		case s.cfg.echoBody:
			resp.contentType, resp.body = "application/json", next.body
		case !created:
			resp.code = http.StatusNoContent
		}
		return s.withETag(resp, next)
	}
}

// withETag returns resp with the ETag header of d, unless the ETagMode
// serves none.
func (s *Server) withETag(resp response, d *document) response {
	if resp.header == nil {
		resp.header = http.Header{}
	}
	if v := s.etagHeader(d.opaque, false); v != "" {
		resp.header.Set("ETag", v)
	}
	return resp
}

// etagHeader returns the ETag header value for an opaque tag, weak when
// weak is true or the ETagMode says so, or "" under ETagNone.
func (s *Server) etagHeader(opaque string, weak bool) string {
	if weak && s.cfg.etagMode == ETagStrong {
		return "W/" + quote(opaque)
	}
	return s.cfg.etagMode.header(opaque)
}
