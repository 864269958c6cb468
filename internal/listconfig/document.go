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

package listconfig

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/backends"
)

// A list's document is where its items live, whoever names it and however
// they authenticate, as its kind of backend says (internal/backends, beside
// the kind's other rules): an object in S3 or Cloud Storage is its bucket
// and key, in Azure Blob Storage its account, container and blob, an IP
// set its region, scope and ID, an IAM policy its resource, a plain HTTP
// document its scheme, host, port, path and the query keys the list names
// (spec.documentQueryKeys). Documents are the unit of ownership (one
// replica writes a document, through one combining client), of ordering
// and of reference counting (one list holds the claim on a document and
// items pointer or role). Two spellings of one document are one document;
// where a rule cannot tell, it merges: a list that finds its document in
// use says so (DocumentInUse), while a document written under two claims
// loses IDs.

// DocumentID is the published identity of a document (status.documentID):
// a hash of its identity, so that it can be shown and indexed without
// showing where the list lives.
func DocumentID(identity string) string {
	sum := sha256.Sum256([]byte(identity))
	return hex.EncodeToString(sum[:16])
}

// DocumentIDOfURL returns the DocumentID of the document at rawURL for a
// list without spec.auth and spec.documentQueryKeys, or "" when rawURL is
// not an absolute http or https URL. DocumentOf is the DocumentID of any
// list.
func DocumentIDOfURL(rawURL string) string {
	identity, _ := backends.Identity(&v1alpha1.ExternalListSpec{URL: rawURL})
	if identity == "" {
		return ""
	}
	return DocumentID(identity)
}

// DocumentBucketKey is what the bucket of a document's work is hashed from
// (membership.Bucket): every entry of every list naming the document, and
// the lists' own work, fall in it.
func DocumentBucketKey(documentID string) string {
	return "document\x00" + documentID
}

// DocumentOf returns the document a list names, as far as the cache can
// know it: from spec.url directly, else (urlFrom, whose URL only its Secret
// knows) from status.documentID, once the list's reconcile has read the
// Secret and published it for the current generation. "" when unknown.
func DocumentOf(l v1alpha1.List) string {
	spec, st := l.ListSpec(), l.ListStatus()
	if identity, known := backends.Identity(spec); known {
		if identity == "" {
			return ""
		}
		return DocumentID(identity)
	}
	if st.ObservedGeneration != l.GetGeneration() {
		return ""
	}
	return st.DocumentID
}

// ClaimKey is what one list at a time holds the claim on: a document and
// what its kind says the claim is on beside it, an items pointer or a role
// (backends.ClaimKey). "" when the document is not known yet.
func ClaimKey(l v1alpha1.List) string {
	doc := DocumentOf(l)
	if doc == "" {
		return ""
	}
	return backends.ClaimKey(doc, l.ListSpec())
}

// ClaimID is the published identity of a list's claim (what an entry's
// status.addedTo.claim records): a hash of ClaimKey, "" when the document
// is not known yet.
func ClaimID(l v1alpha1.List) string {
	key := ClaimKey(l)
	if key == "" {
		return ""
	}
	return DocumentID(key)
}
