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
	"context"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/listconfig"
)

// The order of a claim and who holds it are listconfig's (ClaimHolder);
// what the controllers add is the cache's view of the lists that name a
// claim.

// holderOf returns the holder of l's claim as the cache shows the lists
// that name it, counting l itself as it is given (its claim key may be
// newer than the cache's index of it). For a list whose document is not
// known yet it returns l.
func holderOf(ctx context.Context, c client.Reader, l v1alpha1.List) (v1alpha1.List, error) {
	key := listconfig.ClaimKey(l)
	if key == "" {
		return l, nil
	}
	others, err := allLists(ctx, c, client.MatchingFields{claimField: key})
	if err != nil {
		return nil, err
	}
	candidates := []v1alpha1.List{l}
	for _, o := range others {
		if o.GetUID() != l.GetUID() {
			candidates = append(candidates, o)
		}
	}
	return listconfig.ClaimHolder(candidates), nil
}

// inUseMessage is the message of DocumentInUse for a list that does not
// hold the claim that holder holds, as a user of namespace sees it (see
// listconfig.HolderName).
func inUseMessage(holder v1alpha1.List, namespace string) string {
	return strings.Join([]string{
		"the document and items pointer this list names are claimed by " + listconfig.HolderName(holder, namespace),
		"only the claim's holder writes the document; delete one of the lists, or point this one at another document " +
			"(two spellings of one document count as one: another URL style, endpoint, port or items pointer " +
			"that reaches the same object, set or array is the same document)",
	}, ": ")
}
