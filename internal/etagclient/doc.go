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

// Package etagclient changes one JSON list document behind an HTTP API without
// ever losing an update, however many processes change it at once.
//
// Every change is an optimistic read-modify-write:
//
//	GET (ETag E) -> apply the change -> PUT with If-Match: E
//	    2xx -> committed
//	    412 -> another writer won: back off with jitter, re-read, re-apply, PUT again
//	    no answer after the PUT was sent -> re-read and check whether the change holds
//
// Changes are idempotent set operations ([Change]: IDs to add, IDs to remove,
// optionally "keep only these"), so re-applying one to a fresh read is always
// safe, and a change that already holds costs no write.
//
// # Combining
//
// A [Client] serves one list document and is shared by every goroutine of a
// process that changes it. Concurrent calls to [Client.Update] are merged: only
// one read-modify-write cycle per list is in flight, and every change that
// arrives meanwhile goes into the next cycle, so N concurrent changes usually
// cost one PUT. Each caller still learns whether its own change was committed.
// The client keeps the document and ETag of the last successful read or
// write, so the next cycle can PUT at once and re-reads only after a 412 or
// before a read (with If-None-Match). It keeps one copy of the document's
// bytes, the items being substrings of it: a list costs its size plus 16
// bytes an item, and a read or write needs about one more copy of the
// document while it runs.
//
// # Safety
//
// The client refuses to write when it cannot do so safely: a missing or weak
// ETag (RFC 9110 requires strong comparison for If-Match), a body that is not
// JSON, an items pointer that does not lead to an array of strings, or a body
// over the size or item limit ([WithMaxBodyBytes], [WithMaxItems]), which
// bound what one list can cost. Each case is a typed error (see [ErrUnsafeServer] and
// [ErrInvalidDocument]) and nothing is written. Header values and URL
// credentials never appear in errors or logs.
package etagclient
