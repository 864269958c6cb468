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

package stores

import (
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// Documents. Each kind of list says what identifies its document, so that
// two lists that name one document in two spellings are one document (one
// writer, one claim, one reference count), and two documents are never
// one. The rules sit beside each kind's other rules: S3's in s3.go, Cloud
// Storage's in gcs.go, Azure Blob Storage's in azureblob.go, an IP set's
// in wafv2.go, an IAM policy's in gcpiam.go; a plain HTTP document's, and
// the dispatch of a URL to its kind, are here. When a rule cannot tell
// whether two spellings name one document it says they do: a list that
// finds its document in use says so, a document written by two lists
// loses IDs. An identity is hashed before it is shown (never the URL).

// URLDocument returns the identity of the document at u for a list whose
// spec.auth is auth (nil: none) and whose spec.documentQueryKeys is
// queryKeys:
//
//   - at one of Amazon S3's, Cloud Storage's or Azure Blob Storage's own
//     endpoints, the object (S3Document, GCSDocument, AzureBlobDocument),
//     whatever the URL's style and query;
//   - at another endpoint, an object store's (spec.auth names one, or the
//     query carries a presigned or SAS signature: MinIO, Azurite, a test
//     fake), the endpoint and the object's path, its escaped slashes
//     taken for slashes, as the stores take them (objectAtEndpoint);
//   - any other URL, a plain HTTP document (HTTPDocument).
func URLDocument(u *url.URL, auth *v1alpha1.StoreAuth, queryKeys []string) string {
	host := normalHost(u.Hostname())
	var (
		doc string
		ok  bool
	)
	switch {
	case anyS3Endpoint(host):
		doc, ok = S3Document(u)
	case gcsEndpoint(host):
		doc, ok = GCSDocument(u)
	case blobEndpoint(host):
		doc, ok = AzureBlobDocument(u)
	}
	switch {
	case ok:
		return doc
	case objectStore(u, auth):
		return objectAtEndpoint(u)
	}
	return HTTPDocument(u, queryKeys)
}

// objectStore reports whether the list at u is kept in an object store:
// its spec.auth signs for one (aws for the service s3, gcp, azure), or its
// URL carries the signature of a presigned S3 URL, a signed Cloud Storage
// URL or an Azure SAS.
func objectStore(u *url.URL, auth *v1alpha1.StoreAuth) bool {
	if auth != nil {
		switch {
		case auth.AWS != nil:
			return auth.AWS.Service == "" || auth.AWS.Service == "s3"
		case auth.GCP != nil, auth.Azure != nil:
			return true
		}
	}
	q := u.Query()
	signed := func(keys ...string) bool {
		for _, k := range keys {
			if q.Get(k) == "" {
				return false
			}
		}
		return true
	}
	return signed("X-Amz-Signature") || signed("AWSAccessKeyId", "Signature") ||
		signed("X-Goog-Signature") || signed("GoogleAccessId", "Signature") || signed("sv", "sig")
}

// HTTPDocument returns the identity of the plain HTTP document at u: the
// scheme, the host (lower-cased, without a trailing dot; an IP address in
// its canonical form), the port as a number (the scheme's default port
// left out), the path as written (see canonicalPath: "//" and an escaped
// slash stay what they are), and the values of the query keys that
// queryKeys names. Every other part of the query, the user info and the
// fragment are left out: tokens live there, and two URLs that differ only
// in them name one document.
func HTTPDocument(u *url.URL, queryKeys []string) string {
	doc := endpointOf(u) + canonicalPath(strings.Split(u.EscapedPath(), "/"), true)
	if len(queryKeys) == 0 {
		return doc
	}
	q, selected := u.Query(), url.Values{}
	for _, k := range queryKeys {
		if vs := q[k]; len(vs) > 0 {
			selected[k] = slices.Sorted(slices.Values(vs))
		}
	}
	// Encode sorts the keys: the order the URL names them in is no part
	// of the document.
	return doc + "?" + selected.Encode()
}

// objectAtEndpoint is the identity of an object in a store at an endpoint
// that is not the store's own (MinIO, Azurite, a test fake): the endpoint
// (endpointOf) and the path that names the bucket and key (or account,
// container and blob), an escaped slash taken for a slash, as the stores
// do. It is HTTPDocument's of the same URL without documentQueryKeys when
// the path has no escaped slash, so a list that reads the object unsigned
// shares its claim.
func objectAtEndpoint(u *url.URL) string {
	return endpointOf(u) + canonicalPath(strings.Split(u.Path, "/"), false)
}

// endpointOf returns scheme://host[:port] of u, canonical: the scheme and
// host lower-cased, a trailing dot of the host dropped, an IP address in
// its canonical form (an IPv4-mapped IPv6 address as IPv4), the port as a
// number, left out when it is the scheme's default.
func endpointOf(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host := normalHost(u.Hostname())
	if a, err := netip.ParseAddr(host); err == nil {
		host = a.Unmap().String()
	}
	port := u.Port()
	if n, err := strconv.ParseUint(port, 10, 16); err == nil {
		port = strconv.FormatUint(n, 10)
	}
	if port == "" || (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		return scheme + "://" + host
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// canonicalPath returns the canonical form of a path split at its
// slashes: each segment decoded (when escaped, its escapes resolved) and
// escaped again in one way, so that %7E and ~, or %41 and A, are one
// spelling while an escaped slash stays apart from a slash; the dot
// segments "." and ".." resolved as a client resolves them before it
// sends a request (RFC 3986, section 5.2.4); an empty path is "/". An
// empty segment ("//") is kept: servers and object stores tell a//b from
// a/b.
func canonicalPath(segments []string, escaped bool) string {
	out := make([]string, 0, len(segments))
	dir := false // the path ends in a dot segment: it names a directory
	for i, seg := range segments {
		if i == 0 {
			continue // before the first slash: empty in an absolute path
		}
		if escaped {
			if s, err := url.PathUnescape(seg); err == nil {
				seg = s
			}
		}
		switch seg {
		case ".":
			dir = true
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
			dir = true
		default:
			out = append(out, url.PathEscape(seg))
			dir = false
		}
	}
	if dir {
		out = append(out, "")
	}
	return "/" + strings.Join(out, "/")
}

// awsOwnHost reports whether host is one of AWS's own (amazonaws.com,
// amazonaws.com.cn, and the dual-stack api.aws): an endpoint there, of any
// style, reaches the one service of its region.
func awsOwnHost(host string) bool {
	host = normalHost(host)
	for _, suffix := range []string{".amazonaws.com", ".amazonaws.com.cn", ".api.aws"} {
		if strings.HasSuffix(host, suffix) {
			return true
		}
	}
	return false
}
