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

package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"time"
)

// Defaults of OutsideWriter.
const (
	// OutsideAgent is the product of an OutsideWriter's User-Agent
	// (OutsideAgent + "/1"): the fake server counts its requests under it
	// in fakeapi.Stats.Agents, apart from the operator's
	// ("listkeeper-etagclient").
	OutsideAgent = "outside-writer"
	// DefaultOutsideInterval and DefaultOutsideJitter space an
	// OutsideWriter's edits: one every 100 to 200 ms.
	DefaultOutsideInterval = 100 * time.Millisecond
	DefaultOutsideJitter   = 100 * time.Millisecond
	// DefaultOutsideAttempts bounds the writes of one edit, 412s included.
	DefaultOutsideAttempts = 20
	// outsideBackoff is the most an OutsideWriter waits after a 412
	// before it reads again.
	outsideBackoff = 20 * time.Millisecond
)

// OutsideWriter edits a list document the way a writer outside listkeeper
// does: it reads the document with its ETag, adds or removes one of its own
// IDs, writes the whole document back with If-Match, and after a 412 reads
// and tries again. Edit n toggles IDs[n mod len(IDs)]: the first round adds
// them all, the next removes them all, and so on. It never touches another
// ID and keeps the document's other fields. What it left on the list
// (Left) is known from its own committed writes only, so a check against
// the document (Check) shows whether anyone else touched its IDs.
//
// Build it with ListServer.OutsideWriter, or fill URL, Header and IDs.
// Run edits until its context ends; Counts may be read meanwhile. It is
// safe for concurrent use, but Run must run once at a time.
type OutsideWriter struct {
	// URL is the document's URL. Required.
	URL string
	// Header is sent with every request (the server's Authorization).
	Header http.Header
	// IDs are the writer's own IDs. Required.
	IDs []string
	// Interval and Jitter space the edits: each starts Interval plus a
	// random part of Jitter after the last one ended; default
	// DefaultOutsideInterval and DefaultOutsideJitter.
	Interval, Jitter time.Duration
	// Attempts bounds the writes of one edit; default
	// DefaultOutsideAttempts. An edit that runs out is skipped and counted
	// in OutsideCounts.GaveUp.
	Attempts int
	// Seed seeds the jitter; default 1.
	Seed uint64

	mu     sync.Mutex
	counts OutsideCounts
	left   map[string]bool // its IDs on the list after its last committed write
	steps  int             // edits started
}

// OutsideCounts is what an OutsideWriter did and was answered.
type OutsideCounts struct {
	// Requests counts its requests by method and status code; code 0 is
	// a request without an answer (a transport error).
	Requests map[string]map[int]int64
	// Total is the sum of Requests.
	Total int64
	// Edits counts the edits committed, Conflicts the 412s its writes got,
	// GaveUp the edits given up after Attempts writes or an unexpected
	// answer, Ambiguous the writes without an answer, settled by a read.
	Edits, Conflicts, GaveUp, Ambiguous int64
}

// OutsideWriter returns a writer of the document at path, with the
// server's Authorization, that adds and removes ids.
func (s *ListServer) OutsideWriter(path string, ids []string) *OutsideWriter {
	return &OutsideWriter{URL: s.URL(path), Header: s.AuthHeader(), IDs: slices.Clone(ids)}
}

// OutsideIDs returns n IDs prefix-1 onwards.
func OutsideIDs(prefix string, n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("%s-%d", prefix, i+1)
	}
	return ids
}

// errOutsideRetry marks an edit whose write lost a race (412).
var errOutsideRetry = errors.New("412 Precondition Failed")

// Run edits the document until ctx ends, then returns nil once the edit in
// progress has finished: requests are not cut short by ctx (each has the
// harness client's timeout), so what the writer left is known exactly. An
// edit that fails is counted and skipped; Run fails only on bad options.
func (w *OutsideWriter) Run(ctx context.Context) error {
	if w.URL == "" || len(w.IDs) == 0 {
		return errors.New("OutsideWriter needs URL and IDs")
	}
	rng := rand.New(rand.NewPCG(orDefault(w.Seed, 1), 0x6f757473696465)) // "outside"
	interval := orDefault(w.Interval, DefaultOutsideInterval)
	jitter := orDefault(w.Jitter, DefaultOutsideJitter)
	reqCtx := context.WithoutCancel(ctx)
	for {
		wait := interval + time.Duration(rng.Int64N(int64(jitter)+1))
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		w.edit(reqCtx, rng)
	}
}

// edit toggles the next ID: reads, changes, writes with If-Match, and
// reads again after a 412, up to Attempts writes.
func (w *OutsideWriter) edit(ctx context.Context, rng *rand.Rand) {
	w.mu.Lock()
	id := w.IDs[w.steps%len(w.IDs)]
	add := !w.left[id]
	w.steps++
	w.mu.Unlock()
	for range orDefault(w.Attempts, DefaultOutsideAttempts) {
		err := w.try(ctx, id, add)
		if !errors.Is(err, errOutsideRetry) {
			if err != nil {
				w.count(func(c *OutsideCounts) { c.GaveUp++ })
			}
			return
		}
		time.Sleep(time.Duration(rng.Int64N(int64(outsideBackoff)) + 1))
	}
	w.count(func(c *OutsideCounts) { c.GaveUp++ })
}

// try makes one read-modify-write of id. It returns errOutsideRetry after
// a 412, nil when the edit committed (or, after a write without an
// answer, a read showed where id stands).
func (w *OutsideWriter) try(ctx context.Context, id string, add bool) error {
	fields, items, etag, err := w.read(ctx)
	if err != nil {
		return err
	}
	next := slices.DeleteFunc(slices.Clone(items), func(s string) bool { return s == id })
	if add {
		next = append(next, id)
	}
	if fields == nil {
		fields = map[string]json.RawMessage{}
	}
	if fields["items"], err = json.Marshal(next); err != nil {
		return err
	}
	body, err := json.Marshal(fields)
	if err != nil {
		return err
	}
	resp, err := w.do(ctx, http.MethodPut, body, http.Header{"If-Match": {etag}, "Content-Type": {"application/json"}})
	switch {
	case err != nil:
		// The write may or may not have landed: the document says.
		w.count(func(c *OutsideCounts) { c.Ambiguous++ })
		_, items, _, rerr := w.read(ctx)
		if rerr != nil {
			return errors.Join(err, rerr)
		}
		w.settle(id, slices.Contains(items, id))
		return nil
	case resp == http.StatusPreconditionFailed:
		w.count(func(c *OutsideCounts) { c.Conflicts++ })
		return errOutsideRetry
	case resp >= 200 && resp < 300:
		w.settle(id, add)
		w.count(func(c *OutsideCounts) { c.Edits++ })
		return nil
	default:
		return fmt.Errorf("PUT: status %d", resp)
	}
}

// read GETs the document: its members apart from items, its items and its
// ETag.
func (w *OutsideWriter) read(ctx context.Context) (map[string]json.RawMessage, []string, string, error) {
	req, err := w.request(ctx, http.MethodGet, nil, nil)
	if err != nil {
		return nil, nil, "", err
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		w.record(http.MethodGet, 0)
		return nil, nil, "", err
	}
	defer func() { _ = resp.Body.Close() }()
	w.record(http.MethodGet, resp.StatusCode)
	if resp.StatusCode != http.StatusOK {
		return nil, nil, "", fmt.Errorf("GET: %s", resp.Status)
	}
	var fields map[string]json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&fields); err != nil {
		return nil, nil, "", fmt.Errorf("GET: %w", err)
	}
	var items []string
	if raw, ok := fields["items"]; ok {
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, nil, "", fmt.Errorf("GET: items: %w", err)
		}
	}
	return fields, items, resp.Header.Get("ETag"), nil
}

// do sends a request with a body and returns its status code.
func (w *OutsideWriter) do(ctx context.Context, method string, body []byte, header http.Header) (int, error) {
	req, err := w.request(ctx, method, body, header)
	if err != nil {
		return 0, err
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		w.record(method, 0)
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	w.record(method, resp.StatusCode)
	return resp.StatusCode, nil
}

func (w *OutsideWriter) request(ctx context.Context, method string, body []byte, header http.Header) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, w.URL, rd)
	if err != nil {
		return nil, err
	}
	for k, v := range w.Header {
		req.Header[k] = v
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("User-Agent", OutsideAgent+"/1")
	req.Header.Set("Accept-Encoding", "identity")
	return req, nil
}

// settle records whether id is on the list after the writer's own write.
func (w *OutsideWriter) settle(id string, on bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.left == nil {
		w.left = map[string]bool{}
	}
	w.left[id] = on
}

func (w *OutsideWriter) record(method string, code int) {
	w.count(func(c *OutsideCounts) {
		if c.Requests == nil {
			c.Requests = map[string]map[int]int64{}
		}
		if c.Requests[method] == nil {
			c.Requests[method] = map[int]int64{}
		}
		c.Requests[method][code]++
		c.Total++
	})
}

func (w *OutsideWriter) count(f func(*OutsideCounts)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f(&w.counts)
}

// Counts returns a copy of what the writer did so far.
func (w *OutsideWriter) Counts() OutsideCounts {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.counts
	c.Requests = map[string]map[int]int64{}
	addCounts(c.Requests, w.counts.Requests, 1)
	return c
}

// Steps is how many edits the writer has started.
func (w *OutsideWriter) Steps() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.steps
}

// Left returns the writer's IDs that its own committed writes left on the
// list, in the order of IDs.
func (w *OutsideWriter) Left() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, id := range w.IDs {
		if w.left[id] {
			out = append(out, id)
		}
	}
	return out
}

// Owns reports whether id is one of the writer's IDs.
func (w *OutsideWriter) Owns(id string) bool { return slices.Contains(w.IDs, id) }

// Without returns items without the writer's IDs, so that a list can be
// compared with what the operator alone should have made of it.
func (w *OutsideWriter) Without(items []string) []string {
	return slices.DeleteFunc(slices.Clone(items), w.Owns)
}

// Check compares the writer's IDs on items with what it left: missing are
// IDs it left that are gone, unexpected are IDs of its own that it
// removed (or never added) and that are on items. Both are empty unless
// someone else touched its IDs.
func (w *OutsideWriter) Check(items []string) (missing, unexpected []string) {
	left := w.Left()
	for _, id := range left {
		if !slices.Contains(items, id) {
			missing = append(missing, id)
		}
	}
	for _, id := range items {
		if w.Owns(id) && !slices.Contains(left, id) && !slices.Contains(unexpected, id) {
			unexpected = append(unexpected, id)
		}
	}
	return missing, unexpected
}
