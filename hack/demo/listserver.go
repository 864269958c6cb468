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

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// The sample ExternalList's server, path and token (config/samples).
const (
	samplePort  = 8090
	sampleHost  = "127.0.0.1"
	listPath    = "/lists/allow"
	sampleToken = "demo-token"
	// listLatency is the latency the server adds to every list request.
	listLatency = "1ms"
	// docOwner is a field outside the items array that every write must
	// preserve.
	docOwner = "demo"
)

// listServer is the fake list server process and a client for it.
type listServer struct {
	proc  *proc
	base  string // http://127.0.0.1:<port>
	token string
	http  *http.Client

	// reads counts the list requests the demo itself sends, so that they
	// can be told apart from the operator's in the server's stats.
	reads atomic.Int64
}

// listDoc is the list document: the items and the field beside them.
type listDoc struct {
	Items []string `json:"items"`
	Owner string   `json:"owner"`
}

// startListServer starts bin (cmd/fakeapi) on the samples' port when it is
// free, else on a free port, seeded with a document of the bystander IDs.
func startListServer(ctx context.Context, sup *supervisor, bin string, bystanders []string) (*listServer, error) {
	port := samplePort
	if !portFree(port) {
		p, err := freePort()
		if err != nil {
			return nil, err
		}
		port = p
	}
	seed, err := json.Marshal(listDoc{Items: bystanders, Owner: docOwner})
	if err != nil {
		return nil, err
	}
	addr := sampleHost + ":" + strconv.Itoa(port)
	p, err := sup.start("fakeapi", bin, "--addr", addr, "--token", sampleToken, "--latency", listLatency,
		"--history", "--seed-doc", listPath+"="+string(seed))
	if err != nil {
		return nil, err
	}
	s := &listServer{proc: p, base: "http://" + addr, token: sampleToken, http: &http.Client{Timeout: 10 * time.Second}}
	if err := waitReady(ctx, p, s.base+fakeapi.AdminPrefix+"healthz", 30*time.Second); err != nil {
		return nil, err
	}
	return s, nil
}

// listURL is the URL of the demo's list document.
func (s *listServer) listURL() string { return s.base + listPath }

// doc reads the list document.
func (s *listServer) doc(ctx context.Context) (listDoc, error) {
	s.reads.Add(1)
	var d listDoc
	err := s.getJSON(ctx, listPath, &d)
	return d, err
}

// stats reads the server's request counters.
func (s *listServer) stats(ctx context.Context) (fakeapi.Stats, error) {
	var st fakeapi.Stats
	err := s.getJSON(ctx, fakeapi.AdminPrefix+"stats", &st)
	return st, err
}

// history returns every committed version of the list document, raw.
func (s *listServer) history(ctx context.Context) ([]byte, error) {
	body, err := s.get(ctx, fakeapi.AdminPrefix+"history?path="+listPath)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	return io.ReadAll(body)
}

func (s *listServer) getJSON(ctx context.Context, path string, v any) error {
	body, err := s.get(ctx, path)
	if err != nil {
		return err
	}
	defer body.Close()
	if err := json.NewDecoder(body).Decode(v); err != nil {
		return fmt.Errorf("decode %s: %w", path, err)
	}
	return nil
}

// get does an authorized GET and returns the body of a 200.
func (s *listServer) get(ctx context.Context, path string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := s.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		_ = resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return resp.Body, nil
}
