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
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// ParseETag returns the strong entity-tag in h, exactly as sent (quotes
// included), ready for an If-Match header. A missing, weak or malformed ETag
// is an error wrapping ErrUnsafeServer: with it, no conditional write is safe.
func ParseETag(h http.Header) (string, error) {
	vals := h.Values("ETag")
	if len(vals) == 0 || strings.TrimSpace(vals[0]) == "" {
		return "", ErrMissingETag
	}
	if len(vals) > 1 {
		return "", fmt.Errorf("%w: %d ETag headers", ErrMalformedETag, len(vals))
	}
	return ValidateETag(strings.TrimSpace(vals[0]))
}

// ValidateETag checks that tag is a strong RFC 9110 entity-tag: a quoted
// string of visible characters, without the W/ prefix.
func ValidateETag(tag string) (string, error) {
	if strings.HasPrefix(tag, "W/") {
		return "", &weakETagError{tag: tag}
	}
	if len(tag) < 2 || tag[0] != '"' || tag[len(tag)-1] != '"' {
		return "", fmt.Errorf("%w: not a quoted string", ErrMalformedETag)
	}
	for i := 1; i < len(tag)-1; i++ {
		// etagc = %x21 / %x23-7E / obs-text
		if b := tag[i]; b < 0x21 || b == '"' || b == 0x7f {
			return "", fmt.Errorf("%w: invalid character at %d", ErrMalformedETag, i)
		}
	}
	return tag, nil
}

// weakETagError is ErrWeakETag with the tag that was sent, so that a reader
// waiting for a strong one can tell whether the document moved meanwhile.
type weakETagError struct{ tag string }

func (e *weakETagError) Error() string { return ErrWeakETag.Error() }

func (e *weakETagError) Unwrap() error { return ErrWeakETag }

// weakTag returns the weak tag err reports, if it is a weak-ETag error.
func weakTag(err error) (string, bool) {
	var w *weakETagError
	if errors.As(err, &w) {
		return w.tag, true
	}
	return "", false
}
