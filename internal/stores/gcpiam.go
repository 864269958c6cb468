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
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	crm "google.golang.org/api/cloudresourcemanager/v3"
	"google.golang.org/api/option"
	storage "google.golang.org/api/storage/v1"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// iamScope is what a list kept in an IAM policy needs: getIamPolicy and
// setIamPolicy of Resource Manager and of Cloud Storage both take
// cloud-platform (Cloud Storage's devstorage scopes do not cover bucket
// policies for every caller).
const iamScope = "https://www.googleapis.com/auth/cloud-platform"

// ErrInsecureEndpoint is wrapped by the error of a spec.gcpIAM.endpoint
// over plain http without spec.allowInsecureHTTP: the tokens would travel
// in clear text. It wraps ErrSpec.
var ErrInsecureEndpoint = fmt.Errorf("%w: spec.gcpIAM.endpoint is plain http, which would carry the list's tokens in clear text: use https, or set spec.allowInsecureHTTP for a test or loopback server", ErrSpec)

// GCPIAMBackend returns the backend of a list kept as the members of b.Role's unconditional binding in
// the IAM policy of b.Resource, with tokens from auth (a service-account key Secret, or within policy the
// operator's own Application Default Credentials), and a fingerprint of those credentials.
// allowInsecureHTTP permits an http endpoint.
//
// Projects, folders and organizations are read and written through Cloud
// Resource Manager v3, buckets through the Cloud Storage JSON API, with
// Google's client libraries for Go, over the HTTP client the engine lends
// (BackendEnv.HTTPClient: its fence, timeouts and observer see every
// request), with a bearer token added on top. The endpoint is
// b.Endpoint, or the resource's API's default
// (https://cloudresourcemanager.googleapis.com/,
// https://storage.googleapis.com/): the API's root, under which Cloud
// Storage's calls go to storage/v1/.
//
// A list that names no Secret gets the operator's own Application Default
// Credentials only when policy allows ambient credentials and the
// endpoint is one of the two default hosts over https or one of
// policy.AmbientHosts (checked again for every request); otherwise
// ErrAmbientNotAllowed, before anything is loaded. A spec that cannot
// work (nil auth, a resource that is not a project, folder, organization
// or bucket, an http endpoint without allowInsecureHTTP, a bad key) is an
// ErrSpec error. Nothing is sent before the engine reads.
//
// The backend reads with getIamPolicy for policy version 3, so that
// conditional bindings are seen, and writes with setIamPolicy carrying
// the etag of the read and everything else of the policy as read (see
// withMembers); it implements etagclient.ItemChecker (CheckIAMMember).
func GCPIAMBackend(ctx context.Context, b *v1alpha1.GCPIAMBinding, auth *v1alpha1.GCPAuth, secret SecretFunc, policy Policy, allowInsecureHTTP bool) (etagclient.BackendFactory, string, error) {
	if b == nil {
		return nil, "", fmt.Errorf("%w: spec.gcpIAM is missing", ErrSpec)
	}
	if auth == nil {
		return nil, "", fmt.Errorf("%w: spec.gcpIAM needs spec.auth.gcp", ErrSpec)
	}
	res, err := parseIAMResource(b.Resource)
	if err != nil {
		return nil, "", err
	}
	if b.Role == "" {
		return nil, "", fmt.Errorf("%w: spec.gcpIAM.role is empty", ErrSpec)
	}
	root, err := iamEndpoint(b.Endpoint, res.api, allowInsecureHTTP)
	if err != nil {
		return nil, "", err
	}
	signer, fp, err := googleSigner(ctx, auth, secret, policy, googleAccess{
		scope: iamScope, rawURL: root.String(), fingerprint: "gcpiam",
		endpoints: "Resource Manager and Cloud Storage (cloudresourcemanager.googleapis.com, storage.googleapis.com) over https",
		endpoint:  gcpIAMEndpoint,
	})
	if err != nil {
		return nil, "", err
	}
	role, base := b.Role, root.String()
	factory := func(env etagclient.BackendEnv) (etagclient.Backend, error) {
		return newIAMBackend(env, res, role, base, signer)
	}
	return factory, fp, nil
}

// iamResource is a resource whose policy holds a list: which API serves it
// and the name that API takes (projects/P, folders/F, organizations/O, or
// a bucket's name).
type iamResource struct {
	api  iamAPIKind
	name string
}

// iamAPIKind is the API and collection of a resource.
type iamAPIKind int

const (
	iamProjects iamAPIKind = iota
	iamFolders
	iamOrganizations
	iamBuckets
)

// parseIAMResource parses a full resource name:
// //cloudresourcemanager.googleapis.com/{projects|folders|organizations}/ID
// or //storage.googleapis.com/projects/_/buckets/BUCKET. The resource is
// the user's own text, but it is not repeated: an error says what shape
// it must have.
func parseIAMResource(full string) (iamResource, error) {
	bad := fmt.Errorf("%w: spec.gcpIAM.resource must be //cloudresourcemanager.googleapis.com/projects/P (or folders/F, organizations/O) or //storage.googleapis.com/projects/_/buckets/B", ErrSpec)
	if rest, ok := strings.CutPrefix(full, "//"+resourceManagerHost+"/"); ok {
		kind, id, ok := strings.Cut(rest, "/")
		if !ok || !validResourceID(id) {
			return iamResource{}, bad
		}
		switch kind {
		case "projects":
			return iamResource{api: iamProjects, name: rest}, nil
		case "folders":
			return iamResource{api: iamFolders, name: rest}, nil
		case "organizations":
			return iamResource{api: iamOrganizations, name: rest}, nil
		}
		return iamResource{}, bad
	}
	if bucket, ok := strings.CutPrefix(full, "//"+storageHost+"/projects/_/buckets/"); ok && validResourceID(bucket) {
		return iamResource{api: iamBuckets, name: bucket}, nil
	}
	return iamResource{}, bad
}

// validResourceID reports whether id can be one path segment of a
// resource name: letters, digits and ._:- (the CRD's pattern).
func validResourceID(id string) bool {
	return id != "" && strings.Trim(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:-") == ""
}

// iamEndpoint returns the root URL of the API of kind: raw, or the API's
// default host over https. raw must be an absolute http or https URL
// without user info, query or fragment, and https unless
// allowInsecureHTTP.
func iamEndpoint(raw string, kind iamAPIKind, allowInsecureHTTP bool) (*url.URL, error) {
	if raw == "" {
		host := resourceManagerHost
		if kind == iamBuckets {
			host = storageHost
		}
		return &url.URL{Scheme: "https", Host: host, Path: "/"}, nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.Opaque != "" {
		return nil, fmt.Errorf("%w: spec.gcpIAM.endpoint must be an absolute http or https URL without user info, query or fragment", ErrSpec)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	switch {
	case u.Scheme == "http" && !allowInsecureHTTP:
		return nil, ErrInsecureEndpoint
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("%w: spec.gcpIAM.endpoint must be an http or https URL", ErrSpec)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u, nil
}

// iamBackend keeps a list as the members of role's unconditional binding
// in one resource's policy (see GCPIAMBackend). It is used by one cycle at
// a time; Close may be called from another goroutine.
type iamBackend struct {
	env  etagclient.BackendEnv
	role string
	api  iamAPI
}

var (
	_ etagclient.Backend     = (*iamBackend)(nil)
	_ etagclient.ItemChecker = (*iamBackend)(nil)
)

// iamAPI is the getIamPolicy and setIamPolicy of one resource.
type iamAPI interface {
	get(ctx context.Context) (*iamPolicy, error)
	set(ctx context.Context, p *iamPolicy) (*iamPolicy, error)
}

// newIAMBackend builds the Google service for res over env's HTTP client,
// with signer's tokens on top.
func newIAMBackend(env etagclient.BackendEnv, res iamResource, role, root string, signer etagclient.Signer) (*iamBackend, error) {
	if env.HTTPClient == nil {
		return nil, errors.New("gcpIAM backend: the engine lent no HTTP client")
	}
	hc := *env.HTTPClient // its timeout and redirect policy stay
	hc.Transport = &iamTransport{signer: signer, next: transportOf(env.HTTPClient), maxBody: env.MaxBodyBytes}
	opts := []option.ClientOption{option.WithHTTPClient(&hc)}
	// The services are built without a request; a context that ends
	// would not stop anything.
	ctx := context.Background()
	var api iamAPI
	switch res.api {
	case iamBuckets:
		svc, err := storage.NewService(ctx, append(opts, option.WithEndpoint(root+"storage/v1/"))...)
		if err != nil {
			return nil, fmt.Errorf("%w: Cloud Storage client: %w", ErrSpec, err)
		}
		api = &bucketPolicy{svc: svc, bucket: res.name}
	default:
		svc, err := crm.NewService(ctx, append(opts, option.WithEndpoint(root))...)
		if err != nil {
			return nil, fmt.Errorf("%w: Resource Manager client: %w", ErrSpec, err)
		}
		api = &crmPolicy{svc: svc, kind: res.api, name: res.name}
	}
	return &iamBackend{env: env, role: role, api: api}, nil
}

// transportOf returns c's transport, or the default one.
func transportOf(c *http.Client) http.RoundTripper {
	if c.Transport != nil {
		return c.Transport
	}
	return http.DefaultTransport
}

// Read implements etagclient.Backend: the members of the role's
// unconditional bindings, with the policy's etag as the version's Tag and
// the whole policy as its Data. A policy always exists, so the list is
// never Absent; no binding is an empty list. IAM has no conditional read,
// so have is not used.
func (b *iamBackend) Read(ctx context.Context, _ etagclient.Version) (etagclient.ReadAnswer, error) {
	ctx, ans := withAnswer(ctx)
	p, err := b.api.get(ctx)
	if err != nil {
		return etagclient.ReadAnswer{}, b.readError(err, ans)
	}
	if p.Etag == "" {
		return etagclient.ReadAnswer{}, fmt.Errorf("read %s: %w: the policy carried no etag, and a write without one would overwrite any change made since", b.env.ShownURL, etagclient.ErrUnsafeServer)
	}
	// The item limit bounds what a read costs, and the whole policy is
	// kept (it is the version a write carries back): the members of other
	// roles count too, or a policy of a few members of this role and
	// hundreds of thousands of others would pass it.
	if n := p.memberCount(); b.env.MaxItems > 0 && n > b.env.MaxItems {
		return etagclient.ReadAnswer{}, fmt.Errorf("read %s: %w: the policy names %d members across all its bindings, more than %d, the limit (--max-items raises it)", b.env.ShownURL, etagclient.ErrTooManyItems, n, b.env.MaxItems)
	}
	doc, err := b.document(membersOf(p, b.role))
	if err != nil {
		return etagclient.ReadAnswer{}, fmt.Errorf("read %s: %w", b.env.ShownURL, err)
	}
	return etagclient.ReadAnswer{Doc: doc, Version: etagclient.Version{Tag: p.Etag, Data: p}}, nil
}

// document is the list of members as a Document, within the item limit.
func (b *iamBackend) document(members []string) (*etagclient.Document, error) {
	if b.env.MaxItems > 0 && len(members) > b.env.MaxItems {
		return nil, fmt.Errorf("%w: the binding has %d members, more than %d, the limit", etagclient.ErrTooManyItems, len(members), b.env.MaxItems)
	}
	doc, err := etagclient.NewDocument(nil)
	if err != nil {
		return nil, err
	}
	doc, err = doc.WithItems(members)
	if err != nil {
		return nil, fmt.Errorf("%w: the members cannot be a list: %w", etagclient.ErrInvalidDocument, err)
	}
	return doc, nil
}

// Write implements etagclient.Backend: setIamPolicy of the policy read
// (base.Data) with the role's unconditional binding set to next's items,
// conditional on the etag read. A policy always exists, so create is
// refused. A write that another one beat (409 ABORTED, Cloud Storage's 412
// conditionNotMet) is lost; one that got no answer, or a gateway's 502 or
// 504, is unknown.
func (b *iamBackend) Write(ctx context.Context, next *etagclient.Document, create bool, base etagclient.Version) (etagclient.WriteAnswer, error) {
	if create {
		return etagclient.WriteAnswer{}, fmt.Errorf("write %s: %w: an IAM policy always exists and is never created", b.env.ShownURL, etagclient.ErrRejected)
	}
	read, ok := base.Data.(*iamPolicy)
	if !ok || read == nil || read.Etag == "" {
		return etagclient.WriteAnswer{}, fmt.Errorf("write %s: %w: a policy is written only after it was read", b.env.ShownURL, etagclient.ErrRejected)
	}
	sent := withMembers(read, b.role, next.Items())
	ctx, ans := withAnswer(ctx)
	got, err := b.api.set(ctx, sent)
	if err != nil {
		return b.writeOutcome(ctx, err, ans)
	}
	out := etagclient.WriteAnswer{Outcome: etagclient.WriteCommitted}
	// The answer becomes the base of the next write only when it is
	// whole: with an etag, the conditions the written policy had, and
	// members that make a list; otherwise the next change reads first.
	whole := got.Etag != "" && (!sent.hasConditions() || (got.hasConditions() && got.Version >= 3))
	if stored := membersOf(got, b.role); !slices.Equal(stored, next.Items()) {
		out.Stored = b.storedDocument(stored)
		whole = whole && out.Stored != nil
	}
	if whole {
		out.Version = etagclient.Version{Tag: got.Etag, Data: got}
	}
	return out, nil
}

// storedDocument is the list the API says it stored, when it differs
// from what was sent; nil when it cannot be a list (over the item limit).
func (b *iamBackend) storedDocument(members []string) *etagclient.Document {
	doc, err := b.document(members)
	if err != nil {
		return nil
	}
	return doc
}

// ReadCost implements etagclient.ReadCoster: the Google API client
// decodes a whole policy into its types.
func (b *iamBackend) ReadCost() int64 { return etagclient.SDKReadCostFactor }

// Close implements etagclient.Backend. The services hold nothing of their
// own: the engine closes the connections of the client it lent.
func (b *iamBackend) Close() {}

// CheckItem implements etagclient.ItemChecker: see CheckIAMMember.
func (b *iamBackend) CheckItem(id string) error { return CheckIAMMember(id) }

// crmPolicy is the policy of a project, folder or organization, through
// Resource Manager v3.
type crmPolicy struct {
	svc  *crm.Service
	kind iamAPIKind
	name string
}

func (c *crmPolicy) get(ctx context.Context) (*iamPolicy, error) {
	req := &crm.GetIamPolicyRequest{Options: &crm.GetPolicyOptions{RequestedPolicyVersion: 3}}
	var p *crm.Policy
	var err error
	switch c.kind {
	case iamFolders:
		p, err = c.svc.Folders.GetIamPolicy(c.name, req).Context(ctx).Do()
	case iamOrganizations:
		p, err = c.svc.Organizations.GetIamPolicy(c.name, req).Context(ctx).Do()
	default:
		p, err = c.svc.Projects.GetIamPolicy(c.name, req).Context(ctx).Do()
	}
	if err != nil {
		return nil, err
	}
	return fromCRM(p), nil
}

// set writes p with no update mask: IAM then writes "bindings, etag"
// only, so the audit configs stay as they are on the server whatever the
// request carries (it carries them as read).
func (c *crmPolicy) set(ctx context.Context, p *iamPolicy) (*iamPolicy, error) {
	req := &crm.SetIamPolicyRequest{Policy: toCRM(p)}
	var out *crm.Policy
	var err error
	switch c.kind {
	case iamFolders:
		out, err = c.svc.Folders.SetIamPolicy(c.name, req).Context(ctx).Do()
	case iamOrganizations:
		out, err = c.svc.Organizations.SetIamPolicy(c.name, req).Context(ctx).Do()
	default:
		out, err = c.svc.Projects.SetIamPolicy(c.name, req).Context(ctx).Do()
	}
	if err != nil {
		return nil, err
	}
	return fromCRM(out), nil
}

// bucketPolicy is the policy of a bucket, through the Cloud Storage JSON
// API.
type bucketPolicy struct {
	svc    *storage.Service
	bucket string
}

func (s *bucketPolicy) get(ctx context.Context) (*iamPolicy, error) {
	p, err := s.svc.Buckets.GetIamPolicy(s.bucket).OptionsRequestedPolicyVersion(3).Context(ctx).Do()
	if err != nil {
		return nil, err
	}
	return fromStorage(p), nil
}

func (s *bucketPolicy) set(ctx context.Context, p *iamPolicy) (*iamPolicy, error) {
	out, err := s.svc.Buckets.SetIamPolicy(s.bucket, toStorage(p)).Context(ctx).Do()
	if err != nil {
		return nil, err
	}
	return fromStorage(out), nil
}

// GCPIAMDocument returns the identity of the IAM policy b names: its
// resource, whatever endpoint reaches it (any host of googleapis.com). An
// endpoint elsewhere (a test server, a proxy) is another service, whose
// canonical scheme, host and port join the identity. The role is no part
// of it: two roles of one policy are two claims on one document.
func GCPIAMDocument(b *v1alpha1.GCPIAMBinding) string {
	return "gcpiam:" + strings.TrimPrefix(b.Resource, "//") + foreignEndpoint(b.Endpoint, googleOwnHost)
}

// googleOwnHost reports whether host is one of Google's APIs'.
func googleOwnHost(host string) bool { return strings.HasSuffix(host, ".googleapis.com") }
