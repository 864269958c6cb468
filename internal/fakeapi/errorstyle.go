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
	"fmt"
	"net/http"
	"strings"
	"time"
)

// errorStyle is the body format of error answers.
type errorStyle int

const (
	// errorsText is a line of plain text.
	errorsText errorStyle = iota
	// errorsS3 is Amazon S3's XML error.
	errorsS3
	// errorsAzure is Azure Storage's XML error.
	errorsAzure
	// errorsApache is Apache httpd's HTML error page.
	errorsApache
	// errorsGCS is the Google Cloud Storage XML API's XML error.
	errorsGCS
)

// apiError is an error answer before it is rendered in a style.
type apiError struct {
	status int
	// code is the service's error code, such as NoSuchKey; "" means the
	// style's code for status.
	code      string
	msg       string
	resource  string // the request path
	requestID string
	time      time.Time
}

// fail builds an error answer in the profile's error style. code is the
// service's error code, or "" for the usual code of status.
func (s *Server) fail(r *http.Request, status int, code, msg string) response {
	return s.b.errors.render(apiError{
		status:    status,
		code:      code,
		msg:       msg,
		resource:  r.URL.Path,
		requestID: s.nextRequestID(),
		time:      s.cfg.now(),
	})
}

// nextRequestID returns a request ID that is unique within the process:
// 16 upper-case hex digits, as S3's look.
func (s *Server) nextRequestID() string {
	return fmt.Sprintf("%.8s%08X", strings.ToUpper(s.boot), s.requestIDs.Add(1))
}

// render renders e in the style.
func (st errorStyle) render(e apiError) response {
	switch st {
	case errorsS3:
		return renderS3(e)
	case errorsAzure:
		return renderAzure(e)
	case errorsApache:
		return renderApache(e)
	case errorsGCS:
		return renderGCS(e)
	default:
		return errorResponse(e.status, e.msg)
	}
}

// errorResponse is a plain-text error answer.
func errorResponse(code int, msg string) response {
	return response{
		code:        code,
		header:      http.Header{"X-Content-Type-Options": {"nosniff"}},
		contentType: "text/plain; charset=utf-8",
		body:        []byte(msg + "\n"),
	}
}
