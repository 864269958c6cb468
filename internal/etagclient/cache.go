package etagclient

// cache is what the client last learned about the document. It is owned by
// the cycle goroutine and handed from one cycle goroutine to the next under
// Client.mu.
type cache struct {
	doc  *Document // nil when absent or unknown
	etag string    // doc's strong ETag; "" when the server did not say
	// generation is doc's object generation, for stores whose writes are
	// conditional on it (WithGenerationPreconditions); "" otherwise.
	generation string
	absent     bool // the last read said 404
	known      bool // the fields above reflect the last read or write
	// stale is set when a write lost to another writer: our ETag did not
	// match. The next cycle reads before it writes, and without
	// If-None-Match, because a server that derives its ETag from the
	// content coding may call our tag current on GET and stale on PUT.
	stale bool
}

// validator returns the ETag to revalidate the cached copy with
// (If-None-Match), or "" when a full read is needed.
func (k *cache) validator() string {
	if k.doc == nil || k.stale {
		return ""
	}
	return k.etag
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

// storeRead records what a GET said.
func (k *cache) storeRead(a getAnswer) {
	switch {
	case a.absent:
		k.doc, k.etag, k.generation, k.absent = nil, "", "", true
	case a.notModified:
		k.absent = false
		if a.etag != "" {
			k.etag = a.etag
		}
		if a.generation != "" {
			k.generation = a.generation
		}
	default:
		k.doc, k.etag, k.generation, k.absent = a.doc, a.etag, a.generation, false
	}
	k.known, k.stale = true, false
}

// storeWritten records a committed write: what was stored, under the
// version the server answered with. Without the validator the next write
// needs (the ETag, or the generation for a generation store), the next
// cycle must read first.
func (k *cache) storeWritten(doc *Document, etag, generation string, byGeneration bool) {
	k.doc, k.etag, k.generation, k.absent, k.stale = doc, etag, generation, false, false
	k.known = etag != ""
	if byGeneration {
		k.known = generation != ""
	}
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
	return Snapshot{ETag: k.etag, Items: k.doc.Items(), Exists: true, Bytes: k.doc.size()}
}
