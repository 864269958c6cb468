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
	"fmt"
	"strconv"
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
	// tagAzure is "0x8D" and 13 upper-case hex digits, like Azure
	// Storage's ETags, unique per version.
	tagAzure
	// tagApache is "<size>-<13 digits>" in lowercase hex, like Apache's
	// default FileETag (MTime Size), unique per version.
	tagApache
)

// newOpaque returns the opaque tag of the version with sequence number seq
// and the given body.
func (s *Server) newOpaque(seq uint64, body []byte) string {
	switch s.b.tags {
	case tagMD5:
		sum := md5.Sum(body)
		return hex.EncodeToString(sum[:])
	case tagAzure:
		return fmt.Sprintf("0x8D%013X", s.stamp(seq))
	case tagApache:
		return fmt.Sprintf("%x-%013x", len(body), s.stamp(seq))
	default:
		return opaqueTag(seq, s.boot)
	}
}

// stampMask keeps the 52 bits that 13 hex digits hold.
const stampMask = 1<<52 - 1

// stamp returns a 52-bit number for the version with sequence number seq:
// a random per-process base plus seq, so stamps never repeat within a
// process (seq < 2^52) and almost never across processes. Real servers
// use a modification time here; a counter keeps versions distinct even
// when they are written within the same clock tick.
func (s *Server) stamp(seq uint64) uint64 {
	base, _ := strconv.ParseUint(s.boot, 16, 64) // boot is 16 hex digits
	return (base + seq) & stampMask
}
