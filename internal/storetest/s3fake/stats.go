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

package s3fake

import (
	"bytes"
	"encoding/xml"
	"net/http"
	"slices"
)

// Record is one request the Server answered.
type Record struct {
	// Method is the HTTP method.
	Method string
	// Bucket and Key are from the path ("" when absent).
	Bucket, Key string
	// Status is the HTTP status code of the answer.
	Status int
	// Code is the S3 error code of the answer, "" for a success.
	Code string
	// Auth says how the request was signed.
	Auth AuthKind
	// AccessKeyID is the access key the request claimed, "" when it was
	// unsigned or too malformed to tell; it is set also when the request
	// was refused.
	AccessKeyID string
}

// Stats counts requests by method and status code.
type Stats struct {
	// Requests counts requests by method, then by status code.
	Requests map[string]map[int]int64
	// Total is the number of requests.
	Total int64
}

// Count returns the number of requests with this method and status code.
func (st Stats) Count(method string, code int) int64 {
	return st.Requests[method][code]
}

// CountCode returns the number of requests answered with code, across all
// methods.
func (st Stats) CountCode(code int) int64 {
	var n int64
	for _, byCode := range st.Requests {
		n += byCode[code]
	}
	return n
}

// Requests returns the log of answered requests, oldest first. The log is
// kept in memory and never trimmed: it is meant for tests.
func (s *Server) Requests() []Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

// Stats counts the requests of the log.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Stats{Requests: map[string]map[int]int64{}}
	for _, r := range s.log {
		if st.Requests[r.Method] == nil {
			st.Requests[r.Method] = map[int]int64{}
		}
		st.Requests[r.Method][r.Status]++
		st.Total++
	}
	return st
}

// ResetRequests empties the request log; the stored objects stay.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = nil
}

// recorder remembers the status of an answer and the start of an error
// body, to log the S3 error code that gofakes3 sent.
type recorder struct {
	http.ResponseWriter
	code int
	body []byte
}

const maxRecordedBody = 4 << 10

func (r *recorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	if r.code >= 300 && len(r.body) < maxRecordedBody {
		r.body = append(r.body, b[:min(len(b), maxRecordedBody-len(r.body))]...)
	}
	return r.ResponseWriter.Write(b)
}

func (r *recorder) status() int {
	if r.code == 0 {
		return http.StatusOK
	}
	return r.code
}

// errorCode returns the <Code> of an XML error body, or "".
func (r *recorder) errorCode() string {
	if r.code < 300 || len(r.body) == 0 {
		return ""
	}
	d := xml.NewDecoder(bytes.NewReader(r.body))
	for {
		tok, err := d.Token()
		if err != nil {
			return ""
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "Code" {
			var code string
			if d.DecodeElement(&code, &se) != nil {
				return ""
			}
			return code
		}
	}
}
