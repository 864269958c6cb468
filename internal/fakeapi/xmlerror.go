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

// codeMessageErrorBody is the XML error body of Azure Storage and of the
// GCS XML API: Code and Message.
type codeMessageErrorBody struct {
	XMLName xml.Name `xml:"Error"`
	Code    string   `xml:"Code"`
	Message string   `xml:"Message"`
}

// azureCodes are Azure Blob Storage's error codes for the statuses the
// fake answers.
var azureCodes = map[int]string{
	http.StatusBadRequest:            "InvalidInput",
	http.StatusUnauthorized:          "NoAuthenticationInformation",
	http.StatusNotFound:              "BlobNotFound",
	http.StatusMethodNotAllowed:      "UnsupportedHttpVerb",
	http.StatusConflict:              "BlobAlreadyExists",
	http.StatusPreconditionFailed:    "ConditionNotMet",
	http.StatusRequestEntityTooLarge: "RequestBodyTooLarge",
	http.StatusUnsupportedMediaType:  "InvalidHeaderValue",
	http.StatusInternalServerError:   "InternalError",
	http.StatusServiceUnavailable:    "ServerBusy",
}

// azureDeclaration is the XML declaration of Azure Storage error bodies.
const azureDeclaration = `<?xml version="1.0" encoding="utf-8"?>`

// renderAzure renders e as Azure Storage does: application/xml, the code
// also in x-ms-error-code, and the request ID and time at the end of the
// message and the request ID in x-ms-request-id.
func renderAzure(e apiError) response {
	code := errorCode(azureCodes, e)
	msg := e.msg + "\nRequestId:" + e.requestID + "\nTime:" + e.time.UTC().Format("2006-01-02T15:04:05.0000000Z")
	resp := xmlResponse(e.status, azureDeclaration, codeMessageErrorBody{Code: code, Message: msg})
	resp.header.Set("x-ms-error-code", code)
	resp.header.Set("x-ms-request-id", e.requestID)
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
