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

package s3fake_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"time"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/listkeeper/listkeeper/internal/storetest/s3fake"
)

// put sends a PUT of body to url, signed as S3 wants it, with an optional
// If-Match, and returns the status and the ETag of the answer.
func put(client *http.Client, url string, body []byte, ifMatch string) (int, string) {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPut, url, bytes.NewReader(body))
	if err != nil {
		panic(err)
	}
	if ifMatch != "" {
		req.Header.Set("If-Match", ifMatch) // before signing, so it is signed
	}
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	req.Header.Set("X-Amz-Content-Sha256", hash)
	// S3 signs the path as sent: DisableURIPathEscaping.
	signer := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })
	err = signer.SignHTTP(context.Background(), s3fake.DefaultCredentials(), req, hash, s3fake.Service, s3fake.DefaultRegion, time.Now())
	if err != nil {
		panic(err)
	}
	resp, err := client.Do(req)
	if err != nil {
		panic(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("ETag")
}

// A signed create, a signed update with If-Match, a stale update, and an
// unsigned request.
func Example() {
	s, err := s3fake.New(s3fake.WithBuckets("lists"))
	if err != nil {
		panic(err)
	}
	s.Start()
	defer s.Close()
	url := s.URL() + "/lists/blocklist.json"

	status, etag := put(s.Client(), url, []byte(`["10.0.0.1"]`), "")
	fmt.Println("create:", status, etag)
	status, _ = put(s.Client(), url, []byte(`["10.0.0.1","10.0.0.2"]`), etag)
	fmt.Println("update with the current ETag:", status)
	status, _ = put(s.Client(), url, []byte(`[]`), etag)
	fmt.Println("update with a stale ETag:", status)

	resp, err := s.Client().Get(url)
	if err != nil {
		panic(err)
	}
	_ = resp.Body.Close()
	fmt.Println("unsigned GET:", resp.StatusCode)
	fmt.Println("PUTs answered 412:", s.Stats().Count(http.MethodPut, http.StatusPreconditionFailed))

	// Output:
	// create: 200 "d55c02cbc8fc4b233908c237f576d1b1"
	// update with the current ETag: 200
	// update with a stale ETag: 412
	// unsigned GET: 403
	// PUTs answered 412: 1
}
