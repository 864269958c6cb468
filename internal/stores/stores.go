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
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// SecretFunc returns the data of the named Secret in the list's namespace.
type SecretFunc func(ctx context.Context, name string) (map[string][]byte, error)

// ErrSpec is wrapped by the errors of a spec.auth that cannot work as
// written (a Secret without the keys it needs, a malformed key, a key
// whose token endpoint is not allowed).
var ErrSpec = errors.New("invalid store credentials")

// ErrAmbientNotAllowed is wrapped by the errors of a list that would sign
// with the operator's own identity (spec.auth.aws or spec.auth.gcp without
// a Secret, spec.auth.azure.workloadIdentity) where its Policy does not
// let it: ambient credentials are off for the list, or its URL's host is
// neither one of the provider's endpoints nor one of
// Policy.AmbientHosts. Nothing was loaded, fetched or sent. It does not
// wrap ErrSpec: the spec is valid, the operator does not allow it. Options
// returns it for the list's URL; a signer returns it, wrapped in
// etagclient.ErrUnauthorized, for a request to any other host.
var ErrAmbientNotAllowed = errors.New("ambient credentials not allowed")

// Options returns the client options for auth, and a fingerprint of the
// credentials it read, so that a client is rebuilt when they change. rawURL
// is the list's URL; policy is what the operator lets this list do with
// credentials that are not its own (see Policy). auth must not be nil.
//
// A refused list gets an ErrAmbientNotAllowed error before anything is
// loaded; a spec that cannot work an ErrSpec error; a Secret that cannot
// be read SecretFunc's error. The signer it configures fetches tokens and
// signs under each request's context, and its errors carry no response
// body.
func Options(ctx context.Context, auth *v1alpha1.StoreAuth, rawURL string, secret SecretFunc, policy Policy) ([]etagclient.Option, string, error) {
	switch {
	case auth.AWS != nil:
		return awsOptions(ctx, auth.AWS, rawURL, secret, policy)
	case auth.GCP != nil:
		return gcpOptions(ctx, auth.GCP, rawURL, secret, policy)
	case auth.Azure != nil:
		return azureOptions(ctx, auth.Azure, rawURL, secret, policy)
	default:
		return nil, "", fmt.Errorf("%w: spec.auth names no store", ErrSpec)
	}
}

// keys reads the named keys of a Secret; a missing one is an ErrSpec error
// that names the Secret and the key, never a value.
func keys(ctx context.Context, secret SecretFunc, name string, required []string, optional ...string) (map[string]string, error) {
	data, err := secret(ctx, name)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, k := range required {
		v, ok := data[k]
		if !ok || len(v) == 0 {
			return nil, fmt.Errorf("%w: secret %q has no key %q", ErrSpec, name, k)
		}
		out[k] = string(v)
	}
	for _, k := range optional {
		if v, ok := data[k]; ok {
			out[k] = string(v)
		}
	}
	return out, nil
}

// fingerprint hashes credentials so that a changed Secret yields a new
// client, without keeping the values themselves.
func fingerprint(kind string, vals map[string]string) string {
	ks := make([]string, 0, len(vals))
	for k := range vals {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	h := sha256.New()
	h.Write([]byte(kind))
	for _, k := range ks {
		fmt.Fprintf(h, "\x00%s\x00%s", k, vals[k])
	}
	return hex.EncodeToString(h.Sum(nil))
}
