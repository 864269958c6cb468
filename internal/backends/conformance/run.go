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

package conformance

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// behaviour is one row of the suite.
type behaviour struct {
	name string
	run  func(t *testing.T, h Harness)
}

// behaviours are the rows of the suite, in the order of the package doc.
var behaviours = []behaviour{
	{"absent", absent},
	{"create", create},
	{"conditional-write", conditionalWrite},
	{"ambiguous-write", ambiguousWrite},
	{"foreign", foreign},
	{"limits", limits},
	{"error-classes", errorClasses},
	{"unsafe-answers", unsafeAnswers},
}

// Run runs every behaviour of the suite against h, each as a subtest with
// a fresh fake.
func Run(t *testing.T, h Harness) {
	t.Helper()
	h.check(t)
	for _, b := range behaviours {
		t.Run(b.name, func(t *testing.T) { b.run(t, h) })
	}
}

// fixture is one subtest's fake, its list and the probe in between.
type fixture struct {
	h     Harness
	probe *Probe
	tg    *Target
}

func start(t *testing.T, h Harness) *fixture {
	t.Helper()
	if _, path, _ := strings.Cut(t.Name(), "/"); h.Known[path] != "" {
		t.Skipf("%s: known defect: %s", h.Kind, h.Known[path])
	}
	probe := NewProbe(t, h.IsWrite)
	tg := h.Start(t, probe)
	tg.check(t, h.Kind)
	return &fixture{h: h, probe: probe, tg: tg}
}

// suiteConflicts is the conflict policy of the suite's clients: short
// waits, and enough attempts for the races the suite makes.
var suiteConflicts = etagclient.ConflictPolicy{
	InitialInterval: time.Millisecond, MaxInterval: 5 * time.Millisecond, Multiplier: 2,
	MaxAttempts: 10, MaxElapsedTime: 20 * time.Second,
}

// client builds an etagclient.Client for the fixture's list (or tg's,
// when given), as the operator would, sending through the probe; extra
// options come last.
func (f *fixture) client(t *testing.T, tg *Target, extra ...etagclient.Option) *etagclient.Client {
	t.Helper()
	if tg == nil {
		tg = f.tg
	}
	opts := []etagclient.Option{
		etagclient.WithItemsPointer(tg.ItemsPointer),
		etagclient.WithHTTPClient(f.probe.Client()),
		etagclient.WithBatchInterval(0),
		etagclient.WithTransportRetries(1, time.Millisecond, time.Millisecond),
		etagclient.WithMaxRetryAfter(10 * time.Millisecond),
		etagclient.WithConflictPolicy(suiteConflicts),
		etagclient.WithRequestTimeout(10 * time.Second),
		// A weak ETag is refused after this wait rather than the default.
		etagclient.WithWeakETagWait(100 * time.Millisecond),
	}
	opts = append(opts, tg.Options...)
	if tg.Factory != nil {
		opts = append(opts, etagclient.WithBackend(tg.Factory))
	}
	c, err := etagclient.New(tg.URL, append(opts, extra...)...)
	if err != nil {
		t.Fatalf("%s: etagclient.New: %v", f.h.Kind, err)
	}
	t.Cleanup(c.Close)
	return c
}

// backend builds the kind's Backend for the fixture's list, as the engine
// would lend it its environment, with env changing the defaults; it skips
// the test when the kind has no exported Backend.
func (f *fixture) backend(t *testing.T, env func(*etagclient.BackendEnv)) etagclient.Backend {
	t.Helper()
	if f.tg.Factory == nil {
		t.Skipf("%s: no BackendFactory: the kind's backend is private to internal/etagclient until the registry exports it; the behaviour is checked through the Client", f.h.Kind)
	}
	p, err := etagclient.ParsePointer(f.tg.ItemsPointer)
	if err != nil {
		t.Fatal(err)
	}
	e := etagclient.BackendEnv{
		URL: f.tg.URL, ShownURL: "conformance://" + f.h.Kind,
		HTTPClient: f.probe.Client(), Pointer: p,
		MaxBodyBytes: etagclient.DefaultMaxBodyBytes, MaxItems: etagclient.DefaultMaxItems,
		TransportRetries: 1,
	}
	if env != nil {
		env(&e)
	}
	b, err := f.tg.Factory(e)
	if err != nil {
		t.Fatalf("%s: factory: %v", f.h.Kind, err)
	}
	t.Cleanup(b.Close)
	return b
}

// stored returns the list as the fake holds it; the test fails when it
// does not exist.
func (f *fixture) stored(t *testing.T) []byte {
	t.Helper()
	raw, ok := f.tg.Stored(t)
	if !ok {
		t.Fatalf("%s: the list does not exist in the fake", f.h.Kind)
	}
	return raw
}

// items returns the items the fake holds.
func (f *fixture) items(t *testing.T) []string {
	t.Helper()
	return f.tg.Items(t, f.stored(t))
}

// seed stores items in the fake and returns the list as stored.
func (f *fixture) seed(t *testing.T, items []string) []byte {
	t.Helper()
	f.tg.Seed(t, items)
	return f.stored(t)
}

// wantItems fails the test unless the fake holds exactly want: in this
// order for an ordered kind, as a set otherwise; each item once.
func (f *fixture) wantItems(t *testing.T, what string, want []string) {
	t.Helper()
	got := f.items(t)
	if !sameItems(got, want, f.h.Ordered) {
		t.Errorf("%s: %s: the fake holds %q, want %q", f.h.Kind, what, got, want)
	}
}

func sameItems(got, want []string, ordered bool) bool {
	if ordered {
		return slices.Equal(got, want)
	}
	g, w := slices.Clone(got), slices.Clone(want)
	slices.Sort(g)
	slices.Sort(w)
	return slices.Equal(g, w)
}

// wantUnchanged fails the test unless the fake holds raw, byte for byte.
func (f *fixture) wantUnchanged(t *testing.T, what string, raw []byte) {
	t.Helper()
	if now := f.stored(t); !bytes.Equal(now, raw) {
		t.Errorf("%s: %s: the fake's list changed:\nbefore %s\n after %s", f.h.Kind, what, raw, now)
	}
}

// wantForeign fails the test unless the foreign parts of the fake's list
// are those of before, byte for byte.
func (f *fixture) wantForeign(t *testing.T, what string, before []byte) {
	t.Helper()
	was, is := f.tg.Foreign(t, before), f.tg.Foreign(t, f.stored(t))
	if !bytes.Equal(was, is) {
		t.Errorf("%s: %s: what the operator did not add changed:\nbefore %s\n after %s", f.h.Kind, what, was, is)
	}
}

// wantNoWrite fails the test if the backend sent a write since sent0.
func (f *fixture) wantNoWrite(t *testing.T, what string, sent0 int) {
	t.Helper()
	if sent, _ := f.probe.Writes(); sent != sent0 {
		t.Errorf("%s: %s: the backend sent %d writes, want none", f.h.Kind, what, sent-sent0)
	}
}

// read reads through b and fails the test on an error or an answer
// without a document.
func read(t *testing.T, kind string, b etagclient.Backend) etagclient.ReadAnswer {
	t.Helper()
	ans, err := b.Read(ctx(t), etagclient.Version{})
	if err != nil {
		t.Fatalf("%s: Read: %v", kind, err)
	}
	if ans.Absent || ans.NotModified || ans.Doc == nil {
		t.Fatalf("%s: Read answered %+v, want a document", kind, ans)
	}
	return ans
}

// with returns doc with ch applied.
func with(t *testing.T, doc *etagclient.Document, ch etagclient.Change) *etagclient.Document {
	t.Helper()
	next, _, err := doc.Apply(ch)
	if err != nil {
		t.Fatal(err)
	}
	return next
}

// update submits ch through c and waits for it.
func update(t *testing.T, c *etagclient.Client, ch etagclient.Change) (etagclient.Result, error) {
	t.Helper()
	return c.Update(ctx(t), ch)
}

// ctx is a subtest's context, bounded so that a hang fails rather than
// stalls the run.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// classes are the error classes of the Backend contract.
var classes = []error{
	etagclient.ErrNotFound, etagclient.ErrUnauthorized, etagclient.ErrRejected,
	etagclient.ErrUnreachable, etagclient.ErrUnsafeServer, etagclient.ErrInvalidDocument,
}

// classesOf returns the classes err wraps.
func classesOf(err error) []error {
	var out []error
	for _, c := range classes {
		if errors.Is(err, c) {
			out = append(out, c)
		}
	}
	return out
}

// wantClass fails the test unless err wraps class and no other class.
// A nil class takes any one class.
func wantClass(t *testing.T, what string, err, class error) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want one of class %v", what, class)
		return
	}
	got := classesOf(err)
	switch {
	case len(got) != 1:
		t.Errorf("%s: err = %v, which wraps %d error classes %v, want exactly one", what, err, len(got), got)
	case class != nil && !errors.Is(got[0], class):
		t.Errorf("%s: err = %v, of class %v, want %v", what, err, got[0], class)
	}
}

// writes picks the writes of h; first picks only the first n requests
// that pick does.
func (h Harness) writes(r *http.Request) bool { return h.IsWrite(r) }

func (h Harness) reads(r *http.Request) bool { return !h.IsWrite(r) }

func first(n int, pick func(*http.Request) bool) func(*http.Request) bool {
	var seen atomic.Int64
	return func(r *http.Request) bool { return pick(r) && seen.Add(1) <= int64(n) }
}

func every(*http.Request) bool { return true }

// inject injects fault through the target's fake, skipping the test when
// it cannot.
func (f *fixture) inject(t *testing.T, fault Fault, pick func(*http.Request) bool) {
	t.Helper()
	if f.tg.Inject == nil {
		t.Skipf("%s: the fake injects no faults", f.h.Kind)
	}
	if err := f.tg.Inject(fault, pick); err != nil {
		if errors.Is(err, ErrNoFault) {
			t.Skipf("%s: %v", f.h.Kind, err)
		}
		t.Fatalf("%s: inject %s: %v", f.h.Kind, fault, err)
	}
}

// seam and engine run the two levels of a behaviour as subtests.
func levels(t *testing.T, seam, engine func(t *testing.T)) {
	t.Run("seam", seam)
	t.Run("engine", engine)
}
