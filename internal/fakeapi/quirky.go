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
	"net/http"
	"net/url"
	"strings"
)

// putReport is the body of a successful PUT under putReportBody: it says
// how the write went and looks like a list document, but is not the one
// stored.
const putReport = `{"status":"ok","stored":true,"items":[]}`

// redirectSlash answers 301 to a request whose path ends with "/", with
// Location the same path without the trailing slashes. It reports false,
// and answers nothing, for other paths, for "/" and for paths that would
// become a scheme-relative reference ("//host/x/" would point at host).
func (s *Server) redirectSlash(r *http.Request) (response, bool) {
	p := r.URL.Path
	trimmed := strings.TrimRight(p, "/")
	if trimmed == p || trimmed == "" || strings.HasPrefix(trimmed, "//") {
		return response{}, false
	}
	loc := (&url.URL{Path: trimmed, RawQuery: r.URL.RawQuery}).String()
	resp := errorResponse(http.StatusMovedPermanently, "moved permanently to "+loc)
	resp.header.Set("Location", loc)
	return resp, true
}
