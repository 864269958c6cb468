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
	"context"
	"net/url"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/stores"
)

// Kind is one kind of backend: a place where lists live (a JSON document
// behind a URL, an object in a store, an AWS WAF IP set, the members of a
// role in a Google Cloud IAM policy), with its rules. It says which lists
// are its own (Matches), where such a list lives and what identifies its
// document (Locate), and how the engine reaches it (Build). A kind whose
// items have rules of their own also implements
// etagclient.ItemNormalizer, spelling an ID as the list keeps it (a CIDR:
// "10.0.0.1" is "10.0.0.1/32"). A Kind holds no state and is safe for
// concurrent use.
type Kind interface {
	// Name names the kind: "http", "s3", "gcs", "azureblob", "wafv2",
	// "gcpiam".
	Name() string

	// BehindURL reports whether the kind's lists are documents at a URL
	// (spec.url, or the URL in spec.urlFrom's Secret), read and written
	// over the HTTP list contract; false for a kind that names its list
	// in a spec field of its own and reaches a provider's API.
	BehindURL() bool

	// Matches reports whether the kind keeps l. A list behind a URL is
	// asked about before its URL is known (l.URL nil: spec.urlFrom's
	// Secret not read yet) and again after, since the URL may say more
	// (an Azure SAS in its query).
	Matches(l List) bool

	// Locate says where l lives. A list behind a URL whose URL is not
	// known has no Document and no Endpoint.
	Locate(l List) Location

	// Build returns what the engine's client of l is made with: the
	// options that reach the list (credentials, a dialect, a backend of
	// the kind's own), and a fingerprint of every credential it read, so
	// that a changed Secret yields a new client. l has passed the shared
	// checks (see package internal/backends). A spec that cannot work is
	// an error wrapping stores.ErrSpec, a refused ambient identity one
	// wrapping stores.ErrAmbientNotAllowed, and a Secret that cannot be
	// read Deps.Secret's error.
	Build(ctx context.Context, l List, deps Deps) (Built, error)
}

// List is a list as a kind is asked about it.
type List struct {
	// Spec is the list's spec.
	Spec *v1alpha1.ExternalListSpec
	// RawURL is the URL of a list behind one: spec.url, or the value of
	// spec.urlFrom's Secret key. It may carry a token and is never
	// printed. "" when the list is not behind a URL, or its Secret is not
	// read yet.
	RawURL string
	// URL is RawURL parsed: nil when RawURL is "" or is not an absolute
	// http or https URL (see ParseURL).
	URL *url.URL
}

// Location is where a list lives.
type Location struct {
	// Shown names the list in status.redactedURL, conditions, events,
	// logs, metrics and the audit log; it never carries a secret.
	Shown string
	// Client is what the engine's client is made with
	// (etagclient.New): the URL of a list behind one, which may carry a
	// token and is never printed, or Shown.
	Client string
	// Document is the identity of the list's document: two spellings of
	// one document give one identity, two documents never do. "" when
	// not known (a list behind a URL that is not known yet).
	Document string
	// Endpoint is the URL the list's requests go to, checked against
	// the operator's --allowed-hosts and the plain-http rule; nil when not
	// known.
	Endpoint *url.URL
	// Scope is what, beside the document, a claim is on: the items
	// pointer, spelled canonically (CanonicalPointer), or a role of a
	// policy. It never depends on the URL.
	Scope string
}

// Deps is what a kind may use to build a list's backend.
type Deps struct {
	// Secret reads a Secret of the list's namespace.
	Secret stores.SecretFunc
	// Policy is what the operator lets this list do with credentials that
	// are not its own.
	Policy stores.Policy
}

// Built is what Kind.Build made.
type Built struct {
	// Options are the client options of the kind: a signer and a
	// dialect for an object store, a backend (etagclient.WithBackend)
	// for a kind not behind a URL. The options every list gets (the items
	// pointer, headers, a CA bundle) are not among them.
	Options []etagclient.Option
	// Fingerprint changes when anything the options carry does (a rotated
	// Secret); "" when the kind read no credentials.
	Fingerprint string
}
