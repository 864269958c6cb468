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

package finalizerpolicy

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// The ListEntry that Probe dry-runs: valid, so that only admission
// decides what comes back. Its list need not exist (nothing checks it at
// admission), and it is never stored.
const (
	probeGenerateName = "listkeeper-finalizer-probe-"
	probeListName     = "listkeeper-finalizer-probe"
	probeID           = "listkeeper-finalizer-probe"
)

// The dry run is a create.
// +kubebuilder:rbac:groups=listkeeper.dev,resources=listentries,verbs=create

// Probe reports whether the API server adds the cleanup finalizer to a
// ListEntry created in namespace. It creates a valid ListEntry (by
// generateName) with a server-side dry run (client.DryRunAll): admission
// runs, mutating policies included, and nothing is stored. An error (the
// namespace does not exist, the caller may not create ListEntries, the API
// server fails) says nothing about the policy.
func Probe(ctx context.Context, c client.Client, namespace string) (bool, error) {
	le := &v1alpha1.ListEntry{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, GenerateName: probeGenerateName},
		Spec: v1alpha1.ListEntrySpec{
			ListRef: v1alpha1.ListReference{Kind: v1alpha1.ListKindExternalList, Name: probeListName},
			ID:      probeID,
		},
	}
	if err := c.Create(ctx, le, client.DryRunAll); err != nil {
		return false, fmt.Errorf("dry-run create of a ListEntry in namespace %s: %w", namespace, err)
	}
	return controllerutil.ContainsFinalizer(le, v1alpha1.FinalizerName), nil
}
