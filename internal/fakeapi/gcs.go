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
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"net/http"
	"strconv"
	"strings"
)

// The Google Cloud Storage XML API headers the gcs profile reads and
// writes.
const (
	// HeaderGeneration is the response header that names the generation
	// of the object a GET or PUT answer describes (ProfileGCS).
	HeaderGeneration = "x-goog-generation"
	// HeaderMetageneration is the response header that names the
	// metageneration of that object; the fake never changes metadata, so
	// it is always 1.
	HeaderMetageneration = "x-goog-metageneration"
	// HeaderIfGenerationMatch makes a request conditional on the live
	// generation of the object; 0 means "only if there is none".
	HeaderIfGenerationMatch = "x-goog-if-generation-match"
	// HeaderIfMetagenerationMatch makes a request conditional on the live
	// metageneration of the object.
	HeaderIfMetagenerationMatch = "x-goog-if-metageneration-match"
)

// metageneration is the metageneration of every stored version: the fake
// has no metadata updates, which are what advance it.
const metageneration = 1

// gcsDeclaration is the XML declaration of GCS error bodies.
const gcsDeclaration = `<?xml version='1.0' encoding='UTF-8'?>`

// gcsCodes are the GCS XML API's error codes for the statuses the fake
// answers.
var gcsCodes = map[int]string{
	http.StatusBadRequest:            "InvalidArgument",
	http.StatusUnauthorized:          "AuthenticationRequired",
	http.StatusNotFound:              "NoSuchKey",
	http.StatusMethodNotAllowed:      "MethodNotAllowed",
	http.StatusPreconditionFailed:    "PreconditionFailed",
	http.StatusRequestEntityTooLarge: "EntityTooLarge",
	http.StatusTooManyRequests:       "SlowDown",
	http.StatusInternalServerError:   "InternalError",
	http.StatusServiceUnavailable:    "ServiceUnavailable",
}

// renderGCS renders e as the GCS XML API does: application/xml, Code and
// Message.
func renderGCS(e apiError) response {
	return xmlResponse(e.status, gcsDeclaration, codeMessageErrorBody{Code: errorCode(gcsCodes, e), Message: e.msg})
}

// generationMatch is a parsed x-goog-if-generation-match or
// x-goog-if-metageneration-match header.
type generationMatch struct {
	present bool
	n       int64
}

// parseGenerationMatch parses the header name of h: one non-negative
// decimal integer.
func parseGenerationMatch(h http.Header, name string) (generationMatch, error) {
	vs := h.Values(name)
	switch len(vs) {
	case 0:
		return generationMatch{}, nil
	case 1:
	default:
		return generationMatch{}, fmt.Errorf("%s given %d times", name, len(vs))
	}
	n, err := strconv.ParseInt(strings.Trim(vs[0], " \t"), 10, 64)
	if err != nil || n < 0 {
		return generationMatch{}, fmt.Errorf("%s: %q is not a generation number", name, vs[0])
	}
	return generationMatch{present: true, n: n}, nil
}

// holds reports whether an x-goog-if-generation-match precondition holds
// for the live object: 0 holds when there is none, any other value when
// it is the live generation.
func (g generationMatch) holds(exists bool, generation int64) bool {
	if g.n == 0 {
		return !exists
	}
	return exists && g.n == generation
}

// holdsMeta reports whether an x-goog-if-metageneration-match
// precondition holds: there is a live object and the value is its
// metageneration.
func (g generationMatch) holdsMeta(exists bool) bool {
	return exists && g.n == metageneration
}

// nextGenerationLocked returns a new generation: the clock in microseconds
// since the epoch, as GCS makes them, or one more than the last generation
// handed out when the clock has not moved past it. Generations therefore
// grow with every commit, across paths, deletions and re-creations. s.mu
// must be held.
func (s *Server) nextGenerationLocked() int64 {
	g := s.cfg.now().UnixMicro()
	if g <= s.generation {
		g = s.generation + 1
	}
	s.generation = g
	return g
}

// castagnoli is the CRC32C table of x-goog-hash.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// googHeaders returns the x-goog- headers GCS sends with an object's data
// or the answer to its upload.
func googHeaders(d *document) http.Header {
	var crc [4]byte
	binary.BigEndian.PutUint32(crc[:], crc32.Checksum(d.body, castagnoli))
	sum := md5.Sum(d.body)
	h := http.Header{}
	h.Set(HeaderGeneration, strconv.FormatInt(d.generation, 10))
	h.Set(HeaderMetageneration, strconv.Itoa(metageneration))
	h.Set("x-goog-stored-content-length", strconv.Itoa(len(d.body)))
	h.Set("x-goog-stored-content-encoding", "identity")
	h.Add("x-goog-hash", "crc32c="+base64.StdEncoding.EncodeToString(crc[:]))
	h.Add("x-goog-hash", "md5="+base64.StdEncoding.EncodeToString(sum[:]))
	return h
}

// addHeaders adds every value of src to dst.
func addHeaders(dst, src http.Header) {
	for k, vs := range src {
		dst[k] = append(dst[k], vs...)
	}
}
