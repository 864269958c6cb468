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

package main

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/finalizerpolicy"
)

// birthView says whether the API server adds the cleanup finalizer to
// every new ListEntry (the MutatingAdmissionPolicy of the install, on
// Kubernetes 1.36 and later), as `status` shows it: the operator then
// skips its own finalizer patch.
type birthView struct {
	// Known is false when the check failed; Note says why.
	Known  bool `json:"known"`
	Active bool `json:"active"`
	// Namespace is where the check ran: a binding may select some
	// namespaces only.
	Namespace string `json:"namespace"`
	Note      string `json:"note,omitempty"`
}

// finalizerAtBirth runs the operator's own check (finalizerpolicy.Probe, a
// dry-run create of a ListEntry) in namespace with the user's credentials.
// A failure, such as a user who may not create ListEntries, is reported in
// the view, never as an error of the command.
func finalizerAtBirth(ctx context.Context, c client.Client, namespace string) birthView {
	active, err := finalizerpolicy.Probe(ctx, c, namespace)
	if err == nil {
		return birthView{Known: true, Active: active, Namespace: namespace}
	}
	note := err.Error()
	if apierrors.IsForbidden(err) {
		note = fmt.Sprintf("you may not create ListEntries in namespace %s, and the check is a dry-run create; the operator's metric listkeeper_finalizer_at_birth says it too",
			namespace)
	}
	return birthView{Namespace: namespace, Note: note}
}

// birthText renders b for people.
func birthText(b birthView) string {
	switch {
	case !b.Known:
		return "unknown (" + b.Note + ")"
	case b.Active:
		return fmt.Sprintf("from birth: the API server adds %s to every new ListEntry in %s (MutatingAdmissionPolicy)", v1alpha1.FinalizerName, b.Namespace)
	default:
		return fmt.Sprintf("patched on by the operator: the API server does not add %s to new ListEntries in %s (no MutatingAdmissionPolicy; it needs Kubernetes 1.36 or later)",
			v1alpha1.FinalizerName, b.Namespace)
	}
}
