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
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/google/go-cmp/cmp"
)

// TestRequestLog: every answered request is logged with its status, S3
// error code (the wrapper's or gofakes3's), key and how it was signed, and
// Stats counts them by method and status.
func TestRequestLog(t *testing.T) {
	s, _ := startServer(t)
	seed(t, s, "doc", []byte("v1"))
	url := objectURL(s, "doc")
	requests := []*http.Request{
		signedRequest(t, http.MethodGet, url, nil, nil, signing{}),
		signedRequest(t, http.MethodPut, url, []byte("v2"), nil, signing{}),
		signedRequest(t, http.MethodPut, url, []byte("v3"), http.Header{"If-Match": {quotedMD5([]byte("v1"))}}, signing{}),
		signedRequest(t, http.MethodGet, objectURL(s, "missing"), nil, nil, signing{}),
		newRequest(t, http.MethodGet, url, nil, nil),
		signedRequest(t, http.MethodGet, url, nil, nil, signing{creds: aws.Credentials{AccessKeyID: "UNKNOWNKEY0000000000", SecretAccessKey: "x"}}),
	}
	for _, req := range requests {
		do(t, s.Client(), req)
	}
	want := []Record{
		{Method: "GET", Bucket: testBucket, Key: "doc", Status: 200, Auth: AuthHeader, AccessKeyID: TestAccessKeyID},
		{Method: "PUT", Bucket: testBucket, Key: "doc", Status: 200, Auth: AuthHeader, AccessKeyID: TestAccessKeyID},
		{Method: "PUT", Bucket: testBucket, Key: "doc", Status: 412, Code: "PreconditionFailed", Auth: AuthHeader, AccessKeyID: TestAccessKeyID},
		{Method: "GET", Bucket: testBucket, Key: "missing", Status: 404, Code: "NoSuchKey", Auth: AuthHeader, AccessKeyID: TestAccessKeyID},
		{Method: "GET", Bucket: testBucket, Key: "doc", Status: 403, Code: "AccessDenied", Auth: AuthNone},
		{Method: "GET", Bucket: testBucket, Key: "doc", Status: 403, Code: "InvalidAccessKeyId", Auth: AuthHeader, AccessKeyID: "UNKNOWNKEY0000000000"},
	}
	if diff := cmp.Diff(want, s.Requests()); diff != "" {
		t.Errorf("request log (-want +got):\n%s", diff)
	}
	st := s.Stats()
	for _, c := range []struct {
		method string
		code   int
		want   int64
	}{{"GET", 200, 1}, {"PUT", 200, 1}, {"PUT", 412, 1}, {"GET", 403, 2}, {"GET", 404, 1}} {
		if got := st.Count(c.method, c.code); got != c.want {
			t.Errorf("Count(%s, %d) = %d, want %d", c.method, c.code, got, c.want)
		}
	}
	if st.Total != int64(len(requests)) || st.CountCode(403) != 2 {
		t.Errorf("Total = %d, CountCode(403) = %d", st.Total, st.CountCode(403))
	}
	s.ResetRequests()
	if n := len(s.Requests()); n != 0 || s.Stats().Total != 0 {
		t.Errorf("after ResetRequests: %d records", n)
	}
}

// TestFaultHook: a hook answers instead of the store, after
// authentication, and can be changed at run time.
func TestFaultHook(t *testing.T) {
	faults := []*Error{SlowDown(), ConditionalRequestConflict(), InternalError()}
	s, _ := startServer(t, WithFaultHook(func(r *http.Request) *Error {
		if r.Method != http.MethodPut {
			return nil
		}
		return ConditionalRequestConflict()
	}))
	seed(t, s, "doc", []byte("v1"))
	url := objectURL(s, "doc")
	if a := do(t, s.Client(), signedRequest(t, http.MethodPut, url, []byte("v2"), nil, signing{})); a.status != http.StatusConflict || a.code != "ConditionalRequestConflict" {
		t.Fatalf("PUT = %d %q, want the hook's 409", a.status, a.code)
	}
	if a := do(t, s.Client(), newRequest(t, http.MethodPut, url, []byte("v2"), nil)); a.code != "AccessDenied" {
		t.Fatalf("unsigned PUT = %d %q, want authentication before the hook", a.status, a.code)
	}
	for _, f := range faults {
		t.Run(f.Code, func(t *testing.T) {
			s.SetFaultHook(func(*http.Request) *Error { return f })
			a := do(t, s.Client(), signedRequest(t, http.MethodGet, url, nil, nil, signing{}))
			if a.status != f.Status || a.code != f.Code || a.header.Get("Content-Type") != "application/xml" || a.err.RequestID == "" {
				t.Fatalf("GET = %d %q %v, want %d %q as S3 XML with a RequestId", a.status, a.code, a.header, f.Status, f.Code)
			}
		})
	}
	s.SetFaultHook(nil)
	if a := do(t, s.Client(), signedRequest(t, http.MethodGet, url, nil, nil, signing{})); a.status != http.StatusOK || string(a.body) != "v1" {
		t.Fatalf("GET without hook = %d %q, want 200 v1 (faults stored nothing)", a.status, a.body)
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opt  Option
		want string
	}{
		{name: "empty region", opt: WithRegion(""), want: "region"},
		{name: "nil clock", opt: WithClock(nil), want: "clock"},
		{name: "zero body limit", opt: WithMaxBodyBytes(0), want: "max body bytes"},
		{name: "no secret", opt: WithCredentials(aws.Credentials{AccessKeyID: "K"}), want: "must not be empty"},
		{name: "duplicate key", opt: WithCredentials(DefaultCredentials(), DefaultCredentials()), want: "duplicate"},
		{name: "bad bucket name", opt: WithBuckets("Not_A_Bucket"), want: "bucket"},
		{name: "bucket twice", opt: WithBuckets("lists", "lists"), want: "bucket"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(tt.opt); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New = %v, want an error about %q", err, tt.want)
			}
		})
	}
}

func TestMaxBodyBytes(t *testing.T) {
	s, _ := startServer(t, WithMaxBodyBytes(4))
	a := do(t, s.Client(), signedRequest(t, http.MethodPut, objectURL(s, "doc"), []byte("12345"), nil, signing{}))
	if a.status != http.StatusBadRequest || a.code != "EntityTooLarge" {
		t.Fatalf("PUT of 5 bytes = %d %q, want 400 EntityTooLarge", a.status, a.code)
	}
	if stored(t, s, "doc") != nil {
		t.Error("a refused PUT stored the object")
	}
}

func TestStartAndClose(t *testing.T) {
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	if s.URL() != "" {
		t.Errorf("URL before Start = %q", s.URL())
	}
	s.Close() // without Start: nothing to do
	s.Start()
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Errorf("URL = %q, want http on 127.0.0.1", s.URL())
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("a second Start did not panic")
			}
		}()
		s.Start()
	}()
	s.Close()
	s.Close()
}
