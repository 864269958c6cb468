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

package etagclient

import (
	"net/http"
	"slices"
)

// Dialect is what a store that speaks the HTTP list contract does its own
// way: object stores answer GET and PUT like any server, but some make
// writes conditional on another validator than the ETag, declare lost races
// with another status than 412, and name their errors in a body of their
// own. Each store's dialect is kept in one place outside this package
// (internal/stores), so the engine and the HTTP backend know no vendor.
// The zero Dialect is the plain contract: If-Match on the strong ETag,
// If-None-Match: * to create, 412 for a lost race, and the status code
// alone to classify an error.
type Dialect struct {
	// Name names the store in logs ("" for the plain contract).
	Name string

	// VersionHeader, when not "", names the response header that carries
	// the version writes are conditional on instead of the ETag: a
	// decimal integer, such as an object generation. IfVersionHeader is
	// then the request header that carries it on a write, or "0" to
	// create. The ETag only revalidates reads (If-None-Match), and may be
	// missing or weak.
	VersionHeader, IfVersionHeader string

	// ConflictStatuses are statuses that, besides 412, mean a conditional
	// write lost to another writer, such as a 409 for two conditional
	// writes that raced.
	ConflictStatuses []int

	// ErrorCode returns the store's error code of an answer that is not a
	// success (from its body or a header), or "" when it carries none the
	// store documents. It may read up to 16 KiB of the body, and must
	// return only codes from a fixed list: a message may quote it.
	ErrorCode func(resp *http.Response) string

	// CodeClass returns the error class of a code that ErrorCode returned,
	// when the code and not the status decides it (an expired token sent
	// as 400, a missing bucket as 404); nil leaves it to the status.
	CodeClass func(code string) error

	// ContainerMissing reports whether a 404's code says that the place the
	// document would live in (a bucket, a container) is missing, not only
	// the document: such a document cannot be created.
	ContainerMissing func(code string) bool
}

// WithDialect makes the HTTP backend speak d (see Dialect). Default: the
// plain contract.
func WithDialect(d Dialect) Option { return func(o *config) { o.dialect = d } }

// byVersionHeader reports whether writes are conditional on the dialect's
// version header instead of the ETag.
func (d Dialect) byVersionHeader() bool { return d.VersionHeader != "" }

// code returns the store's error code of resp, or "".
func (d Dialect) code(resp *http.Response) string {
	if d.ErrorCode == nil {
		return ""
	}
	return d.ErrorCode(resp)
}

// class returns the error class of code, or nil.
func (d Dialect) class(code string) error {
	if d.CodeClass == nil || code == "" {
		return nil
	}
	return d.CodeClass(code)
}

// containerMissing reports whether code says the document's container is
// missing.
func (d Dialect) containerMissing(code string) bool {
	return d.ContainerMissing != nil && code != "" && d.ContainerMissing(code)
}

// isConflict reports whether the server declared code a lost race.
func (b *httpBackend) isConflict(code int) bool {
	return slices.Contains(b.cfg.dialect.ConflictStatuses, code)
}
