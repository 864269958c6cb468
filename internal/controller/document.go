package controller

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strconv"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/stores"
)

// A list's document is where its items live, whoever names it and however
// they authenticate, as its backend kind says (internal/stores, beside
// each kind's other rules): an object in S3 or Cloud Storage is its bucket
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

// documentIdentity returns the identity of the document spec names, at u
// for a list behind a URL (spec.url, or the URL of spec.urlFrom's Secret);
// "" for a list behind a URL when u is nil.
func documentIdentity(spec *v1alpha1.ExternalListSpec, u *url.URL) string {
	switch {
	case spec.WAFv2 != nil:
		return stores.WAFv2Document(spec.WAFv2)
	case spec.GCPIAM != nil:
		return stores.GCPIAMDocument(spec.GCPIAM)
	case u == nil:
		return ""
	}
	return stores.URLDocument(u, spec.Auth, spec.DocumentQueryKeys)
}

// claimPointer is what, beside the document, a claim is on: the role, for
// an IAM policy (two roles of one policy are two lists); else the items
// pointer, as the engine reads it (canonicalPointer).
func claimPointer(spec *v1alpha1.ExternalListSpec) string {
	if spec.GCPIAM != nil {
		return spec.GCPIAM.Role
	}
	return canonicalPointer(spec.ItemsPointer)
}

// canonicalPointer returns the one spelling of the JSON pointer p among
// those that the engine (internal/etagclient) resolves the same way: its
// tokens unescaped and escaped again, and every token that the engine
// takes for an array index when it meets an array (a decimal number,
// signed or not, without a leading zero: "+0" and "-0" are 0) written as
// that index. In an object such a token is a member's name ("+0" is not
// "0"), so two pointers may be merged that name two arrays: one list is
// then DocumentInUse, where two writers of one array would lose IDs. A
// pointer the engine refuses is returned as it is (the list is
// InvalidSpec).
func canonicalPointer(p string) string {
	ptr, err := etagclient.ParsePointer(p)
	if err != nil {
		return p
	}
	for i, tok := range ptr {
		if n, ok := arrayIndex(tok); ok {
			ptr[i] = strconv.Itoa(n)
		}
	}
	return ptr.String()
}

// arrayIndex reports whether the engine takes tok for an array index, and
// which: the rule of elementSpan in internal/etagclient/scan.go
// (TestCanonicalPointerAgreesWithTheEngine holds the two together).
func arrayIndex(tok string) (int, bool) {
	n, err := strconv.Atoi(tok)
	if err != nil || n < 0 || (len(tok) > 1 && tok[0] == '0') {
		return 0, false
	}
	return n, true
}

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
	u := parseListURL(rawURL)
	if u == nil {
		return ""
	}
	return DocumentID(stores.URLDocument(u, nil, nil))
}

// parseListURL parses the URL of a list, nil when it is not an absolute
// http or https URL.
func parseListURL(rawURL string) *url.URL {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil
	}
	return u
}

// DocumentBucketKey is what the bucket of a document's work is hashed from
// (membership.Bucket): every entry of every list naming the document, and
// the lists' own work, fall in it.
func DocumentBucketKey(documentID string) string {
	return "document\x00" + documentID
}
