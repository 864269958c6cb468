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
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/backends"
	"github.com/listkeeper/listkeeper/internal/backends/backend"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/netfence"
	"github.com/listkeeper/listkeeper/internal/stores"
)

// Config is a list's configuration, resolved: where its document is and
// how to reach it (URL, headers, credentials, TLS), and the document's
// identity. It never shows the raw URL, which may carry a token.
type Config struct {
	stamp    string              // what it was resolved from (see Resolver.stamp)
	rawURL   string              // may carry a token: never printed
	shownURL string              // what status.redactedURL shows of it
	opts     []etagclient.Option // the list's own client options
	hash     string              // identifies rawURL and opts
	document string              // DocumentID of the document
	claim    string              // document and items pointer
	// spell spells an entry's ID as the list keeps it (a CIDR in an IP
	// set); nil keeps IDs as they are.
	spell func(string) string
}

// Document is the DocumentID of the list's document (status.documentID).
func (c *Config) Document() string { return c.document }

// Claim is what the list's claim is on: its document and what its kind
// says the claim is on beside it (ClaimKey).
func (c *Config) Claim() string { return c.claim }

// ShownURL is what status.redactedURL shows of the list's URL.
func (c *Config) ShownURL() string { return c.shownURL }

// Spell spells an entry's ID as the list keeps it (an IP set keeps CIDR
// blocks); nil when the list keeps IDs as they are.
func (c *Config) Spell() func(string) string { return c.spell }

// Resolver turns lists into Configs. It reads Secrets from the API server
// (the cache holds only their metadata), and only when the list or one of
// its Secrets changed: a list's configuration is kept with a stamp of what
// it was resolved from. Its fields are set before first use; it is safe
// for concurrent use.
type Resolver struct {
	// Cached reads Secret metadata, to notice a changed Secret cheaply.
	Cached client.Reader
	// Live reads Secret data.
	Live client.Reader
	// AllowedHosts is the parsed --allowed-hosts; when not empty, a list
	// whose URL's host and port match no entry is refused
	// (HostNotAllowed). Where the host resolves to is the dial fence's.
	AllowedHosts *netfence.Allowlist
	// ClusterNamespace is where the Secrets of ClusterExternalLists live.
	ClusterNamespace string
	// Stores is the store credentials policy; whether a list may use the
	// operator's own identity is ClusterAmbient for ClusterExternalLists
	// and NamespacedAmbient for ExternalLists, set per list.
	Stores                            stores.Policy
	ClusterAmbient, NamespacedAmbient bool
	// SecretsByGet says the operator may only get Secrets, not watch
	// them: a list's Secrets are read again every SecretRefresh, instead
	// of when the watch says they changed.
	SecretsByGet  bool
	SecretRefresh time.Duration

	mu     sync.Mutex
	byList map[Ref]*Config
}

// resolve returns l's configuration, from what it last resolved when
// neither l nor its Secrets changed since.
func (r *Resolver) resolve(ctx context.Context, l v1alpha1.List) (*Config, error) {
	stamp, err := r.stamp(ctx, l)
	if err != nil {
		return nil, err
	}
	ref := RefOf(l)
	r.mu.Lock()
	cfg, ok := r.byList[ref]
	r.mu.Unlock()
	if ok && cfg.stamp == stamp {
		return cfg, nil
	}
	if cfg, err = r.build(ctx, l); err != nil {
		return nil, err
	}
	cfg.stamp = stamp
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byList == nil {
		r.byList = map[Ref]*Config{}
	}
	r.byList[ref] = cfg
	return cfg, nil
}

// forget drops what was resolved for a list that is gone.
func (r *Resolver) forget(ref Ref) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.byList, ref)
}

// stamp identifies what a list's configuration is resolved from: the
// list's UID and generation, and the resourceVersion of every Secret it
// reads, so a rotated Secret is picked up without a restart.
func (r *Resolver) stamp(ctx context.Context, l v1alpha1.List) (string, error) {
	st := fmt.Sprintf("%s/%d", l.GetUID(), l.GetGeneration())
	if r.SecretsByGet {
		if len(l.ListSpec().SecretNames()) == 0 {
			return st, nil
		}
		// Without a watch, the Secrets are read again every
		// SecretRefresh.
		return fmt.Sprintf("%s/t%d", st, time.Now().UnixNano()/int64(r.SecretRefresh)), nil
	}
	ns := SecretNamespace(l, r.ClusterNamespace)
	for _, name := range l.ListSpec().SecretNames() {
		meta := &metav1.PartialObjectMetadata{}
		meta.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Secret"))
		if err := r.Cached.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, meta); err != nil {
			return "", secretError(name, err)
		}
		st += "/" + meta.ResourceVersion
	}
	return st, nil
}

// build reads what l needs (its URL, Secret headers, store credentials,
// CA bundle) and checks it: the kind that keeps it (backends.For), the
// endpoint against AllowedHosts and secrets against plain http
// (backends.Check), the items pointer.
func (r *Resolver) build(ctx context.Context, l v1alpha1.List) (*Config, error) {
	spec := l.ListSpec()
	ns := SecretNamespace(l, r.ClusterNamespace)
	list := backend.List{Spec: spec}
	kind := backends.For(list)
	if kind.BehindURL() {
		// The URL may say more of the kind (an Azure SAS in its query).
		rawURL, err := r.listURL(ctx, spec, ns)
		if err != nil {
			return nil, err
		}
		list.RawURL, list.URL = rawURL, backend.ParseURL(rawURL)
		kind = backends.For(list)
	}
	loc := kind.Locate(list)
	if err := backends.Check(kind, list, loc, r.AllowedHosts); err != nil {
		return nil, storeError(l, err)
	}
	if kind.BehindURL() {
		if _, err := etagclient.ParsePointer(spec.ItemsPointer); err != nil {
			return nil, &ConfigError{Reason: v1alpha1.ReasonInvalidSpec, Msg: "spec.itemsPointer: " + err.Error()}
		}
	}
	doc := DocumentID(loc.Document)
	cfg := &Config{rawURL: loc.Client, shownURL: loc.Shown, document: doc, claim: backends.ClaimKey(doc, spec)}
	if n, ok := kind.(etagclient.ItemNormalizer); ok {
		cfg.spell = n.NormalizeItem
	}

	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00", kind.Name(), loc.Client, loc.Endpoint, spec.CABundle)
	cfg.opts = []etagclient.Option{etagclient.WithShownURL(cfg.shownURL)}
	if kind.BehindURL() {
		fmt.Fprintf(h, "%s\x00%t\x00", spec.ItemsPointer, spec.CreateIfMissing)
		cfg.opts = append(cfg.opts, etagclient.WithItemsPointer(spec.ItemsPointer), etagclient.WithCreateIfMissing(spec.CreateIfMissing))
		opts, err := r.headers(ctx, spec, ns, h)
		if err != nil {
			return nil, err
		}
		cfg.opts = append(cfg.opts, opts...)
	}
	built, err := kind.Build(ctx, list, backend.Deps{Secret: r.secretData(ns), Policy: r.policy(l)})
	if err != nil {
		return nil, storeError(l, err)
	}
	if built.Fingerprint != "" {
		fmt.Fprintf(h, "auth\x00%s\x00", built.Fingerprint)
	}
	cfg.opts = append(cfg.opts, built.Options...)
	if cfg.opts, err = withCABundle(cfg.opts, spec); err != nil {
		return nil, err
	}
	cfg.hash = hex.EncodeToString(h.Sum(nil))
	return cfg, nil
}

// headers returns the option of the headers of spec.headersFrom's Secret
// (in namespace), if the list names one, and writes them to h.
func (r *Resolver) headers(ctx context.Context, spec *v1alpha1.ExternalListSpec, namespace string, h io.Writer) ([]etagclient.Option, error) {
	name := spec.HeadersSecretName()
	if name == "" {
		return nil, nil
	}
	secret, err := r.secret(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	headers, err := headersFrom(secret)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(headers))
	for k := range headers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(h, "%s\x00%s\x00", k, headers.Get(k))
	}
	return []etagclient.Option{etagclient.WithHeaders(headers)}, nil
}

// withCABundle adds to opts the TLS settings of spec.caBundle, when the
// list names one: its certificates are the only roots trusted.
func withCABundle(opts []etagclient.Option, spec *v1alpha1.ExternalListSpec) ([]etagclient.Option, error) {
	if spec.CABundle == "" {
		return opts, nil
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM([]byte(spec.CABundle)) {
		return nil, &ConfigError{Reason: v1alpha1.ReasonInvalidSpec, Msg: "spec.caBundle holds no PEM certificate"}
	}
	return append(opts, etagclient.WithTLSConfig(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12})), nil
}

// policy is the store credentials policy of l: the operator's own
// identity (ambient credentials) only for the kinds of list the flags
// allow it for.
func (r *Resolver) policy(l v1alpha1.List) stores.Policy {
	p := r.Stores
	p.Ambient = r.NamespacedAmbient
	if l.ListKind() == v1alpha1.ListKindClusterExternalList {
		p.Ambient = r.ClusterAmbient
	}
	return p
}

// ambientMessage says why l may not use the operator's own identity.
func ambientMessage(l v1alpha1.List, err error) string {
	if l.ListKind() == v1alpha1.ListKindClusterExternalList {
		return err.Error() + ": spec.auth names no Secret, and ClusterExternalLists may not use the operator's own identity (--cluster-ambient-credentials=false) for this host; name a Secret, or ask the operator's administrator to add the host to --ambient-credentials-hosts"
	}
	return err.Error() + ": spec.auth names no Secret, and an ExternalList may not use the operator's own cloud identity (--namespaced-ambient-credentials=false); name a Secret with credentials of your own, or use a ClusterExternalList your administrator made"
}

// listURL returns the list's URL: spec.url, or the value of urlFrom's
// Secret key (in namespace). It is never printed; errors name the Secret
// and key only.
func (r *Resolver) listURL(ctx context.Context, spec *v1alpha1.ExternalListSpec, namespace string) (string, error) {
	if spec.URLFrom == nil {
		return spec.URL, nil
	}
	ref := spec.URLFrom.SecretKeyRef
	secret, err := r.secret(ctx, namespace, ref.Name)
	if err != nil {
		return "", err
	}
	v, ok := secret.Data[ref.Key]
	if !ok {
		return "", &ConfigError{Reason: v1alpha1.ReasonSecretNotFound, Msg: fmt.Sprintf("secret %q has no key %q", ref.Name, ref.Key)}
	}
	return strings.TrimSpace(string(v)), nil
}

// secretData reads Secrets of namespace from the API server (the cache
// holds only their metadata).
func (r *Resolver) secretData(namespace string) stores.SecretFunc {
	return func(ctx context.Context, name string) (map[string][]byte, error) {
		secret, err := r.secret(ctx, namespace, name)
		if err != nil {
			return nil, err
		}
		return secret.Data, nil
	}
}

// secret reads a Secret from the API server (the cache holds only Secrets'
// metadata); a missing one is a SecretNotFound ConfigError.
func (r *Resolver) secret(ctx context.Context, namespace, name string) (*corev1.Secret, error) {
	secret := &corev1.Secret{}
	if err := r.Live.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, secret); err != nil {
		return nil, secretError(name, err)
	}
	return secret, nil
}

// headersFrom turns a Secret's keys into request headers. Values are never
// printed: an invalid one is reported by key only.
func headersFrom(s *corev1.Secret) (http.Header, error) {
	h := http.Header{}
	for k, v := range s.Data {
		val := strings.TrimSpace(string(v))
		if !validHeaderName(k) || !validHeaderValue(val) {
			return nil, &ConfigError{Reason: v1alpha1.ReasonInvalidSpec,
				Msg: fmt.Sprintf("secret %q key %q is not a valid HTTP header", s.Name, k)}
		}
		if _, reserved := protocolHeaders[http.CanonicalHeaderKey(k)]; reserved {
			return nil, &ConfigError{Reason: v1alpha1.ReasonInvalidSpec,
				Msg: fmt.Sprintf("secret %q key %q would override a header the list protocol sets itself", s.Name, k)}
		}
		h.Set(k, val)
	}
	return h, nil
}

// validHeaderValue reports whether v is a valid field value (RFC 9110
// section 5.5): no control characters but horizontal tab. Any other one
// would make every request fail in net/http, reported as ListUnreachable
// instead of InvalidSpec.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if b := v[i]; (b < 0x20 && b != '\t') || b == 0x7f {
			return false
		}
	}
	return true
}

// protocolHeaders are set by the ETag client for the protocol to work; a
// Secret must not override them.
var protocolHeaders = map[string]struct{}{
	"If-Match": {}, "If-None-Match": {}, "Content-Type": {}, "Content-Length": {},
	"Accept": {}, "Host": {}, "Transfer-Encoding": {}, "Connection": {},
}

func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range k {
		if c > 0x7e || c <= 0x20 || strings.ContainsRune("()<>@,;:\\\"/[]?={}", c) {
			return false
		}
	}
	return true
}

// SecretNamespace is where a list's Secrets live: an ExternalList's own
// namespace, or clusterNamespace for a ClusterExternalList.
func SecretNamespace(l v1alpha1.List, clusterNamespace string) string {
	if l.ListKind() == v1alpha1.ListKindClusterExternalList {
		return clusterNamespace
	}
	return l.GetNamespace()
}
