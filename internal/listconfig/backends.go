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
	"errors"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/backends"
	"github.com/listkeeper/listkeeper/internal/backends/backend"
	"github.com/listkeeper/listkeeper/internal/backends/wafv2"
	"github.com/listkeeper/listkeeper/internal/stores"
)

// BackendDocument returns the DocumentID of a list whose kind is not
// behind a URL (an AWS WAF IP set, an IAM policy's role), or "" for a list
// behind spec.url or spec.urlFrom.
func BackendDocument(spec *v1alpha1.ExternalListSpec) string {
	l := backend.List{Spec: spec}
	if k := backends.For(l); k == nil || k.BehindURL() {
		return ""
	}
	identity, _ := backends.Identity(spec)
	return DocumentID(identity)
}

// storeError turns an error of a kind of backend (internal/backends) into
// the condition it shows: a list the shared checks or the kind refuse, a
// refused ambient identity, a spec that cannot work, or (a Secret that
// cannot be read) the error as it is.
func storeError(l v1alpha1.List, err error) error {
	var (
		cfgErr  *ConfigError
		refusal *backend.Refusal
	)
	switch {
	case errors.As(err, &cfgErr):
		return err
	case errors.As(err, &refusal):
		return &ConfigError{Reason: refusal.Reason, Msg: refusal.Msg}
	case errors.Is(err, stores.ErrAmbientNotAllowed):
		return &ConfigError{Reason: v1alpha1.ReasonAmbientCredentialsNotAllowed, Msg: ambientMessage(l, err)}
	case errors.Is(err, stores.ErrSpec):
		return &ConfigError{Reason: v1alpha1.ReasonInvalidSpec, Msg: err.Error()}
	}
	return err
}

// SpellCIDR spells an IP address or CIDR block as an IP set keeps it
// ("10.0.0.1" is "10.0.0.1/32"), and any other ID as it is. An index that
// spells every list's IDs so, whatever its kind, finds both spellings of
// one address with one lookup.
func SpellCIDR(id string) string { return wafv2.Kind{}.NormalizeItem(id) }
