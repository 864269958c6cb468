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
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// ETagMode says how a Server presents entity tags in the ETag header.
type ETagMode int

const (
	// ETagStrong serves strong entity tags such as "v3-1f2e3d4c5b6a7988".
	// This is the default and the only mode that allows If-Match writes.
	ETagStrong ETagMode = iota
	// ETagWeak serves the same tags marked weak (W/"v3-..."). Because
	// If-Match uses strong comparison, every If-Match write then fails with
	// 412; only If-Match: *, If-None-Match: * and unconditional writes work.
	ETagWeak
	// ETagNone serves no ETag header at all.
	ETagNone
)

// errMalformedETag reports an If-Match or If-None-Match header that is not
// "*" or a comma-separated list of entity tags.
var errMalformedETag = errors.New("malformed entity tag list")

// newBootID returns 16 random hex digits that make this process's ETags
// distinct from those of every other process, state file or not.
func newBootID() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("read random boot id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// opaqueTag builds the opaque part (without quotes) of the entity tag for
// the version with sequence number seq.
func opaqueTag(seq uint64, boot string) string {
	return fmt.Sprintf("v%d-%s", seq, boot)
}

// quote returns the strong entity tag for an opaque tag.
func quote(opaque string) string { return `"` + opaque + `"` }

// header returns the ETag header value for opaque under mode m, or "" when
// no header is to be sent.
func (m ETagMode) header(opaque string) string {
	switch m {
	case ETagWeak:
		return "W/" + quote(opaque)
	case ETagNone:
		return ""
	default:
		return quote(opaque)
	}
}

// entityTag is one parsed entity tag.
type entityTag struct {
	weak   bool
	opaque string
}

// etagList is a parsed If-Match or If-None-Match header.
type etagList struct {
	present bool // the header was sent
	any     bool // the header was "*"
	tags    []entityTag
}

// parseETagList parses every value of a conditional header. Several header
// lines are treated as one comma-separated list (RFC 9110 section 5.3).
// The list may be empty (an empty value, or only commas and white space):
// the grammar allows it, and it is present but matches nothing.
func parseETagList(values []string) (etagList, error) {
	if len(values) == 0 {
		return etagList{}, nil
	}
	// Only optional white space (SP / HTAB, RFC 9110 section 5.6.3) may
	// surround the value; TrimSpace would also drop Unicode spaces such as
	// NBSP and accept "\u00a0*" as "*".
	s := strings.Trim(strings.Join(values, ","), " \t")
	if s == "*" {
		return etagList{present: true, any: true}, nil
	}
	l := etagList{present: true}
	for {
		s = strings.TrimLeft(s, " \t,")
		if s == "" {
			break
		}
		var t entityTag
		if strings.HasPrefix(s, "W/") {
			t.weak = true
			s = s[2:]
		}
		if !strings.HasPrefix(s, `"`) {
			return etagList{}, errMalformedETag
		}
		end := strings.IndexByte(s[1:], '"')
		if end < 0 {
			return etagList{}, errMalformedETag
		}
		t.opaque = s[1 : 1+end]
		if !validOpaque(t.opaque) {
			return etagList{}, errMalformedETag
		}
		l.tags = append(l.tags, t)
		s = strings.TrimLeft(s[2+end:], " \t")
		if s != "" && s[0] != ',' {
			return etagList{}, errMalformedETag
		}
	}
	return l, nil
}

// validOpaque reports whether s holds only etagc characters (RFC 9110
// section 8.8.3): %x21 / %x23-7E / obs-text.
func validOpaque(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x21 || c == '"' || c == 0x7f {
			return false
		}
	}
	return true
}

// matchStrong reports whether the list matches the current entity tag using
// the strong comparison that If-Match requires: a weak tag on either side
// never matches. exists is false when there is no current document.
func (l etagList) matchStrong(exists bool, opaque string, currentWeak bool) bool {
	if !exists {
		return false
	}
	if l.any {
		return true
	}
	if currentWeak {
		return false
	}
	for _, t := range l.tags {
		if !t.weak && t.opaque == opaque {
			return true
		}
	}
	return false
}

// matchWeak reports whether the list matches the current entity tag using
// the weak comparison that If-None-Match requires.
func (l etagList) matchWeak(exists bool, opaque string) bool {
	if !exists {
		return false
	}
	if l.any {
		return true
	}
	for _, t := range l.tags {
		if t.opaque == opaque {
			return true
		}
	}
	return false
}
