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
	"errors"
	"net/http"
	"testing"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// Harness is one backend kind with its fake, as Run needs it.
type Harness struct {
	// Kind names the kind in messages ("http", "s3", "wafv2", ...).
	Kind string

	// Start starts a fresh fake for one subtest, stopped when the subtest
	// ends, and returns the list it serves. Every request of the list's
	// backend must go through probe (see Probe.Client). When the kind can
	// be absent (Absent), the list's document does not exist yet;
	// otherwise it exists and holds no items. Required.
	Start func(t *testing.T, probe *Probe) *Target

	// IDs returns n distinct IDs that the kind accepts, in the spelling
	// its store keeps, different for each from: IDs(0, 3) and IDs(3, 3)
	// have none in common. Required.
	IDs func(from, n int) []string

	// IsWrite reports whether a request (as the client sends it, or as the
	// fake receives it) is a write of the list. Required.
	IsWrite func(r *http.Request) bool

	// Absent: a list of this kind can be missing and read as absent (an
	// HTTP document, an object). False for lists that exist before the
	// operator names them (an IP set, a policy).
	Absent bool
	// Create: a write can create an absent list (If-None-Match: *,
	// generation 0).
	Create bool
	// Ordered: the store keeps the items in the order written, so the
	// operator's additions come after the items that were there.
	Ordered bool

	// NotFoundClass is the class of the error for a list whose container
	// (bucket, container, IP set, resource) does not exist. Default
	// etagclient.ErrNotFound; Resource Manager answers a missing project
	// with 403, which is ErrUnauthorized.
	NotFoundClass error

	// Unsafe are the kind's versions that cannot make a conditional write,
	// by name ("no ETag", "weak ETag", "no lock token"): each turns a read's
	// answer into one that carries such a version. A read of one must fail
	// with etagclient.ErrUnsafeServer, and no write may follow. The suite
	// adds an HTML page and a garbage body for every kind.
	Unsafe map[string]func(resp *http.Response)

	// Known are the kind's known defects: each subtest named (its path
	// below the kind's test, such as "ambiguous-write/drop-after/seam")
	// skips, saying the defect. An entry is kept only while the defect
	// is: a harness proves it with a test that runs the subtest without
	// it and requires it to fail.
	Known map[string]string
}

// Target is the list a Harness's fake serves, and how to reach it.
type Target struct {
	// URL is the list's URL for etagclient.New: the document's own URL,
	// or a name of the list when Factory is set.
	URL string
	// Options are what the kind needs beyond the suite's own options
	// (spec.auth's signer and dialect, an items pointer, headers). They
	// must not set an HTTP client: the suite gives the Probe's.
	Options []etagclient.Option
	// ItemsPointer is the items pointer of the list's documents
	// (etagclient.WithItemsPointer); "" for the whole document, and for
	// kinds whose items are not in a JSON document of the operator's.
	ItemsPointer string
	// Factory builds the kind's Backend, as the registry would; nil when
	// the kind's backend is not exported (the HTTP backend inside
	// internal/etagclient), and the seam-level subtests skip.
	Factory etagclient.BackendFactory

	// Seed stores a list holding items directly in the fake, as another
	// writer would, with the kind's foreign fields around them (the same
	// each time). Required.
	Seed func(t *testing.T, items []string)
	// Stored returns the list as the fake holds it, as bytes that change
	// whenever anything of the list changes, and whether it exists.
	// Required.
	Stored func(t *testing.T) (raw []byte, ok bool)
	// Items returns the items of a Stored list, in the store's order.
	// Required.
	Items func(t *testing.T, raw []byte) []string
	// Foreign returns the parts of a Stored list that are not its items
	// and that a write of the items must keep as they were (fields around
	// the items array, a description, other bindings). Required.
	Foreign func(t *testing.T, raw []byte) []byte

	// Inject makes the fake answer the requests pick chooses with f,
	// until the subtest ends; pick sees the request as the fake receives
	// it. It returns ErrNoFault (wrapped, saying why) for a fault the fake
	// cannot inject, and the subtest skips. Nil: none can be injected.
	Inject func(f Fault, pick func(r *http.Request) bool) error
	// Missing returns a list of the same kind whose container does not
	// exist in the fake (a bucket, an IP set, a resource without a
	// policy); for a kind without containers, a document that does not
	// exist. Nil: the subtest skips.
	Missing func(t *testing.T, probe *Probe) *Target
}

// Fault is a fault a fake injects.
type Fault string

// The faults of the suite. Each fake injects its own spelling of them.
const (
	// FaultThrottled is the kind's throttling answer: 429, S3's 503
	// SlowDown, WAF's ThrottlingException, Google's RESOURCE_EXHAUSTED.
	FaultThrottled Fault = "throttled"
	// FaultUnavailable is a 503.
	FaultUnavailable Fault = "unavailable"
	// FaultInternal is a 500.
	FaultInternal Fault = "internal"
	// FaultDropBefore closes the connection before the request is
	// served: a write does not land.
	FaultDropBefore Fault = "drop-before"
	// FaultDropAfter serves the request and closes the connection
	// instead of answering: a write lands, and its client cannot know.
	FaultDropAfter Fault = "drop-after"
)

// ErrNoFault is wrapped by Target.Inject's error for a fault the fake
// cannot inject.
var ErrNoFault = errors.New("the fake cannot inject this fault")

// notFoundClass is the class of a missing container's error for h.
func (h Harness) notFoundClass() error {
	if h.NotFoundClass != nil {
		return h.NotFoundClass
	}
	return etagclient.ErrNotFound
}

// check fails the test unless h and a Target it started have what Run
// needs.
func (h Harness) check(t *testing.T) {
	t.Helper()
	if h.Kind == "" || h.Start == nil || h.IDs == nil || h.IsWrite == nil {
		t.Fatalf("harness %q: Kind, Start, IDs and IsWrite are required", h.Kind)
	}
	if h.Create && !h.Absent {
		t.Fatalf("harness %q: a kind that creates lists must be able to be absent", h.Kind)
	}
}

func (tg *Target) check(t *testing.T, kind string) {
	t.Helper()
	if tg == nil || tg.URL == "" || tg.Seed == nil || tg.Stored == nil || tg.Items == nil || tg.Foreign == nil {
		t.Fatalf("harness %q: Start must return a Target with URL, Seed, Stored, Items and Foreign", kind)
	}
}
