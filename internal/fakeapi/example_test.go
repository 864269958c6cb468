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

package fakeapi_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// Example shows the optimistic read-modify-write cycle against the fake
// server, and a writer that loses the race.
func Example() {
	s, err := fakeapi.New(fakeapi.WithHistory(true))
	if err != nil {
		panic(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	if _, err := s.Set("/lists/a", []byte(`["a"]`)); err != nil {
		panic(err)
	}

	send := func(method, body, ifMatch string) *http.Response {
		req, _ := http.NewRequest(method, ts.URL+"/lists/a", strings.NewReader(body))
		if ifMatch != "" {
			req.Header.Set("If-Match", ifMatch)
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			panic(err)
		}
		return resp
	}

	get := send(http.MethodGet, "", "")
	body, _ := io.ReadAll(get.Body)
	_ = get.Body.Close()
	fmt.Println("GET:", get.StatusCode, string(body))
	etag := get.Header.Get("ETag")

	put := send(http.MethodPut, `["a","b"]`, etag)
	_ = put.Body.Close()
	fmt.Println("PUT If-Match current:", put.StatusCode)

	stale := send(http.MethodPut, `["a","c"]`, etag)
	_ = stale.Body.Close()
	fmt.Println("PUT If-Match stale:", stale.StatusCode)

	blind := send(http.MethodPut, `[]`, "")
	_ = blind.Body.Close()
	fmt.Println("PUT without If-Match:", blind.StatusCode)

	stored, _, _ := s.Get("/lists/a")
	st := s.Stats()
	fmt.Println("stored:", string(stored))
	fmt.Println("commits:", st.Commits, "versions:", len(s.History("/lists/a")), "412s:", st.Count(http.MethodPut, http.StatusPreconditionFailed))
	// Output:
	// GET: 200 ["a"]
	// PUT If-Match current: 200
	// PUT If-Match stale: 412
	// PUT without If-Match: 428
	// stored: ["a","b"]
	// commits: 1 versions: 2 412s: 1
}

// ExampleWithProfile sends the same requests to a server of each profile:
// a create over an existing document, a write with If-Match to a missing
// one, a write with the current tag, and a write without any precondition.
// gcs ignores If-Match and If-None-Match on writes, so all four overwrite
// (see ExampleWithProfile_gcs for its own precondition).
func ExampleWithProfile() {
	for _, p := range fakeapi.Profiles() {
		// WithWeakWindow(0) makes webdav's tags strong at once; the other
		// profiles ignore it.
		s, err := fakeapi.New(fakeapi.WithProfile(p), fakeapi.WithWeakWindow(0))
		if err != nil {
			panic(err)
		}
		ts := httptest.NewServer(s)
		etag, err := s.Set("/lists/a", []byte(`["a"]`))
		if err != nil {
			panic(err)
		}
		put := func(path, header, value string) int {
			req, _ := http.NewRequest(http.MethodPut, ts.URL+path, strings.NewReader(`["a","b"]`))
			req.Header.Set("x-ms-blob-type", "BlockBlob") // Azure wants it, the others ignore it
			req.Header.Set("Authorization", "Bearer any") // GCS never writes anonymously
			if header != "" {
				req.Header.Set(header, value)
			}
			resp, err := ts.Client().Do(req)
			if err != nil {
				panic(err)
			}
			_ = resp.Body.Close()
			return resp.StatusCode
		}
		fmt.Printf("%-10s create over existing %d, If-Match on missing %d, write %d, blind write %d\n", p,
			put("/lists/a", "If-None-Match", "*"),
			put("/lists/missing", "If-Match", etag),
			put("/lists/a", "If-Match", etag),
			put("/lists/a", "", ""))
		ts.Close()
	}
	// Output:
	// strict     create over existing 412, If-Match on missing 412, write 200, blind write 428
	// s3         create over existing 412, If-Match on missing 404, write 200, blind write 200
	// azure-blob create over existing 409, If-Match on missing 412, write 201, blind write 201
	// webdav     create over existing 412, If-Match on missing 412, write 204, blind write 204
	// quirky     create over existing 412, If-Match on missing 412, write 200, blind write 428
	// gcs        create over existing 200, If-Match on missing 200, write 200, blind write 200
}

// ExampleWithProfile_gcs shows the read-modify-write cycle of Google Cloud
// Storage: the read names the generation, the write sends it back in
// x-goog-if-generation-match, 0 creates only what does not exist, and a
// write without a bearer token is refused.
func ExampleWithProfile_gcs() {
	s, err := fakeapi.New(fakeapi.WithProfile(fakeapi.ProfileGCS))
	if err != nil {
		panic(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	if _, err := s.Set("/lists/a", []byte(`["a"]`)); err != nil {
		panic(err)
	}
	// send returns the status and the x-goog-generation of the answer.
	send := func(method, path, body, token, generation string) (int, string) {
		req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if generation != "" {
			req.Header.Set(fakeapi.HeaderIfGenerationMatch, generation)
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			panic(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode, resp.Header.Get(fakeapi.HeaderGeneration)
	}

	code, gen := send(http.MethodGet, "/lists/a", "", "", "")
	fmt.Println("GET:", code, "with a generation:", gen != "")
	code, _ = send(http.MethodPut, "/lists/a", `["a","b"]`, "", gen)
	fmt.Println("PUT anonymous:", code)
	code, next := send(http.MethodPut, "/lists/a", `["a","b"]`, "t", gen)
	fmt.Println("PUT generation current:", code, "new generation:", next != gen)
	code, _ = send(http.MethodPut, "/lists/a", `["a","c"]`, "t", gen)
	fmt.Println("PUT generation stale:", code)
	code, _ = send(http.MethodPut, "/lists/a", `[]`, "t", "0")
	fmt.Println("PUT generation 0, exists:", code)
	code, _ = send(http.MethodPut, "/lists/b", `[]`, "t", "0")
	fmt.Println("PUT generation 0, missing:", code)
	stored, _, _ := s.Get("/lists/a")
	fmt.Println("stored:", string(stored))
	// Output:
	// GET: 200 with a generation: true
	// PUT anonymous: 401
	// PUT generation current: 200 new generation: true
	// PUT generation stale: 412
	// PUT generation 0, exists: 412
	// PUT generation 0, missing: 200
	// stored: ["a","b"]
}
