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
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// The object stores speak the HTTP list contract with a dialect each
// (etagclient.Dialect): S3 (s3.go), Google Cloud Storage (gcs.go) and Azure
// Blob Storage (azureblob.go). What they share is here: an XML error body
// with a <Code>, and the rule that only a code the store documents may
// reach a message.

// maxErrorBody bounds how much of an error body is read for its code. The
// body is never logged: S3's can hold the request's session token.
const maxErrorBody = 16 << 10

// xmlErrorCode returns the <Code> of an XML error body (S3, GCS's XML API
// and Azure share the shape), or "" when the body is not XML or has none.
func xmlErrorCode(resp *http.Response) string {
	ct := strings.ToLower(resp.Header.Get("Content-Type"))
	if !strings.Contains(ct, "xml") {
		return ""
	}
	var e struct {
		Code string `xml:"Code"`
	}
	if err := xml.NewDecoder(io.LimitReader(resp.Body, maxErrorBody)).Decode(&e); err != nil {
		return ""
	}
	return strings.TrimSpace(e.Code)
}

// codes is a store's documented error codes: those that classify an error
// (by class) and those a message may only quote (by quoted).
type codes struct {
	class  map[string]error
	quoted map[string]struct{}
}

// known returns code when the store documents it, else "": a server
// chooses this text, so nothing else of it reaches a message.
func (c codes) known(code string) string {
	if _, ok := c.class[code]; ok {
		return code
	}
	if _, ok := c.quoted[code]; ok {
		return code
	}
	return ""
}

// classOf returns the class a code decides, or nil.
func (c codes) classOf(code string) error { return c.class[code] }

// missing reports a code that the store files under ErrNotFound: its
// bucket or container, not only the object, is missing.
func (c codes) missing(code string) bool { return errors.Is(c.class[code], etagclient.ErrNotFound) }

func set(names ...string) map[string]struct{} {
	m := make(map[string]struct{}, len(names))
	for _, n := range names {
		m[n] = struct{}{}
	}
	return m
}
