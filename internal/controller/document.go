package controller

import (
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/url"
	"path"
	"strings"
)

// A list's document is where its items live, whoever names it and however
// they authenticate: for HTTP and object stores, the canonical URL (see
// CanonicalURL). Documents are the unit of ownership (one replica writes a
// document, through one combining client), of ordering and of reference
// counting (one list holds the claim on a document and items pointer).

// CanonicalURL returns the identity of the document at u: the scheme and
// host lower-cased (a trailing dot of the host dropped), the scheme's
// default port dropped, the path cleaned; the query, the fragment and the
// user info left out. Tokens live in the query and the user info, so two
// URLs that differ only there name the same document. Two URLs that name
// one resource differently (percent-encoding, a trailing slash) may come
// out the same: a document wrongly found in use is safe, a shared one
// missed is not.
func CanonicalURL(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if port := u.Port(); port != "" && (scheme != "http" || port != "80") && (scheme != "https" || port != "443") {
		host = net.JoinHostPort(host, port)
	} else if strings.Contains(host, ":") {
		host = "[" + host + "]" // an IPv6 literal without a port
	}
	p := path.Clean("/" + u.Path)
	return scheme + "://" + host + p
}

// DocumentID is the published identity of a document (status.documentID):
// a hash of its canonical form, so that it can be shown and indexed
// without showing where the list lives.
func DocumentID(canonical string) string {
	sum := sha256.Sum256([]byte(canonical))
	return hex.EncodeToString(sum[:16])
}

// DocumentIDOfURL returns the DocumentID of the document at rawURL, or ""
// when rawURL is not an absolute http or https URL.
func DocumentIDOfURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return DocumentID(CanonicalURL(u))
}

// DocumentBucketKey is what the bucket of a document's work is hashed from
// (membership.Bucket): every entry of every list naming the document, and
// the lists' own work, fall in it.
func DocumentBucketKey(documentID string) string {
	return "document\x00" + documentID
}
