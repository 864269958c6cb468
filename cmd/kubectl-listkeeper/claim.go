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
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/listconfig"
)

// Claims are decided as the operator decides them, with its own functions
// (internal/listconfig: ClaimHolder, ClaimKey): of all the lists that name
// one document and items pointer, exactly one holds the claim, a
// ClusterExternalList before any ExternalList, then the oldest.

// claimView says whether a list holds the claim on its document.
type claimView struct {
	// Known is false while the list's document is not known.
	Known bool `json:"known"`
	// Held is true when the list holds the claim.
	Held bool `json:"held"`
	// Holder names the list that holds it instead (see listconfig.HolderName).
	Holder string `json:"holder,omitempty"`
	// Note qualifies the answer: what could not be read, or where the
	// operator's status disagrees.
	Note string `json:"note,omitempty"`
}

// visibleLists are the lists the user could read, and whether those are
// all the lists of the cluster.
type visibleLists struct {
	lists    []v1alpha1.List
	complete bool
}

// decideClaim works out l's claim from the lists the user can read.
func decideClaim(l v1alpha1.List, seen visibleLists) claimView {
	key := listconfig.ClaimKey(l)
	if key == "" {
		return claimView{Note: "the document is not known yet: the operator publishes status.documentID once it has read spec.urlFrom's Secret"}
	}
	candidates := []v1alpha1.List{l}
	for _, o := range seen.lists {
		if o.GetUID() != l.GetUID() && listconfig.ClaimKey(o) == key {
			candidates = append(candidates, o)
		}
	}
	holder := listconfig.ClaimHolder(candidates)
	if holder.GetUID() != l.GetUID() {
		return claimView{Known: true, Holder: listconfig.HolderName(holder, l.GetNamespace())}
	}
	ready := meta.FindStatusCondition(l.ListStatus().Conditions, v1alpha1.ConditionReady)
	if ready == nil || ready.Reason != v1alpha1.ReasonDocumentInUse {
		return claimView{Known: true, Held: true}
	}
	if !seen.complete {
		return claimView{Known: true, Holder: "a list you cannot read",
			Note: "the operator reports DocumentInUse; no list you can read claims the document before this one"}
	}
	return claimView{Known: true, Held: true,
		Note: "the operator's status still says DocumentInUse: the holder is gone, and this list takes the claim at its next reconcile"}
}

// readLists reads every ClusterExternalList and every ExternalList the
// user may list: all namespaces, or, when that is forbidden, namespace's.
func readLists(ctx context.Context, c client.Reader, namespace string) (visibleLists, error) {
	seen := visibleLists{complete: true}
	var cxls v1alpha1.ClusterExternalListList
	switch err := c.List(ctx, &cxls); {
	case apierrors.IsForbidden(err):
		seen.complete = false
	case err != nil:
		return seen, fmt.Errorf("list ClusterExternalLists: %w", err)
	}
	var xls v1alpha1.ExternalListList
	err := c.List(ctx, &xls)
	if apierrors.IsForbidden(err) {
		seen.complete = false
		err = nil
		if namespace != "" {
			err = c.List(ctx, &xls, client.InNamespace(namespace))
		}
	}
	if err != nil {
		return seen, fmt.Errorf("list ExternalLists: %w", err)
	}
	for i := range cxls.Items {
		seen.lists = append(seen.lists, &cxls.Items[i])
	}
	for i := range xls.Items {
		seen.lists = append(seen.lists, &xls.Items[i])
	}
	return seen, nil
}

// claimOf reads the lists and decides l's claim.
func claimOf(ctx context.Context, c client.Reader, l v1alpha1.List) (claimView, error) {
	seen, err := readLists(ctx, c, l.GetNamespace())
	if err != nil {
		return claimView{}, err
	}
	return decideClaim(l, seen), nil
}
