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
	"encoding/xml"
	"net/http"
	"strings"
)

// s3ErrorBody is the XML error body of Amazon S3.
type s3ErrorBody struct {
	XMLName   xml.Name `xml:"Error"`
	Code      string   `xml:"Code"`
	Message   string   `xml:"Message"`
	Resource  string   `xml:"Resource"`
	RequestID string   `xml:"RequestId"`
}

// s3Codes are S3's error codes for the statuses the fake answers.
var s3Codes = map[int]string{
	http.StatusBadRequest:            "InvalidRequest",
	http.StatusUnauthorized:          "AccessDenied",
	http.StatusNotFound:              "NoSuchKey",
	http.StatusMethodNotAllowed:      "MethodNotAllowed",
	http.StatusConflict:              "ConditionalRequestConflict",
	http.StatusPreconditionFailed:    "PreconditionFailed",
	http.StatusRequestEntityTooLarge: "EntityTooLarge",
	http.StatusTooManyRequests:       "SlowDown",
	http.StatusInternalServerError:   "InternalError",
	http.StatusServiceUnavailable:    "ServiceUnavailable",
}

// renderS3 renders e as S3 does: application/xml, with the request ID in
// the body and in x-amz-request-id.
func renderS3(e apiError) response {
	code := errorCode(s3Codes, e)
	resp := xmlResponse(e.status, xml.Header, s3ErrorBody{
		Code: code, Message: e.msg, Resource: e.resource, RequestID: e.requestID,
	})
	resp.header.Set("x-amz-request-id", e.requestID)
	return resp
}

// errorCode returns e.code, or else the code the table gives e.status, or
// else the status text without spaces.
func errorCode(table map[int]string, e apiError) string {
	if e.code != "" {
		return e.code
	}
	if c, ok := table[e.status]; ok {
		return c
	}
	return strings.ReplaceAll(http.StatusText(e.status), " ", "")
}

// xmlResponse is an answer with an XML body: the declaration, then v.
func xmlResponse(status int, declaration string, v any) response {
	b, err := xml.Marshal(v)
	if err != nil {
		// The bodies are structs of strings; xml.Marshal replaces what
		// XML cannot hold, so it does not fail.
		panic("fakeapi: encode XML error body: " + err.Error())
	}
	return response{
		code:        status,
		header:      http.Header{"X-Content-Type-Options": {"nosniff"}},
		contentType: "application/xml",
		body:        append([]byte(declaration), b...),
	}
}
