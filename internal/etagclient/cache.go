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

// cache is what the client last learned about the list. It is owned by the
// cycle goroutine and handed from one cycle goroutine to the next under
// Client.mu.
type cache struct {
	doc *Document // nil when absent or unknown
	// version is doc's version as its backend read or wrote it; the zero
	// Version when the backend did not say.
	version Version
	// extra is what the backend's version of doc holds beyond doc, as
	// the budget counts it (see Client.cacheCost).
	extra  int64
	absent bool // the last read said the list does not exist
	known  bool // the fields above reflect the last read or write
	// stale is set when a write lost to another writer: our version did
	// not match. The next cycle reads before it writes, and without
	// revalidating, because a server that derives its ETag from the
	// content coding may call our tag current on GET and stale on PUT.
	stale bool
}

// validator returns the version to revalidate the cached copy with, or the
// zero Version when a full read is needed.
func (k *cache) validator() Version {
	if k.doc == nil || k.stale {
		return Version{}
	}
	return k.version
}

// forget marks the cache unknown after a failure: the next cycle reads.
func (k *cache) forget() { k.known = false }

// drop forgets the cached document itself after a read that found the
// server's document unusable (ErrInvalidDocument): the copy is of an older
// version that no write may start from, and keeping it would only hold its
// memory.
func (k *cache) drop() {
	*k = cache{}
}

// lost marks the cache stale after a lost write. The document goes too:
// the next read cannot revalidate it, and no write may start from it.
func (k *cache) lost() { k.doc, k.known, k.stale = nil, false, true }

// storeRead records what a read said.
func (k *cache) storeRead(a ReadAnswer) {
	switch {
	case a.Absent:
		k.doc, k.version, k.absent = nil, Version{}, true
	case a.NotModified:
		k.absent = false
		if !a.Version.IsZero() {
			k.version = a.Version
		}
	default:
		k.doc, k.version, k.absent = a.Doc, a.Version, false
	}
	k.known, k.stale = true, false
}

// storeWritten records a committed write: what was stored, under the
// version the backend answered with. Without one, the next cycle must read
// first.
func (k *cache) storeWritten(doc *Document, v Version) {
	k.doc, k.version, k.absent, k.stale = doc, v, false, false
	k.known = !v.IsZero()
}

// items returns the IDs of the cached document; none when it is absent.
func (k *cache) items() []string {
	if k.doc == nil || k.absent {
		return []string{}
	}
	return k.doc.Items()
}

// snapshot returns the cached list as callers see it.
func (k *cache) snapshot() Snapshot {
	if k.doc == nil || k.absent {
		return Snapshot{Items: []string{}}
	}
	return Snapshot{ETag: k.version.Tag, Items: k.doc.Items(), Exists: true, Bytes: k.doc.size()}
}
