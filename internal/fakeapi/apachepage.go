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
	"html"
	"net/http"
)

// apachePage is a page in the form of Apache httpd's built-in answers.
func apachePage(status int, heading, text string) []byte {
	return fmt.Appendf(nil, "<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML 2.0//EN\">\n"+
		"<html><head>\n<title>%d %s</title>\n</head><body>\n<h1>%s</h1>\n<p>%s</p>\n</body></html>\n",
		status, http.StatusText(status), heading, html.EscapeString(text))
}

// renderApache renders e as Apache httpd's error page.
func renderApache(e apiError) response {
	return apacheResponse(e.status, http.StatusText(e.status), e.msg)
}

// apacheResponse is an answer with an Apache page as its body.
func apacheResponse(status int, heading, text string) response {
	return response{
		code:        status,
		header:      http.Header{"X-Content-Type-Options": {"nosniff"}},
		contentType: "text/html; charset=iso-8859-1",
		body:        apachePage(status, heading, text),
	}
}
