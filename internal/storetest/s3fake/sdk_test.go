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
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// The tests in this file talk to the Server with aws-sdk-go-v2's own S3
// client, which signs with the real clock: the Server uses it too.

func sdkClient(s *Server, creds aws.Credentials, optFns ...func(*s3.Options)) *s3.Client {
	return s3.New(s3.Options{
		Region:           s.Region(),
		BaseEndpoint:     aws.String(s.URL()),
		UsePathStyle:     true,
		Credentials:      credentials.StaticCredentialsProvider{Value: creds},
		HTTPClient:       s.Client(),
		RetryMaxAttempts: 1,
	}, optFns...)
}

// apiError returns the S3 error code and HTTP status of an SDK error.
func apiError(err error) (code string, status int) {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		code = ae.ErrorCode()
	}
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		status = re.HTTPStatusCode()
	}
	return code, status
}

func TestSDKClient(t *testing.T) {
	ctx := context.Background()
	s, _ := startServer(t, WithClock(time.Now))
	client := sdkClient(s, DefaultCredentials())
	v1, v2 := []byte(`["a"]`), []byte(`["a","b"]`)

	put, err := client.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(testBucket), Key: aws.String("doc.json"), Body: bytes.NewReader(v1),
		IfNoneMatch: aws.String("*"), ContentType: aws.String("application/json"),
	})
	if err != nil {
		t.Fatalf("create-only PutObject: %v", err)
	}
	if got := aws.ToString(put.ETag); got != quotedMD5(v1) {
		t.Errorf("ETag = %s, want %s", got, quotedMD5(v1))
	}

	get, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(testBucket), Key: aws.String("doc.json")})
	if err != nil {
		t.Fatalf("GetObject: %v", err)
	}
	body, err := io.ReadAll(get.Body)
	_ = get.Body.Close()
	if err != nil || !bytes.Equal(body, v1) || aws.ToString(get.ETag) != quotedMD5(v1) {
		t.Fatalf("GetObject = %q %s, %v", body, aws.ToString(get.ETag), err)
	}

	tests := []struct {
		name       string
		input      *s3.PutObjectInput
		wantCode   string
		wantStatus int
	}{
		{name: "If-None-Match * on an existing key", input: &s3.PutObjectInput{Key: aws.String("doc.json"), IfNoneMatch: aws.String("*")},
			wantCode: "PreconditionFailed", wantStatus: http.StatusPreconditionFailed},
		{name: "If-Match stale", input: &s3.PutObjectInput{Key: aws.String("doc.json"), IfMatch: aws.String(quotedMD5([]byte("old")))},
			wantCode: "PreconditionFailed", wantStatus: http.StatusPreconditionFailed},
		{name: "If-Match on a missing key", input: &s3.PutObjectInput{Key: aws.String("missing.json"), IfMatch: aws.String(quotedMD5(v1))},
			wantCode: "NoSuchKey", wantStatus: http.StatusNotFound},
		{name: "If-Match current", input: &s3.PutObjectInput{Key: aws.String("doc.json"), IfMatch: get.ETag}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.input.Bucket, tt.input.Body = aws.String(testBucket), bytes.NewReader(v2)
			_, err := client.PutObject(ctx, tt.input)
			if code, status := apiError(err); code != tt.wantCode || status != tt.wantStatus {
				t.Fatalf("PutObject = %v (code %q, status %d), want %q %d", err, code, status, tt.wantCode, tt.wantStatus)
			}
		})
	}
	if got := stored(t, s, "doc.json"); !bytes.Equal(got, v2) {
		t.Errorf("stored %q, want %q", got, v2)
	}
}

func TestSDKClientRefused(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name       string
		creds      aws.Credentials
		region     string
		wantCode   string
		wantStatus int
	}{
		{name: "wrong secret", creds: aws.Credentials{AccessKeyID: TestAccessKeyID, SecretAccessKey: "wrong"},
			wantCode: "SignatureDoesNotMatch", wantStatus: http.StatusForbidden},
		{name: "unknown key", creds: aws.Credentials{AccessKeyID: "UNKNOWNKEY0000000000", SecretAccessKey: "x"},
			wantCode: "InvalidAccessKeyId", wantStatus: http.StatusForbidden},
		{name: "wrong region", creds: DefaultCredentials(), region: "eu-west-1",
			wantCode: "AuthorizationHeaderMalformed", wantStatus: http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := startServer(t, WithClock(time.Now))
			client := sdkClient(s, tt.creds, func(o *s3.Options) {
				if tt.region != "" {
					o.Region = tt.region
				}
			})
			_, err := client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(testBucket), Key: aws.String("doc.json"), Body: strings.NewReader("x")})
			if code, status := apiError(err); code != tt.wantCode || status != tt.wantStatus {
				t.Fatalf("PutObject = %v (code %q, status %d), want %q %d", err, code, status, tt.wantCode, tt.wantStatus)
			}
			if stored(t, s, "doc.json") != nil {
				t.Error("a refused PutObject stored the object")
			}
		})
	}
}

// TestSDKPresignClient: a URL from the SDK's presign client works with a
// plain HTTP client.
func TestSDKPresignClient(t *testing.T) {
	ctx := context.Background()
	s, _ := startServer(t, WithClock(time.Now))
	seed(t, s, "doc.json", []byte("v1"))
	presigner := s3.NewPresignClient(sdkClient(s, DefaultCredentials()))
	req, err := presigner.PresignGetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(testBucket), Key: aws.String("doc.json")},
		s3.WithPresignExpires(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if a := do(t, s.Client(), newRequest(t, req.Method, req.URL, nil, nil)); a.status != http.StatusOK || string(a.body) != "v1" {
		t.Fatalf("GET presigned URL = %d %q %s", a.status, a.code, a.body)
	}
}

// TestSDKClientOverTLS pins what the SDK's S3 client sends over HTTPS: by
// default a PutObject body goes aws-chunked with a trailing checksum
// (x-amz-content-sha256: STREAMING-UNSIGNED-PAYLOAD-TRAILER), which this
// fake does not decode and refuses with 501; with checksums only when
// required, the payload goes UNSIGNED-PAYLOAD and is accepted.
func TestSDKClientOverTLS(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		checksum aws.RequestChecksumCalculation
		wantCode string
	}{
		{name: "default checksums", checksum: aws.RequestChecksumCalculationWhenSupported, wantCode: "NotImplemented"},
		{name: "checksums when required", checksum: aws.RequestChecksumCalculationWhenRequired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(WithBuckets(testBucket))
			if err != nil {
				t.Fatal(err)
			}
			s.StartTLS()
			t.Cleanup(s.Close)
			if !strings.HasPrefix(s.URL(), "https://127.0.0.1:") || s.Certificate() == nil {
				t.Fatalf("URL = %s, certificate %v: want https on 127.0.0.1 with a certificate", s.URL(), s.Certificate())
			}
			client := sdkClient(s, DefaultCredentials(), func(o *s3.Options) { o.RequestChecksumCalculation = tt.checksum })
			_, err = client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(testBucket), Key: aws.String("doc.json"), Body: strings.NewReader("v1")})
			if code, _ := apiError(err); code != tt.wantCode {
				t.Fatalf("PutObject = %v, want code %q", err, tt.wantCode)
			}
		})
	}
}
