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

package backend

import (
	"net/url"
	"strconv"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/stores"
)

// ParseURL parses the URL of a list behind one: nil when it is not an
// absolute http or https URL.
func ParseURL(raw string) *url.URL {
	u, err := url.Parse(raw)
	if err != nil || !HTTPURL(u) {
		return nil
	}
	return u
}

// HTTPURL reports whether u is an absolute http or https URL (the scheme
// in lower case, as url.Parse leaves it), with a host.
func HTTPURL(u *url.URL) bool {
	return u != nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// LocateURL is Kind.Locate of every kind behind a URL: the list is shown
// as ShownURL shows its URL, its document is what stores.URLDocument says
// of the URL (an object in a store, whatever the URL's style; a plain
// document's scheme, host, port, path and selecting query keys), its
// requests go to its URL, and its claim is on its items pointer.
func LocateURL(l List) Location {
	loc := Location{
		Shown:    ShownURL(l.RawURL, l.Spec.URLFrom != nil),
		Client:   l.RawURL,
		Endpoint: l.URL,
		Scope:    CanonicalPointer(l.Spec.ItemsPointer),
	}
	if l.URL != nil {
		loc.Document = stores.URLDocument(l.URL, l.Spec.Auth, l.Spec.DocumentQueryKeys)
	}
	return loc
}

// ShownURL is what status.redactedURL, messages, logs and the audit log
// show of a list's URL: spec.url's scheme, host and path
// (etagclient.RedactURL: no user info, no query); for a URL from a Secret
// (fromSecret), whose path may carry a token too, its scheme and host only.
// An unparsable URL gives "".
func ShownURL(raw string, fromSecret bool) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	if fromSecret {
		return etagclient.OriginOf(u)
	}
	return etagclient.RedactURL(u)
}

// CanonicalPointer returns the one spelling of the JSON pointer p among
// those that the engine (internal/etagclient) resolves the same way: its
// tokens unescaped and escaped again, and every token that the engine
// takes for an array index when it meets an array (a decimal number,
// signed or not, without a leading zero: "+0" and "-0" are 0) written as
// that index. In an object such a token is a member's name ("+0" is not
// "0"), so two pointers may be merged that name two arrays: one list is
// then DocumentInUse, where two writers of one array would lose IDs. A
// pointer the engine refuses is returned as it is (the list is
// InvalidSpec).
func CanonicalPointer(p string) string {
	ptr, err := etagclient.ParsePointer(p)
	if err != nil {
		return p
	}
	for i, tok := range ptr {
		if n, ok := ArrayIndex(tok); ok {
			ptr[i] = strconv.Itoa(n)
		}
	}
	return ptr.String()
}

// ArrayIndex reports whether the engine takes tok for an array index, and
// which: the rule of elementSpan in internal/etagclient/scan.go
// (TestCanonicalPointerAgreesWithTheEngine holds the two together).
func ArrayIndex(tok string) (int, bool) {
	n, err := strconv.Atoi(tok)
	if err != nil || n < 0 || (len(tok) > 1 && tok[0] == '0') {
		return 0, false
	}
	return n, true
}

// EndpointURL parses the endpoint a spec names for a provider's API
// (spec.wafv2.endpoint, spec.gcpIAM.endpoint). An unparsable one is an
// empty URL, which has no host: the shared checks refuse it.
func EndpointURL(raw string) *url.URL {
	u, err := url.Parse(raw)
	if err != nil {
		return &url.URL{}
	}
	return u
}
