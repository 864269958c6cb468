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

package controller

import (
	"errors"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/listconfig"
	"github.com/listkeeper/listkeeper/internal/netfence"
	"github.com/listkeeper/listkeeper/internal/stores"
)

// reasonFor maps an error from the ETag client, or from resolving a list's
// configuration, to a condition reason.
func reasonFor(err error) string {
	var cfgErr *listconfig.ConfigError
	switch {
	case errors.As(err, &cfgErr):
		return cfgErr.Reason
	case errors.Is(err, etagclient.ErrMemoryBudget):
		// Transient: the budget frees up as other lists' reads end, and
		// the list is retried with backoff (needsUser says no).
		return v1alpha1.ReasonMemoryBudgetExceeded
	case errors.Is(err, etagclient.ErrNotFound):
		return v1alpha1.ReasonListNotFound
	case errors.Is(err, etagclient.ErrUnsafeServer):
		return v1alpha1.ReasonUnsafeServer
	case errors.Is(err, etagclient.ErrInvalidDocument):
		return v1alpha1.ReasonInvalidDocument
	case errors.Is(err, etagclient.ErrConflictRetriesExhausted):
		return v1alpha1.ReasonConflictRetriesExhausted
	case errors.Is(err, netfence.ErrNotAllowed):
		return v1alpha1.ReasonDestinationNotAllowed
	case errors.Is(err, stores.ErrAmbientNotAllowed):
		return v1alpha1.ReasonAmbientCredentialsNotAllowed
	case errors.Is(err, etagclient.ErrUnauthorized):
		return v1alpha1.ReasonUnauthorized
	case errors.Is(err, etagclient.ErrRejected):
		return v1alpha1.ReasonRejected
	default:
		return v1alpha1.ReasonListUnreachable
	}
}

// losesStanding reports whether a list whose reconcile failed for reason
// has shown it cannot read its document (with its credentials, its
// configuration, or at its items pointer), and so loses its place in the
// claim on it (see listconfig.HasStanding): a failure that needs a change from the
// user (needsUser), but not one of a write (Rejected) nor one the claim
// itself decides (DocumentInUse, NamespaceNotAllowed). A failure that may
// pass by itself (ListUnreachable, MemoryBudgetExceeded,
// ConflictRetriesExhausted) keeps it: a server's bad minute must not move
// a claim.
func losesStanding(reason string) bool {
	switch reason {
	case v1alpha1.ReasonRejected, v1alpha1.ReasonDocumentInUse, v1alpha1.ReasonNamespaceNotAllowed:
		return false
	}
	return needsUser(reason)
}

// needsUser reports whether a failure with this reason can only end with a
// change from the user (a spec, a Secret, the server's configuration or
// its document, another list that holds the claim): it is reported as
// Stalled, which kstatus reads as Failed. Any other reason
// (ListUnreachable, ConflictRetriesExhausted) is transient: the operator
// retries, and reports Reconciling.
func needsUser(reason string) bool {
	switch reason {
	case v1alpha1.ReasonInvalidSpec, v1alpha1.ReasonSecretNotFound, v1alpha1.ReasonHostNotAllowed, v1alpha1.ReasonDestinationNotAllowed,
		v1alpha1.ReasonInsecureTransport, v1alpha1.ReasonUnauthorized, v1alpha1.ReasonRejected,
		v1alpha1.ReasonUnsafeServer, v1alpha1.ReasonInvalidDocument, v1alpha1.ReasonListNotFound,
		v1alpha1.ReasonDocumentInUse, v1alpha1.ReasonNamespaceNotAllowed, v1alpha1.ReasonAmbientCredentialsNotAllowed:
		return true
	}
	return false
}

// messageFor is the condition message and event text of err, whose reason
// is reason: err's own text, except for a refused destination, whose
// message is the fence's fixed words without the URL or anything a dial
// error may have said, so that it names no address the list's host
// resolves to.
func messageFor(reason string, err error) string {
	if reason == v1alpha1.ReasonDestinationNotAllowed {
		return netfence.NotAllowedMessage
	}
	return err.Error()
}
