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
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"

	"github.com/listkeeper/listkeeper/internal/storetest/s3fake"
	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

// The values of --store.
const (
	storeFakeAPI = "fakeapi"
	storeS3      = "s3"
	storeWAFv2   = "wafv2"
)

// storeKinds are the values --store accepts, the default first.
var storeKinds = []string{storeFakeAPI, storeS3, storeWAFv2}

// The S3 store's bucket and key: the list is at <URL>/lists/allow.json.
const (
	s3Bucket = "lists"
	s3Key    = "allow.json"
	// awsSecret is the Secret with the AWS credentials in s3 and wafv2
	// mode.
	awsSecret = "allow-list-aws"
)

// listStore is where the demo's list lives: the fake list server process
// (--store=fakeapi), an in-process S3 (--store=s3) or an in-process AWS
// WAFv2 IP-set API (--store=wafv2). The demo reads the list document and
// the request counts through it, for the progress, the lost-update check
// and the summary.
type listStore interface {
	// kind is the --store value.
	kind() string
	// url is where the list is: the ExternalList's spec.url, or, for a
	// list that is not a document at a URL (an IP set), the location the
	// operator shows for it.
	url() string
	// describe says in one line what serves the list, for the log.
	describe() string
	// document reads the list document.
	document(ctx context.Context) (harness.Document, error)
	// stats returns the requests the store answered so far, without the
	// demo's own reads.
	stats(ctx context.Context) (storeStats, error)
	// lostRace says how the store answers a write that lost a race.
	lostRace() lostRace
	// outsideWriter returns a writer outside listkeeper that edits the
	// list beside the operator with ids, and whose requests stats leaves
	// out from then on; nil when the store has none.
	outsideWriter(ids []string) *harness.OutsideWriter
	// hint says how to look at the list by hand (--keep).
	hint() string
	// evidence adds the store's evidence to ev, or writes it into dir.
	evidence(ctx context.Context, ev *harness.Evidence, dir string) error
	// close stops the store.
	close()
}

// storeStats counts a store's requests by method and status code, and,
// when the store can tell its clients apart, by client and status code.
type storeStats struct {
	// Requests counts by method, or by operation for an API that is not
	// REST (WAFv2's GetIPSet, UpdateIPSet), then by status code.
	Requests map[string]map[int]int64 `json:"requests"`
	Total    int64                    `json:"total"`
	// Conflicts counts the answers that told a writer it lost a race
	// (lostRace), as the store tells them apart: by status code where the
	// code alone says so, by error code where it does not (WAF answers
	// every client error 400).
	Conflicts int64 `json:"conflicts"`
	// Agents counts by client (fakeapi.Stats.Agents); nil when the store
	// cannot tell.
	Agents map[string]map[int]int64 `json:"agents,omitempty"`
	// Codes counts error answers by the store's own error code
	// (wafv2fake.Stats.Codes); nil when the status code says it all.
	Codes map[string]int64 `json:"codes,omitempty"`
}

// lostRace says how a store answers a write that lost a race to another
// writer, for the tables; storeStats.Conflicts counts those answers.
type lostRace struct {
	// label heads the lost-race column: "412s", "412/409s". "" means
	// "412s".
	label string
	// rows are the rows of the store table (method or operation, and
	// status) where those answers are counted; the table always shows
	// them, at 0 too.
	rows []requestRow
}

// requestRow is a row of the store table: requests of one method (or
// operation) answered with one status code.
type requestRow struct {
	method string
	code   int
}

// heading is the label of the lost-race column.
func (r lostRace) heading() string {
	if r.label == "" {
		return "412s"
	}
	return r.label
}

// known reports whether the counts were read at all.
func (st storeStats) known() bool { return st.Requests != nil }

// count returns the requests answered with one of codes, across methods.
func (st storeStats) count(codes ...int) int64 {
	var n int64
	for _, byCode := range st.Requests {
		for _, c := range codes {
			n += byCode[c]
		}
	}
	return n
}

// sub returns st minus base, per method (and client) and code.
func (st storeStats) sub(base storeStats) storeStats {
	out := storeStats{Requests: subCounts(st.Requests, base.Requests), Total: st.Total - base.Total,
		Conflicts: st.Conflicts - base.Conflicts}
	if st.Agents != nil {
		out.Agents = subCounts(st.Agents, base.Agents)
	}
	if st.Codes != nil {
		out.Codes = map[string]int64{}
		for code, n := range st.Codes {
			if d := n - base.Codes[code]; d != 0 {
				out.Codes[code] = d
			}
		}
	}
	return out
}

// subCounts returns a minus b, leaving out the counts that come to 0.
func subCounts(a, b map[string]map[int]int64) map[string]map[int]int64 {
	out := map[string]map[int]int64{}
	for k, byCode := range a {
		for c, n := range byCode {
			if d := n - b[k][c]; d != 0 {
				if out[k] == nil {
					out[k] = map[int]int64{}
				}
				out[k][c] = d
			}
		}
	}
	return out
}

// fakeAPIStore is the bundled fake list server, bin/fakeapi.
type fakeAPIStore struct {
	srv     *harness.ListServer
	outside *harness.OutsideWriter // nil until outsideWriter
}

func (s *fakeAPIStore) kind() string { return storeFakeAPI }
func (s *fakeAPIStore) url() string  { return s.srv.URL(listPath) }
func (s *fakeAPIStore) describe() string {
	return fmt.Sprintf("fake list server on %s (token %s, latency %s)", s.srv.Base(), sampleToken, listLatency)
}

func (s *fakeAPIStore) document(ctx context.Context) (harness.Document, error) {
	return s.srv.Document(ctx, listPath)
}

func (s *fakeAPIStore) stats(ctx context.Context) (storeStats, error) {
	st, err := s.srv.Stats(ctx)
	if err != nil {
		return storeStats{}, err
	}
	out := storeStats{Requests: cloneCounts(st.Requests), Total: st.Total - s.srv.Reads(), Agents: cloneCounts(st.Agents)}
	// Reads counts the demo's GETs whatever their status; they are nearly
	// all 200s, so they come off the GET 200s for the per-code view.
	if get := out.Requests["GET"]; get != nil {
		out.Requests["GET"][200] = max(0, out.Requests["GET"][200]-s.srv.Reads())
	}
	// The outside writer's requests are not the operator's. It counts
	// them itself when their answer arrived, a moment after the server
	// did; a phase stops it before its last read, so the phase's figures
	// are exact.
	if s.outside != nil {
		c := s.outside.Counts()
		out.Total -= c.Total
		for m, byCode := range c.Requests {
			for code, n := range byCode {
				if have, ok := out.Requests[m][code]; ok {
					out.Requests[m][code] = max(0, have-n)
				}
			}
		}
	}
	out.Conflicts = out.count(http.StatusPreconditionFailed)
	return out, nil
}

func (s *fakeAPIStore) outsideWriter(ids []string) *harness.OutsideWriter {
	s.outside = s.srv.OutsideWriter(listPath, ids)
	return s.outside
}

// lostRace: a write with a stale If-Match gets 412.
func (s *fakeAPIStore) lostRace() lostRace {
	return lostRace{label: "412s", rows: []requestRow{{http.MethodPut, http.StatusPreconditionFailed}}}
}

func (s *fakeAPIStore) hint() string {
	return fmt.Sprintf("curl -H 'Authorization: Bearer %s' %s", sampleToken, s.url())
}

func (s *fakeAPIStore) evidence(_ context.Context, ev *harness.Evidence, _ string) error {
	ev.Lists = append(ev.Lists, s.srv)
	ev.Paths = []string{listPath}
	return nil
}

func (s *fakeAPIStore) close() { s.srv.Stop() }

// s3Store is an in-process S3 (internal/storetest/s3fake) that checks the
// managers' SigV4 signatures. The demo reads the object without a request,
// so the request counts are the managers' alone.
type s3Store struct {
	srv *s3fake.Server
}

// startS3Store starts the S3 on a free port of 127.0.0.1 with the bucket
// and the object seeded with body.
func startS3Store(body []byte) (*s3Store, error) {
	srv, err := s3fake.New(s3fake.WithBuckets(s3Bucket))
	if err != nil {
		return nil, err
	}
	if _, err := srv.PutObject(s3Bucket, s3Key, body); err != nil {
		return nil, err
	}
	srv.Start()
	return &s3Store{srv: srv}, nil
}

func (s *s3Store) kind() string { return storeS3 }
func (s *s3Store) url() string  { return s.srv.URL() + "/" + s3Bucket + "/" + s3Key }
func (s *s3Store) describe() string {
	return fmt.Sprintf("in-process S3 (gofakes3 behind a SigV4 verifier) on %s, region %s", s.srv.URL(), s.srv.Region())
}

func (s *s3Store) document(context.Context) (harness.Document, error) {
	var d harness.Document
	body, _, err := s.srv.GetObject(s3Bucket, s3Key)
	if err != nil {
		return d, err
	}
	if err := json.Unmarshal(body, &d); err != nil {
		return d, fmt.Errorf("s3://%s/%s: %w", s3Bucket, s3Key, err)
	}
	return d, nil
}

func (s *s3Store) stats(context.Context) (storeStats, error) {
	st := s.srv.Stats()
	out := storeStats{Requests: st.Requests, Total: st.Total}
	out.Conflicts = out.count(http.StatusPreconditionFailed, http.StatusConflict)
	return out, nil
}

// lostRace: a stale ETag gets 412, a write racing another one 409
// ConditionalRequestConflict.
func (s *s3Store) lostRace() lostRace {
	return lostRace{label: "412/409s", rows: []requestRow{{http.MethodPut, http.StatusPreconditionFailed}, {http.MethodPut, http.StatusConflict}}}
}

// outsideWriter: none, an outside writer would have to sign its requests.
func (s *s3Store) outsideWriter([]string) *harness.OutsideWriter { return nil }

func (s *s3Store) hint() string {
	return fmt.Sprintf("AWS_ACCESS_KEY_ID=%s AWS_SECRET_ACCESS_KEY='%s' aws --region %s --endpoint-url %s s3 cp s3://%s/%s -",
		s3fake.TestAccessKeyID, s3fake.TestSecretAccessKey, s.srv.Region(), s.srv.URL(), s3Bucket, s3Key)
}

// evidence writes list.json (the object), stats.json (the counts) and
// requests.json (the request log) into dir.
func (s *s3Store) evidence(_ context.Context, _ *harness.Evidence, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var errs []error
	if body, _, err := s.srv.GetObject(s3Bucket, s3Key); err != nil {
		errs = append(errs, err)
	} else {
		errs = append(errs, os.WriteFile(filepath.Join(dir, "list.json"), body, 0o644))
	}
	st, _ := s.stats(context.Background())
	errs = append(errs, writeJSON(filepath.Join(dir, "stats.json"), st), writeJSON(filepath.Join(dir, "requests.json"), s.srv.Requests()))
	return errors.Join(errs...)
}

func (s *s3Store) close() { s.srv.Close() }

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func cloneCounts(in map[string]map[int]int64) map[string]map[int]int64 {
	out := make(map[string]map[int]int64, len(in))
	for m, byCode := range in {
		out[m] = maps.Clone(byCode)
	}
	return out
}

// validStore reports whether kind is a --store value.
func validStore(kind string) bool { return slices.Contains(storeKinds, kind) }
