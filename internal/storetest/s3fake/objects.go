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
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/johannesboyne/gofakes3"
)

// Errors of the direct store access methods.
var (
	// ErrNoSuchBucket: the bucket does not exist.
	ErrNoSuchBucket = errors.New("s3fake: no such bucket")
	// ErrNoSuchKey: the object does not exist.
	ErrNoSuchKey = errors.New("s3fake: no such key")
)

// CreateBucket creates an empty bucket, without a request.
func (s *Server) CreateBucket(name string) error {
	if err := gofakes3.ValidateBucketName(name); err != nil {
		return fmt.Errorf("s3fake: bucket %q: %w", name, err)
	}
	if err := s.backend.CreateBucket(name); err != nil {
		return fmt.Errorf("s3fake: create bucket %q: %w", name, err)
	}
	return nil
}

// PutObject stores body at bucket/key without a request, as an
// unconditional PUT does (it waits for writes in flight to that key), and
// returns its ETag, quoted as S3 sends it. Tests use it to seed a document.
func (s *Server) PutObject(bucket, key string, body []byte) (etag string, err error) {
	release, _ := s.locks.acquire(bucket+"/"+key, false, nil)
	defer release()
	meta := map[string]string{
		"Content-Type":  "application/octet-stream",
		"Last-Modified": s.cfg.now().UTC().Format(http.TimeFormat),
	}
	if _, err := s.backend.PutObject(bucket, key, meta, bytes.NewReader(body), int64(len(body)), nil); err != nil {
		return "", storeError(bucket, key, err)
	}
	sum := md5.Sum(body)
	return `"` + hex.EncodeToString(sum[:]) + `"`, nil
}

// GetObject returns the stored body of bucket/key and its ETag, quoted,
// without a request.
func (s *Server) GetObject(bucket, key string) (body []byte, etag string, err error) {
	obj, err := s.backend.GetObject(bucket, key, nil)
	if err != nil {
		return nil, "", storeError(bucket, key, err)
	}
	defer func() { _ = obj.Contents.Close() }()
	if obj.IsDeleteMarker {
		return nil, "", fmt.Errorf("%w: %s/%s", ErrNoSuchKey, bucket, key)
	}
	body, err = io.ReadAll(obj.Contents)
	if err != nil {
		return nil, "", fmt.Errorf("s3fake: read %s/%s: %w", bucket, key, err)
	}
	return body, `"` + hex.EncodeToString(obj.Hash) + `"`, nil
}

func storeError(bucket, key string, err error) error {
	switch {
	case gofakes3.HasErrorCode(err, gofakes3.ErrNoSuchBucket):
		return fmt.Errorf("%w: %s", ErrNoSuchBucket, bucket)
	case gofakes3.HasErrorCode(err, gofakes3.ErrNoSuchKey):
		return fmt.Errorf("%w: %s/%s", ErrNoSuchKey, bucket, key)
	}
	return fmt.Errorf("s3fake: %s/%s: %w", bucket, key, err)
}
