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

package etagclient

import (
	"context"
	"net/http"

	"github.com/go-logr/logr"
)

// Backend is where a list lives, as the engine sees it: one read that
// returns the items with an opaque version, and one write that replaces them
// on the condition that the version is still current. The engine (queue,
// cycle, settle, backoff, fence, cache) is the same for every backend.
//
// The plain HTTP JSON contract is the default backend (see New), and object
// stores are variants of it (see Dialect). A list kept elsewhere, behind a
// provider's API whose version travels in the body (an IP set's lock token,
// a policy's etag), brings its own backend with WithBackend
// (the kinds of internal/backends build them).
//
// Errors must wrap exactly one of the error classes (ErrNotFound,
// ErrUnauthorized, ErrRejected, ErrUnreachable, ErrUnsafeServer,
// ErrInvalidDocument), and carry no text a server chose beyond a fixed
// vocabulary: they reach conditions and events. A backend is used by one
// cycle at a time; Close may be called from another goroutine.
type Backend interface {
	// Read returns the list. have is the version of the copy the engine
	// holds, or the zero Version when it holds none; a backend that can
	// revalidate cheaply may answer NotModified when have is current.
	Read(ctx context.Context, have Version) (ReadAnswer, error)

	// Write replaces the list with next, on the condition that the list is
	// still at base (or, when create is true, that it does not exist). It
	// returns an error only when the cycle must end; a write lost to
	// another writer, or one whose outcome is unknown, is an outcome.
	Write(ctx context.Context, next *Document, create bool, base Version) (WriteAnswer, error)

	// Close releases what the backend holds (idle connections).
	Close()
}

// ItemChecker is implemented by a backend whose items have rules of their
// own (a CIDR of the set's address family, a member of a known kind). A
// change naming an ID that CheckItem refuses fails alone, with the error
// CheckItem returned (which must wrap ErrRejected), and the others go on.
type ItemChecker interface {
	CheckItem(id string) error
}

// ItemNormalizer is implemented by a backend whose items have a canonical
// spelling that the backend's store uses (a CIDR: "10.0.0.1" is stored as
// "10.0.0.1/32"). The engine spells every ID of a change canonically before
// applying it or comparing it with the list, so an ID written in another
// spelling neither goes on the list twice nor looks missing forever. An ID
// NormalizeItem cannot spell is returned unchanged (ItemChecker refuses
// it).
type ItemNormalizer interface {
	NormalizeItem(id string) string
}

// Version identifies what a backend read, for the next write to be
// conditional on. The engine keeps it with the copy it read and hands it
// back; only the backend looks inside.
type Version struct {
	// Tag is the version as callers see it (Snapshot.ETag, Result.ETag,
	// Commit.ETagBefore and ETagAfter): an ETag, a lock token, a policy
	// etag. "" when the backend knows none to show.
	Tag string
	// Data is the backend's own: what else its next write needs, such as
	// an object generation, or the fields of an IP set or a policy that a
	// write must carry back unchanged.
	Data any
}

// IsZero reports whether v carries nothing: after a write, the next
// change must read first.
func (v Version) IsZero() bool { return v.Tag == "" && v.Data == nil }

// ReadAnswer is what a read found.
type ReadAnswer struct {
	// Absent: the list does not exist (and may be created).
	Absent bool
	// NotModified: the copy at the version the engine holds is current.
	// Version, when not zero, replaces the one the engine holds.
	NotModified bool
	// Doc is the list, when neither flag is set.
	Doc *Document
	// Version is Doc's version.
	Version Version
}

// WriteOutcome is how a write ended, when it did not fail.
type WriteOutcome int

const (
	// WriteCommitted means the backend stored the list.
	WriteCommitted WriteOutcome = iota
	// WriteLost means another writer changed the list since base; nothing was
	// written.
	WriteLost
	// WriteUnknown means the write may or may not have landed (no answer, a
	// gateway that gave up); only a fresh read can tell.
	WriteUnknown
)

// WriteAnswer is what a write said.
type WriteAnswer struct {
	Outcome WriteOutcome
	// Stored is what the backend now holds, when Outcome is WriteCommitted
	// and it differs from what was sent (nil means what was sent).
	Stored *Document
	// Version is the new version after a commit; the zero Version when the
	// answer carried none, and the next change must read first.
	Version Version
	// Cause is why the outcome is WriteUnknown (the transport's error), so
	// the engine can tell a write that its fence cut off.
	Cause error
}

// BackendEnv is what the engine lends a backend it builds.
type BackendEnv struct {
	// URL is the list's location as given to New or Reconfigure; it may
	// carry credentials and must never be printed.
	URL string
	// ShownURL is how errors, logs and commits show the list.
	ShownURL string
	// HTTPClient sends every request of the backend: it applies the
	// request timeout, the TLS settings, the signer (WithSigner), refuses
	// redirects to another origin, reports each attempt to the observer,
	// and refuses or cuts off a write whose writer's right ended (Fence).
	// It does not retry; a backend that uses a provider's SDK keeps the
	// SDK's retries (each attempt goes through this client).
	HTTPClient *http.Client
	// Pointer is the items pointer (WithItemsPointer).
	Pointer Pointer
	// MaxBodyBytes and MaxItems are the limits a backend applies to what it
	// reads (WithMaxBodyBytes, WithMaxItems).
	MaxBodyBytes int64
	MaxItems     int
	// TransportRetries is how often a request may be retried after a
	// connection error, a 5xx or throttling (WithTransportRetries).
	TransportRetries int
	// Log is the client's logger.
	Log logr.Logger
}

// BackendFactory builds a Backend for a Client, from what the engine lends
// it. It is called by New, and by Reconfigure with the new settings.
type BackendFactory func(env BackendEnv) (Backend, error)

// WithBackend keeps the list in the Backend that f builds instead of a JSON
// document behind the HTTP list contract. The URL given to New then only
// has to parse as an absolute URL: it identifies the list and is what
// BackendEnv.URL carries. Default: the HTTP backend.
func WithBackend(f BackendFactory) Option { return func(o *config) { o.backend = f } }
