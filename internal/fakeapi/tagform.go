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
	"crypto/md5"
	"encoding/hex"
)

// tagForm is the form of the opaque part (without quotes) of a new
// version's entity tag.
type tagForm int

const (
	// tagSequence is "v<seq>-<boot>": never the same twice, in any
	// process.
	tagSequence tagForm = iota
	// tagMD5 is the lowercase hex MD5 of the body, as S3 makes it for a
	// single-part upload: equal content, equal tags.
	tagMD5
)

// newOpaque returns the opaque tag of the version with sequence number seq
// and the given body.
func (s *Server) newOpaque(seq uint64, body []byte) string {
	switch s.b.tags {
	case tagMD5:
		sum := md5.Sum(body)
		return hex.EncodeToString(sum[:])
	default:
		return opaqueTag(seq, s.boot)
	}
}
