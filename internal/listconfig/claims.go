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
	"fmt"
	"slices"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// Claims. Of all the lists (ExternalLists and ClusterExternalLists) that
// name one document and items pointer (ClaimKey), exactly one holds the
// claim, and only the holder writes the document; only its entries count
// as holders of their IDs, and every other list is Ready=False with reason
// DocumentInUse. A claim is earned: a list takes part in it only once it
// has read the document with its own credentials (status.earnedClaim, see
// HasStanding), so a list that cannot read the document, a squatter with
// no credentials or a list whose Secret is wrong, never keeps one that can
// from writing it. Among the lists that have earned it, a
// ClusterExternalList comes before any ExternalList, then the oldest
// (creation time, then UID). While none has earned it, that order holds
// among all of them: the first of them tries to read, and any other list
// that reads the document successfully takes the claim. When the holder
// goes, or loses its standing, the next in that order takes the claim.

// HasStanding reports whether l has earned a place in the claim on the
// document it names now: its last read of that document, with its own
// credentials, succeeded.
func HasStanding(l v1alpha1.List) bool {
	earned := l.ListStatus().EarnedClaim
	return earned != "" && earned == ClaimID(l)
}

// claimsBefore reports whether a comes before b in the claim order.
func claimsBefore(a, b v1alpha1.List) bool {
	ak, bk := a.ListKind() == v1alpha1.ListKindClusterExternalList, b.ListKind() == v1alpha1.ListKindClusterExternalList
	if ak != bk {
		return ak
	}
	at, bt := a.GetCreationTimestamp(), b.GetCreationTimestamp()
	if !at.Equal(&bt) {
		return at.Before(&bt)
	}
	return a.GetUID() < b.GetUID()
}

// ClaimHolder returns, of the lists that name one claim, the one that
// holds it: the first in the claim order of those that have earned it
// (HasStanding), or of all of them while none has; nil when there are
// none.
func ClaimHolder(lists []v1alpha1.List) v1alpha1.List {
	if len(lists) == 0 {
		return nil
	}
	if earned := slices.DeleteFunc(slices.Clone(lists), func(l v1alpha1.List) bool { return !HasStanding(l) }); len(earned) > 0 {
		lists = earned
	}
	return slices.MinFunc(lists, func(a, b v1alpha1.List) int {
		switch {
		case claimsBefore(a, b):
			return -1
		case claimsBefore(b, a):
			return 1
		}
		return 0
	})
}

// HolderName names the holder of a claim as a user of namespace may see it
// ("" for a cluster administrator, who sees every list): by name only when
// it is in the same namespace, never where it is otherwise, nor where the
// document is.
func HolderName(holder v1alpha1.List, namespace string) string {
	switch {
	case namespace == "":
		who := RefOf(holder).String()
		if ns := holder.GetNamespace(); ns != "" {
			who += " in namespace " + ns
		}
		return who
	case holder.ListKind() == v1alpha1.ListKindClusterExternalList:
		return "a ClusterExternalList"
	case holder.GetNamespace() == namespace:
		return fmt.Sprintf("ExternalList %q", holder.GetName())
	}
	return "another list"
}
