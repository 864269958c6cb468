package controller

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/stores"
)

// ListClients keeps one combining ETag client per list configuration (URL,
// items pointer, headers, CA bundle, creation) per process, so every worker
// that changes a list shares its cycles and its cached ETag. It is safe for
// concurrent use.
type ListClients struct {
	// Cached reads Secret metadata, to notice a changed Secret cheaply.
	Cached client.Reader
	// Live reads Secret data when a client must be (re)built.
	Live client.Reader
	// Options are passed to every client (observer, timeouts, backoff).
	Options []etagclient.Option
	// AllowedHosts, when not empty, are path.Match patterns; a list whose
	// URL host (with or without port) matches none is refused.
	AllowedHosts []string
	// Audit, when set, logs every committed write of every client.
	Audit *Audit

	mu     sync.Mutex
	byKey  map[string]*sharedClient
	byList map[types.NamespacedName]*listBinding
}

type sharedClient struct {
	client *etagclient.Client
	users  int
}

// listBinding remembers which client an ExternalList resolved to, and from
// what (UID, generation, Secret resourceVersion), so an unchanged list costs
// no Secret read.
type listBinding struct {
	stamp string
	key   string
}

// configError is a list configuration that cannot work until someone fixes
// it; reason is the condition reason to report.
type configError struct {
	reason string
	msg    string
}

func (e *configError) Error() string { return e.msg }

// For returns the client for xl's current configuration.
func (r *ListClients) For(ctx context.Context, xl *v1alpha1.ExternalList) (*etagclient.Client, string, error) {
	stamp, err := r.stamp(ctx, xl)
	if err != nil {
		return nil, "", err
	}
	name := types.NamespacedName{Namespace: xl.Namespace, Name: xl.Name}
	r.mu.Lock()
	if b, ok := r.byList[name]; ok && b.stamp == stamp {
		c := r.byKey[b.key].client
		r.mu.Unlock()
		return c, b.key, nil
	}
	r.mu.Unlock()

	rawURL, opts, key, err := r.resolve(ctx, xl)
	if err != nil {
		return nil, "", err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byKey == nil {
		r.byKey = map[string]*sharedClient{}
		r.byList = map[types.NamespacedName]*listBinding{}
	}
	sc, ok := r.byKey[key]
	if !ok {
		c, err := etagclient.New(rawURL, append(append(append([]etagclient.Option(nil), r.Options...), opts...), r.Audit.option(xl))...)
		if err != nil {
			return nil, "", &configError{reason: v1alpha1.ReasonInvalidSpec, msg: err.Error()}
		}
		sc = &sharedClient{client: c}
		r.byKey[key] = sc
	}
	if old, ok := r.byList[name]; !ok || old.key != key {
		sc.users++
		if ok {
			r.release(old.key)
		}
	}
	r.byList[name] = &listBinding{stamp: stamp, key: key}
	return sc.client, key, nil
}

// Forget releases the client of a deleted ExternalList.
func (r *ListClients) Forget(name types.NamespacedName) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if b, ok := r.byList[name]; ok {
		delete(r.byList, name)
		r.release(b.key)
	}
}

// Close closes every client.
func (r *ListClients) Close() {
	r.mu.Lock()
	clients := r.byKey
	r.byKey, r.byList = nil, nil
	r.mu.Unlock()
	for _, sc := range clients {
		sc.client.Close()
	}
}

// release drops one user of key; the last one closes the client (in the
// background: Close waits for the cycle in flight). r.mu is held.
func (r *ListClients) release(key string) {
	sc, ok := r.byKey[key]
	if !ok {
		return
	}
	if sc.users--; sc.users <= 0 {
		delete(r.byKey, key)
		go sc.client.Close()
	}
}

// stamp identifies what a list's client was built from: the list's UID and
// generation, and the resourceVersion of every Secret it reads, so a
// rotated Secret is picked up without a restart.
func (r *ListClients) stamp(ctx context.Context, xl *v1alpha1.ExternalList) (string, error) {
	st := fmt.Sprintf("%s/%d", xl.UID, xl.Generation)
	for _, name := range xl.SecretNames() {
		meta := &metav1.PartialObjectMetadata{}
		meta.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Secret"))
		if err := r.Cached.Get(ctx, types.NamespacedName{Namespace: xl.Namespace, Name: name}, meta); err != nil {
			return "", secretError(name, err)
		}
		st += "/" + meta.ResourceVersion
	}
	return st, nil
}

// listURL returns the list's URL: spec.url, or the value of urlFrom's
// Secret key. It is never printed; errors name the Secret and key only.
func (r *ListClients) listURL(ctx context.Context, xl *v1alpha1.ExternalList) (string, error) {
	if xl.Spec.URLFrom == nil {
		return xl.Spec.URL, nil
	}
	ref := xl.Spec.URLFrom.SecretKeyRef
	secret, err := r.secret(ctx, xl.Namespace, ref.Name)
	if err != nil {
		return "", err
	}
	v, ok := secret.Data[ref.Key]
	if !ok {
		return "", &configError{reason: v1alpha1.ReasonSecretNotFound, msg: fmt.Sprintf("secret %q has no key %q", ref.Name, ref.Key)}
	}
	return strings.TrimSpace(string(v)), nil
}

func secretError(name string, err error) error {
	if apierrors.IsNotFound(err) {
		return &configError{reason: v1alpha1.ReasonSecretNotFound, msg: fmt.Sprintf("secret %q not found", name)}
	}
	return fmt.Errorf("get secret %q: %w", name, err)
}

// resolve reads what xl needs (Secret headers, CA bundle), checks the host
// against AllowedHosts, and returns the client options and the key that
// identifies them.
func (r *ListClients) resolve(ctx context.Context, xl *v1alpha1.ExternalList) (string, []etagclient.Option, string, error) {
	rawURL, err := r.listURL(ctx, xl)
	if err != nil {
		return "", nil, "", err
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		what := "spec.url"
		if xl.Spec.URLFrom != nil {
			what = fmt.Sprintf("the URL in secret %q key %q", xl.Spec.URLFrom.SecretKeyRef.Name, xl.Spec.URLFrom.SecretKeyRef.Key)
		}
		return "", nil, "", &configError{reason: v1alpha1.ReasonInvalidSpec, msg: what + " must be an absolute http or https URL"}
	}
	if !hostAllowed(u, r.AllowedHosts) {
		return "", nil, "", &configError{reason: v1alpha1.ReasonHostNotAllowed,
			msg: fmt.Sprintf("host %q is not in the operator's --allowed-hosts", u.Hostname())}
	}
	if err := checkTransport(xl, u); err != nil {
		return "", nil, "", err
	}
	if _, err := etagclient.ParsePointer(xl.Spec.ItemsPointer); err != nil {
		return "", nil, "", &configError{reason: v1alpha1.ReasonInvalidSpec, msg: "spec.itemsPointer: " + err.Error()}
	}

	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%t\x00%s\x00", rawURL, xl.Spec.ItemsPointer, xl.Spec.CreateIfMissing, xl.Spec.CABundle)
	opts := []etagclient.Option{
		etagclient.WithItemsPointer(xl.Spec.ItemsPointer),
		etagclient.WithCreateIfMissing(xl.Spec.CreateIfMissing),
	}
	if name := xl.HeadersSecretName(); name != "" {
		secret, err := r.secret(ctx, xl.Namespace, name)
		if err != nil {
			return "", nil, "", err
		}
		headers, err := headersFrom(secret)
		if err != nil {
			return "", nil, "", err
		}
		keys := make([]string, 0, len(headers))
		for k := range headers {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(h, "%s\x00%s\x00", k, headers.Get(k))
		}
		opts = append(opts, etagclient.WithHeaders(headers))
	}
	if xl.Spec.Auth == nil && stores.IsAzureSAS(u) {
		opts = append(opts, stores.AzureSASOptions()...)
	}
	if xl.Spec.Auth != nil {
		storeOpts, fp, err := stores.Options(ctx, xl.Spec.Auth, rawURL, r.secretData(xl.Namespace))
		if err != nil {
			var cfgErr *configError
			if errors.As(err, &cfgErr) || !errors.Is(err, stores.ErrSpec) {
				return "", nil, "", err
			}
			return "", nil, "", &configError{reason: v1alpha1.ReasonInvalidSpec, msg: err.Error()}
		}
		fmt.Fprintf(h, "auth\x00%s\x00", fp)
		opts = append(opts, storeOpts...)
	}
	if xl.Spec.CABundle != "" {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM([]byte(xl.Spec.CABundle)) {
			return "", nil, "", &configError{reason: v1alpha1.ReasonInvalidSpec, msg: "spec.caBundle holds no PEM certificate"}
		}
		opts = append(opts, etagclient.WithTLSConfig(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}))
	}
	return rawURL, opts, hex.EncodeToString(h.Sum(nil)), nil
}

// checkTransport refuses a list that would send secrets over plain http:
// Secret-sourced headers (headersFrom), store credentials (auth, including
// workload identity and default credentials, whose tokens are as secret)
// or a URL from a Secret (urlFrom, which usually carries a token) need
// https unless spec.allowInsecureHTTP is true. The CRD refuses the cases it
// can see (spec.url with headersFrom or auth); this also covers a urlFrom
// that resolves to http, and objects stored before that rule. It runs
// before any request, so nothing is sent; u is never printed.
func checkTransport(xl *v1alpha1.ExternalList, u *url.URL) error {
	if !strings.EqualFold(u.Scheme, "http") || xl.Spec.AllowInsecureHTTP {
		return nil
	}
	var what []string
	if xl.Spec.HeadersFrom != nil {
		what = append(what, "headers from a Secret (spec.headersFrom)")
	}
	if xl.Spec.Auth != nil {
		what = append(what, "store credentials (spec.auth)")
	}
	if xl.Spec.URLFrom != nil {
		what = append(what, "a URL from a Secret (spec.urlFrom)")
	}
	if len(what) == 0 {
		return nil
	}
	return &configError{reason: v1alpha1.ReasonInsecureTransport, msg: fmt.Sprintf(
		"the list would send %s over plain http: use an https URL, or set spec.allowInsecureHTTP to true for a test or loopback server",
		strings.Join(what, " and "))}
}

// secretData reads Secrets of namespace from the API server (the cache
// holds only their metadata).
func (r *ListClients) secretData(namespace string) stores.SecretFunc {
	return func(ctx context.Context, name string) (map[string][]byte, error) {
		secret, err := r.secret(ctx, namespace, name)
		if err != nil {
			return nil, err
		}
		return secret.Data, nil
	}
}

// secret reads a Secret from the API server (the cache holds only Secrets'
// metadata); a missing one is a SecretNotFound configError.
func (r *ListClients) secret(ctx context.Context, namespace, name string) (*corev1.Secret, error) {
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
			return nil, &configError{reason: v1alpha1.ReasonInvalidSpec,
				msg: fmt.Sprintf("secret %q key %q is not a valid HTTP header", s.Name, k)}
		}
		if _, reserved := protocolHeaders[http.CanonicalHeaderKey(k)]; reserved {
			return nil, &configError{reason: v1alpha1.ReasonInvalidSpec,
				msg: fmt.Sprintf("secret %q key %q would override a header the list protocol sets itself", s.Name, k)}
		}
		h.Set(k, val)
	}
	return h, nil
}

// validHeaderValue reports whether v is a valid field value (RFC 9110
// section 5.5): no control characters but horizontal tab. Fix: only CR, LF
// and NUL were refused; another control character passed here and made
// every request fail in net/http, reported as ListUnreachable instead of
// InvalidSpec.
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

func hostAllowed(u *url.URL, patterns []string) bool {
	if len(patterns) == 0 {
		return true
	}
	for _, p := range patterns {
		if ok, _ := path.Match(p, u.Hostname()); ok {
			return true
		}
		if ok, _ := path.Match(p, u.Host); ok {
			return true
		}
	}
	return false
}
