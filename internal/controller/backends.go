package controller

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/stores"
)

// Lists that are not a JSON document behind a URL: an AWS WAF IP set
// (spec.wafv2) or the members of a role in a Google Cloud IAM policy
// (spec.gcpIAM). Each is read and written by its own backend
// (internal/stores) through the engine's seam; what the controller needs
// of them is here: where they live (a location that names them in status,
// logs and metrics, and never carries a secret), which document they are
// (the unit of ownership), and the checks every list gets (allowed hosts,
// plain http).

// backendLocation returns the location of a list kept by a backend, the
// identity of its document (documentIdentity), and the URL its requests
// go to (for --allowed-hosts and the plain-http rule); ok is false for a
// list behind spec.url or spec.urlFrom.
func backendLocation(spec *v1alpha1.ExternalListSpec) (location, identity string, endpoint *url.URL, ok bool) {
	var override string // spec's endpoint, when it names one
	switch {
	case spec.WAFv2 != nil:
		w := spec.WAFv2
		location = fmt.Sprintf("wafv2://%s/%s/%s/%s", w.Region, w.Scope, w.Name, w.ID)
		endpoint = &url.URL{Scheme: "https", Host: "wafv2." + w.Region + ".amazonaws.com", Path: "/"}
		override = w.Endpoint
	case spec.GCPIAM != nil:
		g := spec.GCPIAM
		res := strings.TrimPrefix(g.Resource, "//")
		location = "gcpiam://" + res + "#" + g.Role
		host := "cloudresourcemanager.googleapis.com"
		if strings.HasPrefix(res, "storage.googleapis.com/") {
			host = "storage.googleapis.com"
		}
		endpoint = &url.URL{Scheme: "https", Host: host, Path: "/"}
		override = g.Endpoint
	default:
		return "", "", nil, false
	}
	if override != "" {
		// An unparsable endpoint has no host, which buildBackend refuses.
		endpoint = &url.URL{}
		if u, err := url.Parse(override); err == nil {
			endpoint = u
		}
	}
	return location, documentIdentity(spec, nil), endpoint, true
}

// backendDocument returns the DocumentID of a list kept by a backend, or
// "" for a list behind a URL.
func backendDocument(spec *v1alpha1.ExternalListSpec) string {
	_, identity, _, ok := backendLocation(spec)
	if !ok {
		return ""
	}
	return DocumentID(identity)
}

// buildBackend resolves a list kept by a backend: its credentials (a
// Secret, or within the tenancy rules the operator's own identity), its
// endpoint checked against --allowed-hosts and plain http.
func (r *resolver) buildBackend(ctx context.Context, l v1alpha1.List) (*listConfig, error) {
	spec := l.ListSpec()
	ns := secretNamespace(l, r.clusterNamespace)
	location, identity, endpoint, _ := backendLocation(spec)
	if endpoint.Host == "" || (endpoint.Scheme != "http" && endpoint.Scheme != "https") {
		return nil, &configError{reason: v1alpha1.ReasonInvalidSpec, msg: "the list's endpoint must be an absolute http or https URL"}
	}
	if !hostAllowed(endpoint, r.allowedHosts) {
		return nil, &configError{reason: v1alpha1.ReasonHostNotAllowed,
			msg: fmt.Sprintf("host %q is not in the operator's --allowed-hosts", endpoint.Hostname())}
	}
	if strings.EqualFold(endpoint.Scheme, "http") && !spec.AllowInsecureHTTP {
		return nil, &configError{reason: v1alpha1.ReasonInsecureTransport, msg: "the list would send store credentials (spec.auth) over plain http: use an https endpoint, or set spec.allowInsecureHTTP to true for a test or loopback server"}
	}
	var (
		factory etagclient.BackendFactory
		fp      string
		err     error
	)
	switch {
	case spec.WAFv2 != nil:
		if spec.Auth == nil || spec.Auth.AWS == nil {
			return nil, &configError{reason: v1alpha1.ReasonInvalidSpec, msg: "spec.wafv2 needs spec.auth.aws"}
		}
		factory, fp, err = stores.WAFv2Backend(ctx, spec.WAFv2, spec.Auth.AWS, r.secretData(ns), r.policy(l), spec.AllowInsecureHTTP)
	default:
		if spec.Auth == nil || spec.Auth.GCP == nil {
			return nil, &configError{reason: v1alpha1.ReasonInvalidSpec, msg: "spec.gcpIAM needs spec.auth.gcp"}
		}
		factory, fp, err = stores.GCPIAMBackend(ctx, spec.GCPIAM, spec.Auth.GCP, r.secretData(ns), r.policy(l), spec.AllowInsecureHTTP)
	}
	if err != nil {
		return nil, storeError(l, err)
	}
	doc := DocumentID(identity)
	cfg := &listConfig{rawURL: location, shownURL: location, document: doc, claim: doc + "\x00" + claimPointer(spec)}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00auth\x00%s\x00", location, endpoint.String(), spec.CABundle, fp)
	cfg.opts = []etagclient.Option{etagclient.WithBackend(factory), etagclient.WithShownURL(location)}
	if spec.WAFv2 != nil {
		cfg.spell = spellCIDR
	}
	if cfg.opts, err = withCABundle(cfg.opts, spec); err != nil {
		return nil, err
	}
	cfg.hash = hex.EncodeToString(h.Sum(nil))
	return cfg, nil
}

// storeError turns an error of internal/stores into the condition it
// shows: a refused ambient identity, a spec that cannot work, or (a
// Secret that cannot be read) the error as it is.
func storeError(l v1alpha1.List, err error) error {
	var cfgErr *configError
	switch {
	case errors.As(err, &cfgErr):
		return err
	case errors.Is(err, stores.ErrAmbientNotAllowed):
		return &configError{reason: v1alpha1.ReasonAmbientCredentialsNotAllowed, msg: ambientMessage(l, err)}
	case errors.Is(err, stores.ErrSpec):
		return &configError{reason: v1alpha1.ReasonInvalidSpec, msg: err.Error()}
	}
	return err
}

// spellCIDR spells an IP address or CIDR block as an IP set keeps it
// ("10.0.0.1" is "10.0.0.1/32"), and any other ID as it is (the set
// refuses it, naming why).
func spellCIDR(id string) string {
	if cidr, err := stores.NormalizeCIDR(id); err == nil {
		return cidr
	}
	return id
}
