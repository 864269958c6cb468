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

package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/listconfig"
	"github.com/listkeeper/listkeeper/internal/netfence"
)

// entry builds a ListEntry for the decision tables.
func entry(uid, list, id string, deleting bool) v1alpha1.ListEntry {
	e := v1alpha1.ListEntry{
		ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid), Name: uid, Namespace: "ns"},
		Spec:       v1alpha1.ListEntrySpec{ListRef: v1alpha1.ListReference{Name: list}, ID: id},
	}
	if deleting {
		now := metav1.Now()
		e.DeletionTimestamp = &now
		e.Finalizers = []string{v1alpha1.FinalizerName}
	}
	return e
}

func TestLiveIDs(t *testing.T) {
	tests := []struct {
		name    string
		entries []v1alpha1.ListEntry
		want    []string
	}{
		{name: "none", want: []string{}},
		{name: "sorted and de-duplicated", entries: []v1alpha1.ListEntry{
			entry("1", "allow", "c", false), entry("2", "allow", "a", false),
			entry("3", "allow", "c", false), entry("4", "allow", "b", false),
		}, want: []string{"a", "b", "c"}},
		{name: "deleting entries are not live", entries: []v1alpha1.ListEntry{
			entry("1", "allow", "a", true), entry("2", "allow", "b", false),
		}, want: []string{"b"}},
		{name: "ID held by a live and a deleting entry stays", entries: []v1alpha1.ListEntry{
			entry("1", "allow", "a", true), entry("2", "allow", "a", false),
		}, want: []string{"a"}},
		{name: "entries the list does not admit are left out", entries: []v1alpha1.ListEntry{
			entry("1", "allow", "not-admitted", false), entry("2", "allow", "b", false),
		}, want: []string{"b"}},
	}
	admitted := func(e *v1alpha1.ListEntry) bool { return e.Spec.ID != "not-admitted" }
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := liveIDs(tc.entries, admitted, nil)
			if got == nil {
				t.Fatal("liveIDs returned nil; want a non-nil slice")
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("liveIDs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNotRecordedElsewhere: the entries a list's resync adds IDs for are
// those that recorded their ID under the list's claim or nowhere yet; one
// recorded under another claim (its list moved here) adds its own once it
// took it off there.
func TestNotRecordedElsewhere(t *testing.T) {
	const claim = "claim-here"
	at := func(uid, id, placed string) v1alpha1.ListEntry {
		e := entry(uid, "allow", id, false)
		if placed != "" {
			e.Status.AddedTo = &v1alpha1.ListPlacement{Claim: placed}
		}
		return e
	}
	entries := []v1alpha1.ListEntry{
		at("1", "here", claim), at("2", "nowhere", ""), at("3", "before", "claim-before"),
		at("4", "not-admitted", claim), at("5", "shared", "claim-before"), at("6", "shared", ""),
	}
	admitted := func(e *v1alpha1.ListEntry) bool { return e.Spec.ID != "not-admitted" }
	got := liveIDs(entries, notRecordedElsewhere(claim, admitted), nil)
	if diff := cmp.Diff([]string{"here", "nowhere", "shared"}, got); diff != "" {
		t.Errorf("liveIDs (-want +got):\n%s", diff)
	}
}

func TestDriftChange(t *testing.T) {
	add, excl := v1alpha1.ListModeAdditive, v1alpha1.ListModeExclusive
	tests := []struct {
		name   string
		mode   v1alpha1.ListMode
		onList []string
		live   []string
		// promised are the IDs of entries with the finalizer; nil: live.
		promised []string
		want     etagclient.Change
		drift    bool
	}{
		{name: "additive: in sync", mode: add, onList: []string{"a", "b"}, live: []string{"a", "b"}, drift: false},
		{name: "additive: foreign IDs are left alone", mode: add, onList: []string{"x", "a", "y"}, live: []string{"a"}, drift: false},
		{name: "additive: missing IDs are added in live order", mode: add, onList: []string{"x", "b"},
			live: []string{"a", "b", "c"}, want: etagclient.Change{Add: []string{"a", "c"}}, drift: true},
		{name: "additive: empty list", mode: add, onList: []string{}, live: []string{"a"},
			want: etagclient.Change{Add: []string{"a"}}, drift: true},
		{name: "additive: no entries", mode: add, onList: []string{"x"}, live: []string{}, drift: false},
		{name: "empty mode is additive", mode: "", onList: []string{"x"}, live: []string{}, drift: false},
		{name: "exclusive: in sync", mode: excl, onList: []string{"b", "a"}, live: []string{"a", "b"}, drift: false},
		{name: "exclusive: foreign ID removed by name", mode: excl, onList: []string{"a", "x"}, live: []string{"a"},
			want: etagclient.Change{Remove: []string{"x"}}, drift: true},
		{name: "exclusive: missing added and foreign removed", mode: excl, onList: []string{"x"}, live: []string{"a"},
			want: etagclient.Change{Add: []string{"a"}, Remove: []string{"x"}}, drift: true},
		{name: "exclusive: no entries empties the list", mode: excl, onList: []string{"x", "y"}, live: nil,
			want: etagclient.Change{Remove: []string{"x", "y"}}, drift: true},
		{name: "exclusive: a foreign ID twice on the list is removed once by name", mode: excl, onList: []string{"x", "a", "x"},
			live: []string{"a"}, want: etagclient.Change{Remove: []string{"x"}}, drift: true},
		{name: "exclusive: no entries and empty list", mode: excl, onList: []string{}, live: nil, drift: false},
		{name: "exclusive: duplicates on the list are not drift by themselves", mode: excl, onList: []string{"a", "a"},
			live: []string{"a"}, drift: false},
		{name: "additive: an entry without the finalizer has its ID added by its own reconcile", mode: add, onList: []string{"x"},
			live: []string{"a", "b"}, promised: []string{"b"}, want: etagclient.Change{Add: []string{"b"}}, drift: true},
		{name: "exclusive: the ID of an entry without the finalizer is not foreign", mode: excl, onList: []string{"a", "x"},
			live: []string{"a"}, promised: []string{}, want: etagclient.Change{Remove: []string{"x"}}, drift: true},
		{name: "exclusive: a foreign item no change can name stays", mode: excl,
			onList: []string{"", "x", strings.Repeat("z", etagclient.MaxIDLength+1)}, live: nil,
			want: etagclient.Change{Remove: []string{"x"}}, drift: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			promised := tc.promised
			if promised == nil {
				promised = tc.live
			}
			got, drift := driftChange(tc.mode, tc.onList, promised, tc.live)
			if drift != tc.drift {
				t.Errorf("drift = %t, want %t", drift, tc.drift)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("change (-want +got):\n%s", diff)
			}
			// RetainOnly would apply to whatever the client reads after a
			// 412 and remove IDs never announced: never in any mode.
			if got.RetainOnly != nil {
				t.Errorf("driftChange must not set RetainOnly, got %v", got.RetainOnly)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("the change is invalid: %v", err)
			}
			// Applying the change must leave the list in sync.
			if drift {
				items, _ := etagclient.Apply(tc.onList, got)
				if _, again := driftChange(tc.mode, items, promised, tc.live); again {
					t.Errorf("after applying %+v the list %v still drifts", got, items)
				}
			}
		})
	}
}

func TestMissing(t *testing.T) {
	tests := []struct {
		name       string
		want, have []string
		out        []string
	}{
		{name: "both empty"},
		{name: "nothing had", want: []string{"b", "a"}, out: []string{"b", "a"}},
		{name: "all had", want: []string{"a"}, have: []string{"a", "b"}},
		{name: "keeps want's order", want: []string{"c", "a", "b"}, have: []string{"a"}, out: []string{"c", "b"}},
		{name: "duplicates in want are kept", want: []string{"a", "a"}, out: []string{"a", "a"}},
		{name: "exact comparison", want: []string{"A"}, have: []string{"a"}, out: []string{"A"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.out, missing(tc.want, tc.have), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("missing (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReasonFor(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"not found", etagclient.ErrNotFound, v1alpha1.ReasonListNotFound},
		{"not found wrapped", fmt.Errorf("GET http://x: %w", etagclient.ErrNotFound), v1alpha1.ReasonListNotFound},
		{"unsafe server", etagclient.ErrUnsafeServer, v1alpha1.ReasonUnsafeServer},
		{"missing ETag", fmt.Errorf("GET: %w", etagclient.ErrMissingETag), v1alpha1.ReasonUnsafeServer},
		{"weak ETag", etagclient.ErrWeakETag, v1alpha1.ReasonUnsafeServer},
		{"malformed ETag", etagclient.ErrMalformedETag, v1alpha1.ReasonUnsafeServer},
		{"invalid document", etagclient.ErrInvalidDocument, v1alpha1.ReasonInvalidDocument},
		{"not JSON", etagclient.ErrNotJSON, v1alpha1.ReasonInvalidDocument},
		{"not an array", etagclient.ErrNotArray, v1alpha1.ReasonInvalidDocument},
		{"too large", etagclient.ErrTooLarge, v1alpha1.ReasonInvalidDocument},
		{"conflicts", fmt.Errorf("update: %w", etagclient.ErrConflictRetriesExhausted), v1alpha1.ReasonConflictRetriesExhausted},
		{"unreachable", etagclient.ErrUnreachable, v1alpha1.ReasonListUnreachable},
		{"redirect", etagclient.ErrRedirect, v1alpha1.ReasonListUnreachable},
		{"401", &etagclient.StatusError{Method: "GET", Code: 401}, v1alpha1.ReasonUnauthorized},
		{"403", &etagclient.StatusError{Method: "PUT", Code: 403}, v1alpha1.ReasonUnauthorized},
		{"400", &etagclient.StatusError{Method: "PUT", Code: 400}, v1alpha1.ReasonRejected},
		{"404 to a PUT", &etagclient.StatusError{Method: "PUT", Code: 404}, v1alpha1.ReasonListNotFound},
		{"500", &etagclient.StatusError{Method: "GET", Code: 500}, v1alpha1.ReasonListUnreachable},
		{"write redirected", fmt.Errorf("PUT x: %w", etagclient.ErrWriteRedirected), v1alpha1.ReasonRejected},
		{"duplicate key", etagclient.ErrDuplicateKey, v1alpha1.ReasonInvalidDocument},
		{"context canceled", context.Canceled, v1alpha1.ReasonListUnreachable},
		{"anything else", errors.New("boom"), v1alpha1.ReasonListUnreachable},
		{"config error", &listconfig.ConfigError{Reason: v1alpha1.ReasonSecretNotFound, Msg: "secret"}, v1alpha1.ReasonSecretNotFound},
		{"config error wrapped", fmt.Errorf("resolve: %w", &listconfig.ConfigError{Reason: v1alpha1.ReasonHostNotAllowed}), v1alpha1.ReasonHostNotAllowed},
		{"dial fence refusal", fmt.Errorf("GET http://x/: %w", &netfence.DeniedError{}), v1alpha1.ReasonDestinationNotAllowed},
		{"dial fence refusal in a transport error", fmt.Errorf("GET http://x/: %w: %w", etagclient.ErrUnreachable, &netfence.DeniedError{}), v1alpha1.ReasonDestinationNotAllowed},
		{"invalid spec", &listconfig.ConfigError{Reason: v1alpha1.ReasonInvalidSpec}, v1alpha1.ReasonInvalidSpec},
		{"joined: config error wins over class", errors.Join(&listconfig.ConfigError{Reason: v1alpha1.ReasonInvalidSpec}, etagclient.ErrUnreachable), v1alpha1.ReasonInvalidSpec},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := reasonFor(tc.err); got != tc.want {
				t.Errorf("reasonFor(%v) = %q, want %q", tc.err, got, tc.want)
			}
		})
	}
}

func TestCheckID(t *testing.T) {
	tests := []struct {
		name string
		id   string
		want string // "ok", "invalid", or "" when it depends on how the client counts
	}{
		{name: "empty", id: "", want: "invalid"},
		{name: "one byte", id: "a", want: "ok"},
		{name: "253 ASCII characters", id: strings.Repeat("a", 253), want: "ok"},
		{name: "254 ASCII characters", id: strings.Repeat("a", 254), want: "invalid"},
		{name: "126 two-byte characters (252 bytes)", id: strings.Repeat("é", 126), want: "ok"},
		{name: "254 two-byte characters", id: strings.Repeat("é", 254), want: "invalid"},
		{name: "253 two-byte characters (accepted by the API)", id: strings.Repeat("é", 253)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := checkID(tc.id)
			if tc.want != "" && (err == nil) != (tc.want == "ok") {
				t.Fatalf("checkID(%d bytes) = %v, want %s", len(tc.id), err, tc.want)
			}
			if err != nil && reasonFor(err) != v1alpha1.ReasonInvalidSpec {
				t.Errorf("reason %q, want %s", reasonFor(err), v1alpha1.ReasonInvalidSpec)
			}
			// checkID never disagrees with the change the controller would
			// submit.
			if verr := (etagclient.Change{Add: []string{tc.id}}).Validate(); (verr == nil) != (err == nil) {
				t.Errorf("etagclient.Change.Validate = %v, checkID = %v: they disagree", verr, err)
			}
		})
	}
}

// TestDriftChangeLeavesLateIDs: the Exclusive change is re-applied by the
// client to a fresh read after a 412. An ID that another writer added after
// the read the change was decided from was never announced, so the change
// must leave it, and remove exactly the announced foreign IDs.
func TestDriftChangeLeavesLateIDs(t *testing.T) {
	onList := []string{"mine", "f1", "theirs", "f2"}
	live := []string{"mine", "theirs", "new-mine"}
	ch, drift := driftChange(v1alpha1.ListModeExclusive, onList, live, live)
	if !drift {
		t.Fatal("no drift found")
	}
	if diff := cmp.Diff([]string{"f1", "f2"}, ch.Remove); diff != "" {
		t.Errorf("Remove (-want +got):\n%s", diff)
	}
	// Another writer adds "late" before the write lands: the 412 makes the
	// client apply ch to this newer list.
	newer := append(slices.Clone(onList), "late")
	got, _ := etagclient.Apply(newer, ch)
	if strings.Join(got, ",") != "mine,theirs,late,new-mine" {
		t.Errorf("after the retried write: %v, want [mine theirs late new-mine]: the late ID was never announced", got)
	}
}
